import { expect, test } from 'vitest';
import type { MockEngine } from '@restoapi/mock-server';
import { ANNA, DORA, KENJI, MAX, as, base, demoMock, login } from '../support/catalog-client.js';

const smsFor = (mock: MockEngine, orderId: number) =>
  mock.runtime.state.notifications.filter((n) => n.order_id === orderId && n.channel === 'sms');

test('an order comes with its restaurant, courier and payment sideloaded', async () => {
  const dora = await as(demoMock(), DORA);
  const cash = await dora('GET', '/api/orders/5001');
  expect(cash.status).toBe(200);
  expect(cash.body.order).toMatchObject({
    id: 5001,
    number: 'PP-5001',
    status: 'delivery',
    total: '17.50',
    delivery_price: '2.50',
    final_sum: 20,
    payment_id: null,
  });
  expect(cash.body.order).not.toHaveProperty('secure_id');
  expect(cash.body.restaurants.map((r: { id: number }) => r.id)).toEqual([11]);
  expect(cash.body.couriers.map((c: { id: number }) => c.id)).toEqual([501]);
  expect(cash.body.payments).toEqual([]);
  const card = await dora('GET', '/orders/5002');
  expect(card.body.couriers).toEqual([]);
  expect(card.body.payments).toEqual([
    expect.objectContaining({ id: card.body.order.payment_id, order_id: 5002, status: 'paid' }),
  ]);
  expect((await dora('GET', '/api/orders/999999')).status).toBe(404);
});

test('items and buddies are read at the order links', async () => {
  const anna = await as(demoMock(), ANNA);
  const { order } = (await anna('GET', '/api/orders/5001')).body;
  const items = await anna('GET', order.links.items);
  expect(items.status).toBe(200);
  expect(items.body.items.map((i: { name: string; price: string }) => [i.name, i.price])).toEqual([
    ['Margherita', '15.00'],
    ['Cola 0.33 l', '2.50'],
  ]);
  const buddies = await anna('GET', order.links.buddies);
  expect(buddies.body.buddies).toEqual([
    expect.objectContaining({
      order_id: 5001,
      item_ids: items.body.items.map((i: { id: number }) => i.id),
      total: '17.50',
    }),
  ]);
});

test('confirm sets restaurant_confirmed_at for a staff member and courier_confirmed_at for a courier, keeping the first time', async () => {
  const mock = demoMock();
  await mock.runtime.clock.set(new Date('2026-11-20T18:00:00Z'), true);
  const anna = await as(mock, ANNA);
  const first = await anna('PUT', '/api/orders/5002/confirm');
  expect(first.status).toBe(200);
  expect(first.body.order).toMatchObject({
    status: 'pending',
    restaurant_confirmed_at: '2026-11-20T18:00:00.000Z',
    courier_confirmed_at: null,
  });
  await mock.runtime.clock.advance(60_000);
  const again = await anna('PUT', '/api/orders/5002/confirm');
  expect(again.body.order.restaurant_confirmed_at).toBe('2026-11-20T18:00:00.000Z');

  const max = await as(mock, MAX);
  const courier = await max('PUT', '/api/orders/5004/confirm');
  expect(courier.status).toBe(200);
  expect(courier.body.order.courier_confirmed_at).toBe('2026-11-20T18:01:00.000Z');
  expect(courier.body.order.status).toBe('cooking');
  expect((await max('PUT', '/api/orders/5002/confirm')).status).toBe(404);
});

test('a dispatcher may not confirm (403) and a cancelled order cannot be confirmed any more (409)', async () => {
  const mock = demoMock();
  expect((await (await as(mock, DORA))('PUT', '/api/orders/5001/confirm')).status).toBe(403);
  const cancelled = await (await as(mock, ANNA))('PUT', '/api/orders/5006/confirm');
  expect(cancelled.status).toBe(409);
  expect(mock.runtime.state.orders.get(5006)!.restaurant_confirmed_at).toBeNull();
});

