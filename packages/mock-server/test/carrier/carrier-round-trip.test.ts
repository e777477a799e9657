import { afterEach, expect, test } from 'vitest';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.js';
import { call, login, margheritaOrder, storefrontMock } from '../support/storefront.js';

const receivers: CallbackReceiver[] = [];
async function receiver(...args: Parameters<typeof startCallbackReceiver>): Promise<CallbackReceiver> {
  const started = await startCallbackReceiver(...args);
  receivers.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

test('a carrier is called back, reads the order and drives it to complete with the courier position recorded', async () => {
  const { mock, control } = await storefrontMock();
  const carrierServer = await receiver();
  const registered = await control.POST('/__mock/carriers', {
    body: { callback_url: carrierServer.url, restaurant_ids: [11], name: 'Kurier Berlin' },
  });
  expect(registered.response.status).toBe(201);
  expect(registered.data?.carrier).toMatchObject({ name: 'Kurier Berlin', restaurant_ids: [11], signed: false });

  const placed = await control.POST('/__mock/orders', { body: margheritaOrder() });
  expect(placed.response.status).toBe(201);
  const order = placed.data!.order;
  expect(order).toMatchObject({
    status: 'pending',
    restaurant_id: 11,
    total: '17.50',
    delivery_price: '2.50',
    final_sum: 20,
  });

  const created = await carrierServer.nth(1);
  expect(created.method).toBe('POST');
  expect(created.body).toBe('');
  expect(created.query).toEqual({
    type: 'order_created',
    order_id: String(order.id),
    order_secure_id: expect.any(String),
  });
  const secureId = created.query.order_secure_id!;
  expect(secureId.length).toBeGreaterThanOrEqual(43);

  const view = await call(mock, 'GET', `/api-delivery/orders/${secureId}`);
  expect(view.status).toBe(200);
  expect(view.body.order).toMatchObject({
    id: order.id,
    secure_id: secureId,
    number: order.number,
    order_status: 'new',
    delivery: {
      status: 'idle',
      message: null,
      courier_name: null,
      courier_phone: null,
      courier_external_id: null,
      lat: null,
      lon: null,
    },
    destination: { address: 'Wiener Straße 18', city: 'Berlin', lat: 52.4975, lon: 13.431 },
    restaurant: {
      organization_name: 'Pizza Piccolo',
      name: 'Pizza Piccolo Kreuzberg',
      phone: '+49 30 1234501',
      address: 'Oranienstraße 45, 10969 Berlin',
    },
    change: 50,
    items_price: 17.5,
    delivery_price: 2.5,
    final_price: 20,
    payment_source: 'cash',
    items: [
      { name: 'Margherita', amount: 1, price: 15, config_text: 'Size: 40 cm; Extra toppings: Mozzarella' },
      { name: 'Cola 0.33 l', amount: 1, price: 2.5, config_text: null },
    ],
  });

  // The restaurant puts its own courier on the order; the carrier's positions are then recorded for him.
  const admin = await login(mock, 'admin@pizza.demo');
  expect(
    (await call(mock, 'PUT', `/api/orders/${order.id}`, { token: admin, json: { order: { courier_id: 501 } } })).status,
  ).toBe(200);
  // The order lists follow the carrier's updates (the list index is built here, before they come).
  const listed = async (status: string): Promise<number[]> =>
    (await call(mock, 'GET', `/api/orders?status=${status}&per_page=100`, { token: admin })).body.orders.map(
      (o: { id: number }) => o.id,
    );
  expect(await listed('delivery')).not.toContain(order.id);

  const assigned = await call(mock, 'PUT', `/api-delivery/orders/${secureId}/delivery`, {
    json: {
      status: 'courier_assigned',
      courier_name: 'Tom Richter',
      courier_phone: '+49 160 9876543',
      courier_external_id: 4711,
    },
  });
  expect(assigned.status).toBe(200);
  expect(assigned.body.order).toMatchObject({
    order_status: 'new',
    delivery: { status: 'courier_assigned', courier_name: 'Tom Richter', courier_external_id: 4711 },
  });

  const delivering = await call(mock, 'PUT', `/api-delivery/orders/${secureId}/delivery`, {
    json: { status: 'delivering', lat: 52.4981, lon: 13.4297 },
  });
  expect(delivering.status).toBe(200);
  expect(delivering.body.order).toMatchObject({
    order_status: 'delivering',
    delivery: { status: 'delivering', lat: 52.4981, lon: 13.4297 },
  });
  expect((await call(mock, 'GET', `/api/orders/${order.id}`, { token: admin })).body.order.status).toBe('delivery');
  expect(await listed('delivery')).toContain(order.id);
  const courier = await call(mock, 'GET', '/api/couriers/501', { token: admin });
  expect(courier.body.courier.last_known_position).toEqual({
    lat: 52.4981,
    lon: 13.4297,
    updated_at: '2026-11-20T17:30:00.000Z',
  });
  expect((await carrierServer.nth(2)).query).toMatchObject({
    type: 'order_status_changed',
    order_secure_id: secureId,
    status: 'delivery',
  });

  const delivered = await call(mock, 'PUT', `/api-delivery/orders/${secureId}/delivery`, {
    json: { status: 'delivered', message: 'Handed over to Jonas Becker.' },
  });
  expect(delivered.status).toBe(200);
  expect(delivered.body.order).toMatchObject({
    order_status: 'complete',
    delivery: { status: 'delivered', message: 'Handed over to Jonas Becker.' },
  });
  expect((await call(mock, 'GET', `/api/orders/${order.id}`, { token: admin })).body.order.status).toBe('complete');
  expect(await listed('complete')).toContain(order.id);
  expect(await listed('delivery')).not.toContain(order.id);
  expect((await carrierServer.nth(3)).query).toMatchObject({
    type: 'order_status_changed',
    order_id: String(order.id),
    status: 'complete',
  });

  // The delivery is over: a complete order stays readable but takes no more updates.
  expect((await call(mock, 'GET', `/api-delivery/orders/${secureId}`)).status).toBe(200);
  const late = await call(mock, 'PUT', `/api-delivery/orders/${secureId}/delivery`, {
    json: { lat: 52.5, lon: 13.43 },
  });
  expect(late.status).toBe(409);
});

test('an illegal delivery move is 409 and changes nothing', async () => {
  const { mock, control } = await storefrontMock();
  await control.POST('/__mock/carriers', { body: { callback_url: 'http://127.0.0.1:9/never' } });
  const { data } = await control.POST('/__mock/orders', { body: margheritaOrder() });
  const secureId = mock.runtime.state.orders.get(data!.order.id)!.secure_id!;

  const skipped = await call(mock, 'PUT', `/api-delivery/orders/${secureId}/delivery`, {
    json: { status: 'delivered', courier_name: 'Nobody' },
  });
  expect(skipped.status).toBe(409);
  expect(skipped.body.errors[0]).toMatchObject({
    status: '409',
    code: 'invalid_transition',
    source: { pointer: '/status' },
  });

  const after = await call(mock, 'GET', `/api-delivery/orders/${secureId}`);
  expect(after.body.order).toMatchObject({ order_status: 'new', delivery: { status: 'idle', courier_name: null } });

  // Repeating the current status is a no-op, and `problem` can be left again.
  expect(
    (await call(mock, 'PUT', `/api-delivery/orders/${secureId}/delivery`, { json: { status: 'idle' } })).status,
  ).toBe(200);
  expect(
    (
      await call(mock, 'PUT', `/api-delivery/orders/${secureId}/delivery`, {
        json: { status: 'problem', message: 'No courier free' },
      })
    ).status,
  ).toBe(200);
  const back = await call(mock, 'PUT', `/api-delivery/orders/${secureId}/delivery`, {
    json: { status: 'courier_assigned', message: null },
  });
  expect(back.body.order.delivery).toMatchObject({ status: 'courier_assigned', message: null });
});

test('a cancelled order takes no delivery update (409)', async () => {
  const { mock, control } = await storefrontMock();
  await control.POST('/__mock/carriers', { body: { callback_url: 'http://127.0.0.1:9/never' } });
  const { data } = await control.POST('/__mock/orders', { body: margheritaOrder() });
  const secureId = mock.runtime.state.orders.get(data!.order.id)!.secure_id!;
  const admin = await login(mock, 'admin@pizza.demo');
  expect(
    (await call(mock, 'PUT', `/api/orders/${data!.order.id}/status?status=cancelled`, { token: admin })).status,
  ).toBe(200);

  const res = await call(mock, 'PUT', `/api-delivery/orders/${secureId}/delivery`, {
    json: { status: 'courier_assigned' },
  });
  expect(res.status).toBe(409);
  expect((await call(mock, 'GET', `/api-delivery/orders/${secureId}`)).body.order.order_status).toBe('cancelled');
});

test('invalid delivery bodies are 422 naming the field, unknown tokens 404', async () => {
  const { mock, control } = await storefrontMock();
  await control.POST('/__mock/carriers', { body: { callback_url: 'http://127.0.0.1:9/never' } });
  const { data } = await control.POST('/__mock/orders', { body: margheritaOrder() });
  const secureId = mock.runtime.state.orders.get(data!.order.id)!.secure_id!;
  const put = (json: unknown) => call(mock, 'PUT', `/api-delivery/orders/${secureId}/delivery`, { json });

  const badStatus = await put({ status: 'flying' });
  expect(badStatus.status).toBe(422);
  expect(badStatus.body.errors[0].source).toEqual({ pointer: '/status' });

  const unknown = await put({ colour: 'red' });
  expect(unknown.status).toBe(422);
  expect(unknown.body.errors[0]).toMatchObject({ code: 'unknown_field', source: { pointer: '/colour' } });

  const badLat = await put({ lat: 123, lon: 13.4 });
  expect(badLat.status).toBe(422);
  expect(badLat.body.errors[0].source).toEqual({ pointer: '/lat' });

  expect((await put({})).status).toBe(422);
  expect((await call(mock, 'GET', '/api-delivery/orders/not-a-real-token')).status).toBe(404);
  expect(
    (await call(mock, 'PUT', '/api-delivery/orders/not-a-real-token/delivery', { json: { status: 'idle' } })).status,
  ).toBe(404);
});

test('orders of restaurants no carrier serves get no secure_id and no callback', async () => {
  const { mock, control } = await storefrontMock();
  await control.POST('/__mock/carriers', { body: { callback_url: 'http://127.0.0.1:9/never', restaurant_ids: [12] } });
  const { data } = await control.POST('/__mock/orders', { body: margheritaOrder() });
  expect(mock.runtime.state.orders.get(data!.order.id)).toMatchObject({ secure_id: null, carrier_id: null });
  expect((await control.GET('/__mock/callbacks')).data!.callbacks).toEqual([]);
});
