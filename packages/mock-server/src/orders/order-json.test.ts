import { expect, test } from 'vitest';
import { createMock } from '../index.js';
import { listActors, seedWithOrders } from '../../test/orders/order-fixtures.js';
import type { OrderRecord } from '../state/mock-state.js';
import { listOrders } from './order-list.js';
import {
  ORDER_FIELDS,
  ORDER_JSON_CAPACITY,
  cachedOrderJsonCount,
  orderJson,
  orderResponse,
  orderResponseJson,
  publicOrder,
} from './order-views.js';

const orders = () => seedWithOrders(20).orders!.rows as OrderRecord[];

test('an order changed in place, field by field, serializes to its new public view every time', () => {
  const order = orders()[0]!;
  expect(orderJson(order)).toBe(JSON.stringify(publicOrder(order)));
  expect(orderJson(order)).toBe(JSON.stringify(publicOrder(order)));
  const record = order as unknown as Record<string, unknown>;
  for (const field of ORDER_FIELDS.filter((f) => f !== 'links')) {
    const before = record[field];
    for (const value of [typeof before === 'number' ? before + 1 : 'changed', null, before]) {
      record[field] = value;
      expect(orderJson(order), `${field} = ${String(value)}`).toBe(JSON.stringify(publicOrder(order)));
    }
  }
  // Private fields and links never reach the text.
  (order as unknown as Record<string, unknown>).secure_id = 'secret';
  expect(orderJson(order)).not.toContain('secret');
  expect(JSON.parse(orderJson(order)).links).toEqual({
    buddies: `/api/orders/${order.id}/buddies`,
    items: `/api/orders/${order.id}/items`,
  });
});

test('a record holding an object in a public field is serialized afresh each time (an object can change inside)', () => {
  const order = orders()[1]!;
  const note = { text: 'ring twice' };
  (order as unknown as Record<string, unknown>).description = note;
  expect(orderJson(order)).toContain('ring twice');
  note.text = 'leave at the door';
  expect(orderJson(order)).toContain('leave at the door');
  expect(orderJson(order)).toBe(JSON.stringify(publicOrder(order)));
});

test('the cache keeps at most its capacity of orders, and stays exact beyond it', () => {
  const many = seedWithOrders(ORDER_JSON_CAPACITY + 500).orders!.rows as OrderRecord[];
  for (const order of many) orderJson(order);
  expect(cachedOrderJsonCount()).toBeLessThanOrEqual(ORDER_JSON_CAPACITY);
  many[0]!.status = 'cancelled';
  expect(orderJson(many[0]!)).toBe(JSON.stringify(publicOrder(many[0]!)));
});

test('the assembled answers are exactly JSON.stringify of the answers as objects', async () => {
  const mock = createMock({ state: seedWithOrders(300) });
  const { runtime } = mock;
  for (const order of runtime.state.orders.all().slice(0, 50)) {
    expect(orderResponseJson(runtime, order).text).toBe(JSON.stringify(orderResponse(runtime, order)));
  }
  const login = await mock.fetch('http://localhost:4010/api/session?login=dispatcher@demo&password=demo', {
    method: 'POST',
  });
  const headers = {
    Authorization: `Token token="${((await login.json()) as { meta: { token: string } }).meta.token}"`,
  };
  const text = await (
    await mock.fetch(
      'http://localhost:4010/api/orders?per_page=30&status=pending&status=delivery&sort_by=-delivery_at',
      { headers },
    )
  ).text();
  const page = listOrders(runtime.state.orders, listActors.dispatcher, {
    per_page: 30,
    status: ['pending', 'delivery'],
    sort_by: '-delivery_at',
  });
  expect(text).toBe(JSON.stringify({ orders: page.orders.map(publicOrder), meta: page.meta }));
  const one = await (await mock.fetch('http://localhost:4010/api/orders/5001', { headers })).text();
  expect(one).toBe(JSON.stringify(orderResponse(runtime, runtime.state.orders.get(5001)!)));
  mock.close();
});
