import { expect, test } from 'vitest';
import { createCarrierAgent, IllegalTransitionError } from '../../src/index.js';
import { useCarrierWorld } from '../support/carrier-world.js';
import {
  eventually,
  mainOrder,
  placeOrder,
  registerCarrier,
  SERVICES,
  setOrderStatus,
  type WorldService,
} from '../support/world.js';

const startCarrierWorld = useCarrierWorld();

async function setup(service: WorldService = 'mock') {
  const puts: string[] = [];
  const counting: typeof fetch = (input, init) => {
    const request = new Request(input, init);
    if (request.method === 'PUT') puts.push(new URL(request.url).pathname);
    return fetch(request);
  };
  const { world, agent, served } = await startCarrierWorld({ service, agent: { fetch: counting } });
  await registerCarrier(world, served.url);
  const order = await placeOrder(world);
  await eventually(() => agent.view(order.id) !== undefined, 5000, 'the order');
  return { world, agent, order, puts, secureId: agent.view(order.id)!.order.secure_id };
}

test('illegal transitions are refused with a clear error before anything is sent', async () => {
  const { world, agent, order, puts, secureId } = await setup();
  const tracker = agent.tracker(secureId);

  const refusals: string[] = [];
  for (const attempt of [
    () => tracker.markDelivered(),
    () => tracker.startDelivery(),
    () => tracker.transition('idle'),
  ]) {
    const error = await attempt().then(
      () => undefined,
      (e: unknown) => e,
    );
    if (error instanceof IllegalTransitionError) refusals.push(error.message);
  }
  // idle → idle is the current status again: a no-op the service accepts, so it is allowed.
  expect(refusals).toEqual([
    `Illegal delivery transition idle → delivered for order ${secureId}: from idle the delivery may move to courier_assigned, problem. Nothing was sent.`,
    `Illegal delivery transition idle → delivering for order ${secureId}: from idle the delivery may move to courier_assigned, problem. Nothing was sent.`,
  ]);
  await agent.outbox.drained();
  expect(puts).toEqual([`/api-delivery/orders/${secureId}/delivery`]); // only the allowed idle → idle
  const carrierView = await agent.api.getOrder(secureId);
  expect(carrierView.delivery.status).toBe('idle');
  expect((await mainOrder(world, order.id)).order.status).toBe('pending');

  await tracker.assignCourier({ name: 'Tom Richter', phone: '+49 160 9876543', externalId: 4711 });
  await tracker.startDelivery();
  await tracker.markDelivered();
  await expect(tracker.reportProblem('too late')).rejects.toThrow('delivered is final');
  await agent.outbox.drained();
  expect((await mainOrder(world, order.id)).order.status).toBe('complete');
  expect(puts).toHaveLength(4);
});

test.each(SERVICES)(
  'an order cancelled by the restaurant locks its tracker; an update the service refuses is reported, not retried (%s)',
  async (service) => {
    const { world, agent, order, puts, secureId } = await setup(service);
    const cancelled: number[] = [];
    agent.on('orderCancelled', ({ order }) => void cancelled.push(order.id));
    const tracker = agent.tracker(secureId);
    await tracker.assignCourier({ name: 'Tom Richter', phone: '+49 160 9876543', externalId: 4711 });
    await agent.outbox.drained();

    await setOrderStatus(world, order.id, 'cancelled');
    await eventually(() => cancelled.length === 1, 5000, 'orderCancelled');
    const sentBefore = puts.length;
    const error = await tracker.startDelivery().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IllegalTransitionError);
    expect((error as Error).message).toBe(
      `The order ${secureId} is cancelled: its delivery can no longer change (courier_assigned → delivering refused). Nothing was sent.`,
    );
    expect(await tracker.reportPosition(52.5, 13.42)).toBe('dropped_terminal');
    expect(puts.length).toBe(sentBefore);

    // An update that is legal for the tracker but refused by the service (409) is dropped and audited, not retried.
    // A second carrier process that is not told about the change (it gets no callbacks) plays the stale side.
    const other = await placeOrder(world, 1);
    await eventually(() => agent.view(other.id) !== undefined, 5000, 'the second order');
    const stale = createCarrierAgent({ baseUrl: world.url });
    await stale.start();
    const otherSecureId = agent.view(other.id)!.order.secure_id;
    await stale.refresh(otherSecureId);
    for (const status of ['accepted', 'cooking', 'ready', 'delivery', 'complete'] as const)
      await setOrderStatus(world, other.id, status);
    const rejected: unknown[] = [];
    stale.outbox.on('rejected', ({ error }) => void rejected.push(error));
    await stale.tracker(otherSecureId).assignCourier({ name: 'Lena Weber', phone: '+49 151 000000', externalId: 4712 });
    await stale.outbox.drained();
    await stale.idle();
    expect(rejected).toHaveLength(1);
    expect(rejected[0]).toMatchObject({ status: 409 });
    expect(stale.outbox.stats).toMatchObject({ attempts: 1, rejected: 1, retried: 0 });
    const trail = stale.audit.forOrder(other.id).map((e) => `${e.step}: ${e.detail}`);
    expect(trail.some((line) => line.startsWith('update_rejected: 409'))).toBe(true);
    // The refusal made the agent reload the order: its view and tracker now know it is complete.
    expect(stale.view(other.id)?.order.order_status).toBe('complete');
    expect(stale.tracker(otherSecureId).lockedByOrderStatus).toBe('complete');
    await stale.stop();
  },
);
