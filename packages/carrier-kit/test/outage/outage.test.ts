import { afterEach, expect, test } from 'vitest';
import { createCarrierAgent, createManualScheduler, type CarrierAgent } from '../../src/index.js';
import { serve, type ServedReceiver } from '../../src/node.js';
import {
  advanceMock,
  callbacks,
  eventually,
  expectOk,
  mainOrder,
  placeOrder,
  registerCarrier,
  setOrderStatus,
  startWorld,
  type World,
  SERVICES,
} from '../support/world.js';

let world: World | undefined;
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  await world?.close();
});

async function startCarrier(baseUrl: string, port = 0): Promise<{ agent: CarrierAgent; served: ServedReceiver }> {
  const agent = createCarrierAgent({ baseUrl });
  await agent.start();
  const served = await serve(agent.handle, { port });
  cleanups.push(async () => {
    await agent.stop();
    await served.close();
  });
  return { agent, served };
}

test('the carrier down for a while and then back: the mock retries deliver every callback, nothing is lost', async () => {
  world = await startWorld();
  const first = await startCarrier(world.url);
  const port = first.served.port;
  const carrierId = await registerCarrier(world, first.served.url);
  const before = await placeOrder(world, 0);
  await eventually(() => first.agent.view(before.id) !== undefined, 5000, 'the first order');

  // The carrier goes down: its process and its endpoint are gone.
  await first.agent.stop();
  await first.served.close();
  const sentBefore = (await callbacks(world, { carrier_id: carrierId })).length;
  const orders = [before];
  for (let i = 1; i < 4; i++) orders.push(await placeOrder(world, i));
  for (const order of orders) {
    for (const status of ['accepted', 'cooking', 'ready'] as const) await setOrderStatus(world, order.id, status);
  }
  await setOrderStatus(world, orders[3]!.id, 'cancelled');
  // Two virtual minutes of outage: every attempt on the way fails (connection refused) and is rescheduled.
  await advanceMock(world, 120_000);
  const duringOutage = (await callbacks(world, { carrier_id: carrierId })).slice(sentBefore);
  const failedAttempts = duringOutage.reduce((n, c) => n + c.attempts.filter((a) => a.outcome === 'failed').length, 0);
  expect(duringOutage.every((c) => c.state === 'pending')).toBe(true);

  // A new carrier process comes back on the same callback URL, with no memory of the old one.
  const second = await startCarrier(world.url, port);
  const newOrders: number[] = [];
  second.agent.on('newOrder', ({ order }) => void newOrders.push(order.id));
  const cancelled: number[] = [];
  second.agent.on('orderCancelled', ({ order }) => void cancelled.push(order.id));
  // The retry policy's next attempts (at most 5 min apart) come within the next ten virtual minutes.
  await advanceMock(world, 10 * 60_000);
  await second.agent.idle();

  const after = (await callbacks(world, { carrier_id: carrierId })).slice(sentBefore);
  const delivered = after.filter((c) => c.state === 'delivered').length;
  const lost = after.filter((c) => c.state !== 'delivered').length;
  const processed = second.agent.receiver.stats.processed;
  console.log(
    `carrier outage: callbacks sent during the outage: ${duringOutage.length}, failed attempts: ${failedAttempts}, ` +
      `delivered after recovery: ${delivered}, processed: ${processed}, lost: ${lost}`,
  );
  expect(failedAttempts).toBeGreaterThanOrEqual(duringOutage.length);
  expect(lost).toBe(0);
  expect(processed).toBe(duringOutage.length);
  // Every order is known with the service's current state, whatever the retries' order.
  for (const order of orders.slice(0, 3)) expect(second.agent.view(order.id)?.order.order_status).toBe('prepared');
  expect(second.agent.view(orders[3]!.id)?.order.order_status).toBe('cancelled');
  expect(newOrders.sort()).toEqual(
    orders
      .slice(0, 3)
      .map((o) => o.id)
      .sort(),
  );
  expect(cancelled).toEqual([orders[3]!.id]);
});

