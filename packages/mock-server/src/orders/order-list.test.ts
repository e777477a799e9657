import { expect, test } from 'vitest';
import { listActors, seedWithOrders } from '../../test/orders/order-fixtures.js';
import { seesOrder } from '../model/access.js';
import type { Actor } from '../session/actor.js';
import type { OrderRecord } from '../state/mock-state.js';
import { Table } from '../state/table.js';
import { listOrders, type OrderListQuery } from './order-list.js';

const orders = new Table(seedWithOrders(10_000).orders!.rows as OrderRecord[]);
const all = orders.all();
const everyone = listActors.dispatcher;

function bruteForce(actor: Actor, query: OrderListQuery): number[] {
  const matching = all.filter(
    (o) =>
      seesOrder(actor, o) &&
      (!query.restaurant_id || query.restaurant_id.includes(o.restaurant_id)) &&
      (!query.courier_id || (o.courier_id !== null && query.courier_id.includes(o.courier_id))) &&
      (!query.client_id || query.client_id.includes(o.client_id)) &&
      (!query.status || query.status.includes(o.status)),
  );
  return matching.map((o) => o.id).sort((a, b) => a - b);
}

test('the pages of a filtered list together hold exactly the matching orders, once each', () => {
  const query: OrderListQuery = { restaurant_id: [11, 22], status: ['pending', 'delivery'], per_page: 37 };
  const first = listOrders(orders, everyone, query);
  const expected = bruteForce(everyone, query);
  expect(first.meta).toEqual({
    page: 1,
    per_page: 37,
    count: expected.length,
    page_count: Math.ceil(expected.length / 37),
  });
  const seen: number[] = [];
  for (let page = 1; page <= first.meta.page_count; page++) {
    const { orders: rows, meta } = listOrders(orders, everyone, { ...query, page });
    expect(meta.count).toBe(expected.length);
    expect(rows.length).toBe(page < meta.page_count ? 37 : expected.length - 37 * (meta.page_count - 1));
    seen.push(...rows.map((o) => o.id));
  }
  expect([...seen].sort((a, b) => a - b)).toEqual(expected);
  expect(listOrders(orders, everyone, { ...query, page: first.meta.page_count + 1 }).orders).toEqual([]);
});

test('nothing matching gives count 0 and page_count 0', () => {
  const { orders: rows, meta } = listOrders(orders, everyone, { client_id: [424242] });
  expect(rows).toEqual([]);
  expect(meta).toEqual({ page: 1, page_count: 0, per_page: 25, count: 0 });
});

test('the default order is newest first, comparing instants and breaking ties by id', () => {
  const rows = listOrders(orders, everyone, { per_page: 100 }).orders;
  for (let i = 1; i < rows.length; i++) {
    const a = Date.parse(rows[i - 1]!.created_at);
    const b = Date.parse(rows[i]!.created_at);
    expect(a > b || (a === b && rows[i - 1]!.id > rows[i]!.id)).toBe(true);
  }
});

test('number sorts numerically inside the prefix and status along the life cycle', () => {
  const numbers = listOrders(orders, listActors.staffOf(11, 12), { sort_by: 'number', per_page: 3 }).orders.map(
    (o) => o.number,
  );
  expect(numbers).toEqual(['PP-5001', 'PP-5002', 'PP-5003']);
  const statuses = listOrders(orders, everyone, { sort_by: '-status', per_page: 100 }).orders.map((o) => o.status);
  expect(new Set(statuses)).toEqual(new Set(['cancelled']));
  const ascending = listOrders(orders, everyone, { sort_by: 'status', per_page: 100 }).orders.map((o) => o.status);
  expect(new Set(ascending)).toEqual(new Set(['pending']));
});
