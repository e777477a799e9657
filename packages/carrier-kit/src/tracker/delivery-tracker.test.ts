import { describe, expect, test } from 'vitest';
import { FakeCarrierApi, carrierOrder } from '../../test/support/fake-carrier-api.js';
import { createOutbox } from '../outbox/outbox.js';
import { createManualScheduler } from '../time/scheduler.js';
import { DeliveryTracker, IllegalTransitionError } from './delivery-tracker.js';

async function setup() {
  const clock = createManualScheduler();
  const api = new FakeCarrierApi();
  const order = api.add(carrierOrder(5001));
  const outbox = createOutbox({ api, scheduler: clock });
  await outbox.start();
  const tracker = new DeliveryTracker({ secureId: order.secure_id, orderId: order.id, outbox });
  return { api, outbox, tracker, order, clock };
}

describe('delivery tracker', () => {
  test('walks idle → courier_assigned → delivering → delivered and sends each step in order', async () => {
    const { api, outbox, tracker, order } = await setup();
    await tracker.assignCourier({ name: 'Tom Richter', phone: '+49 160 9876543', externalId: 4711 });
    await tracker.startDelivery();
    await tracker.reportPosition(52.4981, 13.4297);
    await tracker.markDelivered('Handed over to Jonas Becker.');
    await outbox.drained();
    expect(api.puts(order.secure_id)).toEqual([
      {
        status: 'courier_assigned',
        courier_name: 'Tom Richter',
        courier_phone: '+49 160 9876543',
        courier_external_id: 4711,
      },
      { status: 'delivering' },
      { lat: 52.4981, lon: 13.4297 },
      { status: 'delivered', message: 'Handed over to Jonas Becker.' },
    ]);
    expect(tracker.status).toBe('delivered');
    expect(tracker.finished).toBe(true);
  });

  test('refuses an illegal transition with a clear error before anything is sent', async () => {
    const { api, outbox, tracker } = await setup();
    const error = await tracker.markDelivered().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IllegalTransitionError);
    expect((error as IllegalTransitionError).message).toBe(
      'Illegal delivery transition idle → delivered for order secure-5001: from idle the delivery may move to courier_assigned, problem. Nothing was sent.',
    );
    expect((error as IllegalTransitionError).allowed).toEqual(['courier_assigned', 'problem']);
    await expect(tracker.startDelivery()).rejects.toBeInstanceOf(IllegalTransitionError);
    expect(outbox.pending()).toEqual([]);
    expect(api.calls).toEqual([]);
    expect(tracker.status).toBe('idle');
  });

  test('checks calls made without awaiting in call order', async () => {
    const { tracker, outbox, api } = await setup();
    const assigned = tracker.assignCourier({ name: 'Tom', phone: '+49 1' });
    const started = tracker.startDelivery();
    const again = tracker.assignCourier({ name: 'Tom', phone: '+49 1' }); // delivering → courier_assigned is illegal
    await Promise.all([assigned, started]);
    await expect(again).rejects.toThrow(/delivering → courier_assigned/);
    await outbox.drained();
    expect(api.puts().map((p) => p.status)).toEqual(['courier_assigned', 'delivering']);
  });

  test('a problem can be reported from any non-terminal status and left again', async () => {
    const { tracker } = await setup();
    await tracker.assignCourier({ name: 'Tom', phone: '+49 1' });
    await tracker.reportProblem('Flat tyre, switching bikes.');
    await tracker.startDelivery();
    await tracker.markDelivered();
    await expect(tracker.reportProblem('too late')).rejects.toThrow(/delivered is final/);
  });

  test('positions after the end of the delivery are dropped, invalid ones refused', async () => {
    const { tracker } = await setup();
    await expect(tracker.reportPosition(91, 13)).rejects.toThrow(RangeError);
    await tracker.assignCourier({ name: 'Tom', phone: '+49 1' });
    await tracker.startDelivery();
    await tracker.markDelivered();
    expect(await tracker.reportPosition(52.5, 13.4)).toBe('dropped_terminal');
  });

  test('an order locked by the service (cancelled) refuses every move', async () => {
    const { tracker, order } = await setup();
    tracker.sync({ ...order, order_status: 'cancelled' });
    await expect(tracker.assignCourier({ name: 'Tom', phone: '+49 1' })).rejects.toThrow(
      /is cancelled: its delivery can no longer change/,
    );
    expect(await tracker.reportPosition(52.5, 13.4)).toBe('dropped_terminal');
  });
});
