import { afterEach, describe, expect, test } from 'vitest';
import { ConflictError, NotFoundError } from '@restoapi/sdk';
import {
  FRIDAY_EVENING,
  handedOverOrder,
  startMock,
  TRANSPORTS,
  type MockTarget,
  expectInvalid,
} from '../support/mock-target.js';

describe.each(TRANSPORTS)('carrier client over %s', (transport) => {
  let target: MockTarget;
  afterEach(() => target?.close());

  test('getOrder reads the carrier view; updateDelivery drives the delivery and the main order', async () => {
    target = await startMock(transport, { frozenAt: FRIDAY_EVENING });
    const { orderId, secureId } = await handedOverOrder(target);
    const carrier = target.carrier();

    const { order } = await carrier.getOrder(secureId);
    expect(order).toMatchObject({
      id: orderId,
      secure_id: secureId,
      order_status: 'new',
      delivery: { status: 'idle' },
      final_price: 20,
    });

    const assigned = await carrier.updateDelivery(secureId, {
      status: 'courier_assigned',
      courier_name: 'Tom Richter',
      courier_external_id: 4711,
    });
    expect(assigned.order.delivery).toMatchObject({ status: 'courier_assigned', courier_name: 'Tom Richter' });
    // Repeating a status is a no-op: safe to retry.
    await expect(carrier.updateDelivery(secureId, { status: 'courier_assigned' })).resolves.toMatchObject({
      order: { delivery: { status: 'courier_assigned' } },
    });

    const delivering = await carrier.updateDelivery(secureId, { status: 'delivering', lat: 52.4981, lon: 13.4297 });
    expect(delivering.order).toMatchObject({ order_status: 'delivering', delivery: { lat: 52.4981, lon: 13.4297 } });
    const delivered = await carrier.updateDelivery(secureId, { status: 'delivered', message: 'Handed over.' });
    expect(delivered.order.order_status).toBe('complete');

    const api = await target.signIn('admin@pizza.demo');
    expect((await api.orders.get(orderId)).order.status).toBe('complete');
  });

  test('carrier errors share the typed classes', async () => {
    target = await startMock(transport, { frozenAt: FRIDAY_EVENING });
    const { secureId } = await handedOverOrder(target);
    const carrier = target.carrier();
    const missing = await carrier.getOrder('x'.repeat(43)).catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(NotFoundError);
    expect(missing).toMatchObject({
      status: 404,
      operation: 'GET /orders/{secure_id}',
      requestId: expect.stringMatching(/^req_/),
    });

    const illegal = await carrier.updateDelivery(secureId, { status: 'delivered' }).withResponse();
    expect(illegal.error).toBeInstanceOf(ConflictError);

    const empty = await carrier.updateDelivery(secureId, {}, { throwOnError: false });
    expectInvalid(target, empty.error);
  });
});
