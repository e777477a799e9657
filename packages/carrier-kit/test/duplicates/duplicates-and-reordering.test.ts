import { expect, test } from 'vitest';
import { readOrderStatusProgress, type CarrierOrderStatus } from '../../src/index.js';
import { useCarrierWorld } from '../support/carrier-world.js';
import {
  advanceMock,
  callbacks,
  eventually,
  expectOk,
  placeOrder,
  registerCarrier,
  setOrderStatus,
} from '../support/world.js';

const startCarrierWorld = useCarrierWorld();

test('duplicated and reordered callbacks (mock chaos) are processed once each, and the service state wins', async () => {
  const newOrders = new Map<number, number>();
  const history = new Map<number, CarrierOrderStatus[]>();
  const cancelled: number[] = [];
  const { world, agent, served } = await startCarrierWorld({
    beforeStart: (agent) => {
      agent.on('newOrder', ({ order }) => {
        newOrders.set(order.id, (newOrders.get(order.id) ?? 0) + 1);
        history.set(order.id, [order.order_status]);
      });
      agent.on('orderStatusChanged', ({ order, current }) => void history.get(order.id)?.push(current));
      agent.on('orderCancelled', ({ order }) => void cancelled.push(order.id));
    },
  });
  const carrierId = await registerCarrier(world, served.url, {
    chaos: { duplicate: 0.5, reorder: true, delayMs: 200, seed: 7 },
  });

  const orders = [];
  for (let i = 0; i < 6; i++) orders.push(await placeOrder(world, i));
  for (const order of orders) {
    for (const status of ['accepted', 'cooking', 'ready'] as const) await setOrderStatus(world, order.id, status);
  }
  await setOrderStatus(world, orders[5]!.id, 'cancelled');
  // Delays and reorder holds run on the mock's virtual clock.
  await advanceMock(world, 10_000);
  await eventually(
    async () => (await callbacks(world, { carrier_id: carrierId })).every((c) => c.state === 'delivered'),
    5000,
    'every callback delivered',
  );
  await agent.idle();

  const sent = await callbacks(world, { carrier_id: carrierId });
  const duplicatesSent = sent.filter((c) => c.duplicate_of !== null).length;
  const distinctEvents = new Set(sent.map((c) => `${c.order_id}|${c.type}|${c.query.status ?? ''}`)).size;
  const { stats } = agent.receiver;

  // How many callbacks reached the carrier after a newer one about the same order.
  const arrivals = agent.audit.all().filter((e) => e.step === 'callback_received' || e.step === 'callback_duplicate');
  const order = ['order_created', 'pending', 'accepted', 'cooking', 'ready', 'cancelled'];
  const rank = (e: (typeof arrivals)[number]) =>
    order.indexOf(e.data?.type === 'order_created' ? 'order_created' : String(e.data?.status));
  let outOfOrder = 0;
  const latest = new Map<number, number>();
  for (const arrival of arrivals) {
    const r = rank(arrival);
    if (r < (latest.get(arrival.orderId!) ?? -1)) outOfOrder++;
    latest.set(arrival.orderId!, Math.max(r, latest.get(arrival.orderId!) ?? -1));
  }

  console.log(
    [
      `callbacks sent by the mock: ${sent.length} (${distinctEvents} distinct events, ${duplicatesSent} chaos duplicates)`,
      `arrived after a newer one (reordered): ${outOfOrder}`,
      `processed: ${stats.processed}, acknowledged as duplicates: ${stats.duplicates}, processed twice: ${stats.processed - distinctEvents}`,
    ].join('\n'),
  );

  expect(duplicatesSent).toBeGreaterThan(0);
  expect(outOfOrder).toBeGreaterThan(0);
  expect(stats.processed).toBe(distinctEvents);
  expect(stats.duplicates).toBe(sent.length - distinctEvents);
  expect(stats.invalid + stats.failed).toBe(0);
  // The last order was cancelled before its delayed callbacks arrived: the carrier learns it only as cancelled.
  expect(orders.map((o) => newOrders.get(o.id) ?? 0)).toEqual([1, 1, 1, 1, 1, 0]);
  expect(cancelled).toEqual([orders[5]!.id]);
  // The local views follow the service and never go back in the life cycle, whatever order the callbacks came in.
  const progress = readOrderStatusProgress();
  for (const placed of orders) {
    const statuses = history.get(placed.id) ?? [];
    for (let i = 1; i < statuses.length; i++) expect(progress.isStale(statuses[i - 1]!, statuses[i]!)).toBe(false);
    expect(agent.view(placed.id)?.order.order_status).toBe(placed.id === orders[5]!.id ? 'cancelled' : 'prepared');
  }
});

test('concurrent copies of one callback are locked in flight: one load, one event', async () => {
  let newOrders = 0;
  const { world, agent, served } = await startCarrierWorld({
    beforeStart: (agent) => void agent.on('newOrder', () => void newOrders++),
  });
  // Registered with a URL that goes nowhere, so the only callbacks are the ones this test sends.
  await registerCarrier(world, 'http://127.0.0.1:9/nowhere');
  const order = await placeOrder(world);
  const [created] = await callbacks(world, { order_id: order.id });
  // Loading the order is slow, so the copies arrive while the first is still being processed.
  await expectOk(
    world.control.POST('/__mock/faults', {
      body: { method: 'GET', path: '/api-delivery/orders/*', latencyMs: 300, count: 10 },
    }),
  );
  const url = `${served.url}?${new URLSearchParams(created!.query)}`;
  const answers = await Promise.all(Array.from({ length: 8 }, () => fetch(url, { method: 'POST' })));
  await agent.idle();
  const bodies = await Promise.all(answers.map((r) => r.json() as Promise<{ status: string }>));
  console.log(
    `concurrent copies sent: 8, processed: ${agent.receiver.stats.processed}, acknowledged as duplicates: ${agent.receiver.stats.duplicates}`,
  );
  expect(answers.every((r) => r.status >= 200 && r.status < 300)).toBe(true);
  expect(bodies.filter((b) => b.status === 'accepted')).toHaveLength(1);
  expect(bodies.filter((b) => b.status === 'duplicate')).toHaveLength(7);
  expect(newOrders).toBe(1);
  expect(agent.receiver.stats.processed).toBe(1);
});