test.each(SERVICES)(
  'the service unavailable while the courier drives: updates wait in the outbox and all arrive, in order (%s)',
  async (service) => {
    world = await startWorld({ service });
    const clock = createManualScheduler();
    const agent = createCarrierAgent({ baseUrl: world.url, scheduler: clock, random: () => 0.5 });
    await agent.start();
    const served = await serve(agent.handle, { port: 0 });
    cleanups.push(async () => {
      await agent.stop();
      await served.close();
    });
    await registerCarrier(world, served.url);
    const order = await placeOrder(world);
    await expectOk(
      world.admin.PUT('/api/orders/{id}', { params: { path: { id: order.id } }, body: { order: { courier_id: 501 } } }),
    );
    await eventually(() => agent.view(order.id) !== undefined, 5000, 'the order');
    const tracker = agent.tracker(agent.view(order.id)!.order.secure_id);

    // The carrier API answers 503 to every delivery update from now on.
    const fault = await expectOk(
      world.control.POST('/__mock/faults', {
        body: { method: 'PUT', path: '/api-delivery/orders/*/delivery', status: 503, count: 10_000 },
      }),
    );
    const statusUpdates = ['courier_assigned', 'delivering', 'delivered'];
    await tracker.assignCourier({ name: 'Tom Richter', phone: '+49 160 9876543', externalId: 4711 });
    await tracker.startDelivery();
    const positions: [number, number][] = [];
    for (let i = 0; i < 30; i++) {
      const position: [number, number] = [52.5003 - i * 0.0001, 13.419 + i * 0.0004];
      positions.push(position);
      await tracker.reportPosition(...position);
      clock.advance(1000);
      await agent.outbox.idle();
    }
    // Positions stop with the last one reported before the courier hands the order over.
    clock.advance(10_000);
    await agent.outbox.idle();
    await tracker.markDelivered();
    for (let i = 0; i < 5; i++) {
      clock.advance(30_000);
      await agent.outbox.idle();
    }
    const pendingDuringOutage = agent.outbox.pending(tracker.secureId).length;
    expect((await mainOrder(world, order.id)).order.status).toBe('pending');

    // The service is back.
    await expectOk(world.control.DELETE('/__mock/faults/{id}', { params: { path: { id: fault.fault.id } } }));
    for (let i = 0; i < 10 && agent.outbox.pending().length > 0; i++) {
      clock.advance(60_000);
      await agent.outbox.idle();
    }
    const main = await mainOrder(world, order.id);
    const applied = agent.audit.forOrder(order.id).filter((e) => e.step === 'update_answered').length;
    const statusesApplied = agent.audit
      .forOrder(order.id)
      .filter((e) => e.step === 'update_pushed' && e.data?.patch && (e.data.patch as { status?: string }).status)
      .map((e) => (e.data!.patch as { status: string }).status);
    const lost = statusUpdates.filter((s) => !statusesApplied.includes(s)).length;
    console.log(
      `service outage: status updates sent during the outage: ${statusUpdates.length}, positions reported: ${positions.length}, ` +
        `still queued when it ended: ${pendingDuringOutage}, failed attempts: ${agent.outbox.stats.retried}, ` +
        `accepted after recovery: ${applied}, status updates lost: ${lost}`,
    );
    expect(main.order.status).toBe('complete');
    expect(main.couriers.find((c) => c.id === 501)?.last_known_position).toMatchObject({
      lat: positions.at(-1)![0],
      lon: positions.at(-1)![1],
    });
    expect(lost).toBe(0);
    expect(agent.outbox.pending()).toEqual([]);
    // In order: assigned, delivering, then delivered carrying the latest position (positions coalesced while waiting).
    const answered = agent.audit
      .forOrder(order.id)
      .filter((e) => e.step === 'update_answered')
      .map((e) => e.detail);
    expect(answered).toEqual(
      service === 'mock'
        ? [
            'accepted: delivery courier_assigned, order new',
            'accepted: delivery delivering, order delivering',
            'accepted: delivery delivered, order complete',
          ]
        : // The independent implementation answers updates with 204: the order is read back instead.
          Array(3).fill('accepted (the answer held no order)'),
    );
  },
);