test('a courier sets delivery and complete from any open status; a final status is 409', async () => {
  const mock = demoMock();
  const max = await as(mock, MAX);
  // Order 5004 is still cooking: the spec's "order, any" lets the courier take it.
  const delivery = await max('PUT', '/api/orders/5004/status?status=delivery');
  expect(delivery.status).toBe(200);
  expect(delivery.body.order.status).toBe('delivery');
  const complete = await max('PUT', '/orders/5004/status?status=complete');
  expect(complete.body.order.status).toBe('complete');
  const reopen = await max('PUT', '/api/orders/5004/status?status=delivery');
  expect(reopen.status).toBe(409);
  expect(reopen.body.errors[0]).toMatchObject({ code: 'invalid_transition' });
  expect(mock.runtime.state.orders.get(5004)!.status).toBe('complete');
});

test('a courier may set no other status (403) and no order of another courier (404)', async () => {
  const mock = demoMock();
  const max = await as(mock, MAX);
  for (const status of ['accepted', 'ready', 'cancelled']) {
    const res = await max('PUT', `/api/orders/5004/status?status=${status}`);
    expect(res.status, status).toBe(403);
  }
  expect((await max('PUT', '/api/orders/5003/status?status=complete')).status).toBe(404);
  expect((await max('PUT', '/api/orders/5004/status?status=flying')).status).toBe(400);
  expect(mock.runtime.state.orders.get(5004)!.status).toBe('cooking');
});

test('a status change sends the client an SMS, send_sms=false sends none, repeating the status changes nothing', async () => {
  const mock = demoMock();
  const max = await as(mock, MAX);
  await max('PUT', '/api/orders/5004/status?status=delivery');
  const sms = smsFor(mock, 5004);
  expect(sms).toHaveLength(1);
  expect(sms[0]).toMatchObject({ to: '+49 170 1112233', reason: 'order_status_changed' });
  expect(sms[0]!.text).toContain('PP-5004');
  await max('PUT', '/api/orders/5004/status?status=delivery');
  expect(smsFor(mock, 5004)).toHaveLength(1);
  const quiet = await max('PUT', '/api/orders/5004/status?status=complete&send_sms=false');
  expect(quiet.body.order.status).toBe('complete');
  expect(smsFor(mock, 5004)).toHaveLength(1);
});

test('staff members and dispatchers move one step along the state machine or cancel', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  expect((await anna('PUT', '/api/orders/5002/status?status=cooking')).status).toBe(409);
  // A jump only a courier may make is still an invalid transition for a staff member, not a 403.
  const jump = await anna('PUT', '/api/orders/5002/status?status=complete');
  expect(jump.status).toBe(409);
  expect(jump.body.errors[0].code).toBe('invalid_transition');
  expect((await anna('PUT', '/api/orders/5002/status?status=accepted')).body.order.status).toBe('accepted');
  const dora = await as(mock, DORA);
  expect((await dora('PUT', '/api/orders/5002/status?status=cooking')).body.order.status).toBe('cooking');
  expect((await dora('PUT', '/api/orders/5002/status?status=cancelled')).body.order.status).toBe('cancelled');
  expect((await dora('PUT', '/api/orders/5002/status?status=pending')).status).toBe(409);
  expect((await (await as(mock, KENJI))('PUT', '/api/orders/5002/status?status=cancelled')).status).toBe(404);
});

test('update assigns a courier of the organization and changes the status with one SMS', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const res = await anna('PUT', '/api/orders/5002', {
    json: { order: { courier_id: 502, status: 'accepted', description: 'Entrance from the courtyard.' } },
  });
  expect(res.status).toBe(200);
  expect(res.body.order).toMatchObject({
    courier_id: 502,
    status: 'accepted',
    description: 'Entrance from the courtyard.',
  });
  expect(res.body.couriers.map((c: { id: number }) => c.id)).toEqual([502]);
  expect(smsFor(mock, 5002)).toHaveLength(1);
  const unassigned = await anna('PUT', '/api/orders/5002?send_sms=false', {
    json: { order: { courier_id: null, status: 'cooking' } },
  });
  expect(unassigned.body.order.courier_id).toBeNull();
  expect(smsFor(mock, 5002)).toHaveLength(1);
});

test('update: delivery_price changes final_sum, and a GET body sent back is accepted', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const res = await anna('PUT', '/api/orders/5001', {
    json: { order: { delivery_price: '0.00', contact_phone: '+49 170 0000000' } },
  });
  expect(res.body.order).toMatchObject({
    delivery_price: '0.00',
    total: '17.50',
    final_sum: 17.5,
    contact_phone: '+49 170 0000000',
  });
  const sentBack = await anna('PUT', '/api/orders/5001', { json: { order: res.body.order } });
  expect(sentBack.status).toBe(200);
  expect(sentBack.body.order).toEqual(res.body.order);
});

test('update refuses a foreign courier and changed read-only fields with 422, and changes nothing', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const res = await anna('PUT', '/api/orders/5002', {
    json: { order: { courier_id: 601, number: 'PP-1', total: '1.00', contact_name: 'Someone' } },
  });
  expect(res.status).toBe(422);
  expect(
    res.body.errors.map((e: { code: string; source: { pointer: string } }) => `${e.code} ${e.source.pointer}`).sort(),
  ).toEqual(['invalid_value /order/courier_id', 'not_editable /order/number', 'not_editable /order/total']);
  const unknown = await anna('PUT', '/api/orders/5002', { json: { order: { secure_id: 'x' } } });
  expect(unknown.status).toBe(422);
  expect(unknown.body.errors[0]).toMatchObject({ code: 'unknown_field', source: { pointer: '/order/secure_id' } });
  expect(mock.runtime.state.orders.get(5002)!.contact_name).toBe('Mia Hoffmann');
});

test('an illegal status in an update is 409 and the other fields sent stay unchanged', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const res = await anna('PUT', '/api/orders/5003', {
    json: { order: { contact_name: 'Changed', status: 'delivery' } },
  });
  expect(res.status).toBe(409);
  expect(mock.runtime.state.orders.get(5003)).toMatchObject({ contact_name: 'Jonas Becker', status: 'complete' });
});

test('a courier may not update an order (403), a dispatcher may', async () => {
  const mock = demoMock();
  expect(
    (await (await as(mock, MAX))('PUT', '/api/orders/5001', { json: { order: { description: 'x' } } })).status,
  ).toBe(403);
  const dora = await as(mock, DORA);
  expect((await dora('PUT', '/api/orders/5005', { json: { order: { courier_id: 601 } } })).body.order.courier_id).toBe(
    601,
  );
  expect((await dora('PUT', '/api/orders/5005', { json: { order: { courier_id: 501 } } })).status).toBe(422);
});

test("the receipt is a real HTML page and a real PDF, in the caller's scope only", async () => {
  const mock = demoMock();
  const token = await login(mock, ANNA);
  const html = await mock.fetch(`${base}/api/orders/5001/receipt.html?token=${token}`);
  expect(html.status).toBe(200);
  expect(html.headers.get('content-type')).toMatch(/^text\/html/);
  const page = await html.text();
  expect(page).toMatch(/^<!DOCTYPE html>/);
  expect(page).toContain('PP-5001');
  expect(page).toContain('Margherita');
  expect(page).toContain('20.00');

  const pdf = await mock.fetch(`${base}/orders/5001/receipt.pdf`, {
    headers: { Authorization: `Token token="${token}"` },
  });
  expect(pdf.status).toBe(200);
  expect(pdf.headers.get('content-type')).toBe('application/pdf');
  const bytes = new Uint8Array(await pdf.arrayBuffer());
  expect(new TextDecoder().decode(bytes.slice(0, 5))).toBe('%PDF-');
  expect(bytes.length).toBeGreaterThan(500);

  const kenji = await login(mock, KENJI);
  expect((await mock.fetch(`${base}/api/orders/5001/receipt.pdf?token=${kenji}`)).status).toBe(404);
});
