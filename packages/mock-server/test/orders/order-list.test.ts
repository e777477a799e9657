import { expect, test } from 'vitest';
import { ANNA, DORA, KENJI, MAX, as, demoMock } from '../support/catalog-client.js';
import { seedWithOrders } from './order-fixtures.js';

type Row = {
  id: number;
  number: string;
  status: string;
  created_at: string;
  delivery_at: string;
  restaurant_id: number;
  courier_id: number | null;
  client_id: number;
};
const ids = (rows: Row[]) => rows.map((o) => o.id);

test('a courier lists only the orders assigned to it and gets 404 for any other', async () => {
  const mock = demoMock();
  const max = await as(mock, MAX);
  const list = await max('GET', '/api/orders');
  expect(list.status).toBe(200);
  expect(ids(list.body.orders).sort()).toEqual([5001, 5004]);
  expect(list.body.meta).toEqual({ page: 1, page_count: 1, per_page: 25, count: 2 });
  expect((await max('GET', '/api/orders/5001')).status).toBe(200);
  expect((await max('GET', '/api/orders/5003')).status).toBe(404); // delivered by Lena Weber
  expect((await max('GET', '/orders/5002')).status).toBe(404); // the /orders alias, unassigned order
  // Filters only narrow the courier's own set.
  expect((await max('GET', '/api/orders?courier_id=502')).body).toMatchObject({
    orders: [],
    meta: { count: 0, page_count: 0 },
  });
  expect((await max('GET', '/api/orders?restaurant_id=11&restaurant_id=12')).body.meta.count).toBe(2);
});

test('a staff member of organization 2 never sees organization 1 orders, whatever the filters', async () => {
  const mock = demoMock({}, seedWithOrders(200));
  const kenji = await as(mock, KENJI);
  const all = await kenji('GET', '/api/orders?per_page=100');
  expect(all.body.meta.count).toBe(101); // order 5005 and the 100 generated orders of restaurants 21 and 22
  expect(all.body.orders.every((o: Row) => o.restaurant_id === 21 || o.restaurant_id === 22)).toBe(true);
  for (const filter of [
    'restaurant_id=11',
    'courier_id=501',
    'client_id=7001',
    'restaurant_id=11&restaurant_id=21&status=pending',
  ]) {
    const res = await kenji('GET', `/api/orders?${filter}&per_page=100`);
    expect(res.status).toBe(200);
    expect(
      res.body.orders.every((o: Row) => o.restaurant_id >= 21),
      filter,
    ).toBe(true);
  }
  expect((await kenji('GET', '/api/orders?restaurant_id=11')).body.meta).toEqual({
    page: 1,
    page_count: 0,
    per_page: 25,
    count: 0,
  });
  for (const path of [
    '/api/orders/5001',
    '/api/orders/5001/items',
    '/api/orders/5001/buddies',
    '/api/orders/5001/receipt.html',
  ]) {
    expect((await kenji('GET', path)).status, path).toBe(404);
  }
});

test('pages are consistent: meta.count is the total, page_count = ceil(count / per_page), past the end is empty', async () => {
  const mock = demoMock({}, seedWithOrders(120));
  const dora = await as(mock, DORA);
  const seen = new Set<number>();
  let pageCount = 0;
  for (let page = 1; ; page++) {
    const res = await dora('GET', `/api/orders?per_page=20&page=${page}&sort_by=id`);
    expect(res.body.meta).toMatchObject({ page, per_page: 20, count: 126, page_count: 7 });
    pageCount = res.body.meta.page_count;
    if (res.body.orders.length === 0) break;
    for (const id of ids(res.body.orders)) seen.add(id);
  }
  expect(pageCount).toBe(7);
  expect(seen.size).toBe(126);
  const last = await dora('GET', '/api/orders?per_page=20&page=7');
  expect(last.body.orders).toHaveLength(6);
  expect((await dora('GET', '/api/orders')).body.meta).toEqual({ page: 1, page_count: 6, per_page: 25, count: 126 });
});

test('per_page outside 1..100 and page below 1 are 400 with the parameter named', async () => {
  const dora = await as(demoMock(), DORA);
  for (const [query, parameter] of [
    ['per_page=101', 'per_page'],
    ['per_page=0', 'per_page'],
    ['page=0', 'page'],
    ['sort_by=price', 'sort_by'],
    ['status=lost', 'status'],
  ]) {
    const res = await dora('GET', `/api/orders?${query}`);
    expect(res.status, query).toBe(400);
    expect(res.body.errors[0]).toMatchObject({ code: 'invalid_parameter', source: { parameter } });
  }
});

test('each filter keeps the matching orders; repeated keys match any of their values', async () => {
  const mock = demoMock({}, seedWithOrders(60));
  const dora = await as(mock, DORA);
  const list = async (query: string): Promise<Row[]> =>
    (await dora('GET', `/api/orders?per_page=100&${query}`)).body.orders;
  const byRestaurant = await list('restaurant_id=11&restaurant_id=22');
  expect(byRestaurant.length).toBeGreaterThan(0);
  expect(new Set(byRestaurant.map((o) => o.restaurant_id))).toEqual(new Set([11, 22]));
  const byCourier = await list('courier_id=502&courier_id=601');
  expect(new Set(byCourier.map((o) => o.courier_id))).toEqual(new Set([502, 601]));
  const byClient = await list('client_id=7002');
  expect(byClient.length).toBeGreaterThan(0);
  expect(byClient.every((o) => o.client_id === 7002)).toBe(true);
  const byStatus = await list('status=ready&status=delivery');
  expect(new Set(byStatus.map((o) => o.status))).toEqual(new Set(['ready', 'delivery']));
  const combined = await list('restaurant_id=12&status=pending&client_id=7002');
  expect(combined.every((o) => o.restaurant_id === 12 && o.status === 'pending' && o.client_id === 7002)).toBe(true);
  expect(combined.map((o) => o.id)).toContain(5002);
});

test('each sort key works ascending and with a - prefix descending', async () => {
  const mock = demoMock({}, seedWithOrders(40));
  const dora = await as(mock, DORA);
  const list = async (sortBy: string): Promise<Row[]> =>
    (await dora('GET', `/api/orders?per_page=100&sort_by=${sortBy}`)).body.orders;
  const time = (value: string) => Date.parse(value);
  const rank = ['pending', 'accepted', 'cooking', 'ready', 'delivery', 'complete', 'cancelled'];
  const keys: Record<string, (o: Row) => number | string> = {
    id: (o) => o.id,
    created_at: (o) => time(o.created_at),
    delivery_at: (o) => time(o.delivery_at),
    status: (o) => rank.indexOf(o.status),
    number: (o) => o.number,
  };
  const collator = new Intl.Collator('en', { numeric: true });
  const compare = (a: number | string, b: number | string) =>
    typeof a === 'number' && typeof b === 'number' ? a - b : collator.compare(String(a), String(b));
  for (const [field, key] of Object.entries(keys)) {
    const up = await list(field);
    const down = await list(`-${field}`);
    expect(up).toHaveLength(46);
    for (let i = 1; i < up.length; i++) {
      expect(compare(key(up[i - 1]!), key(up[i]!)), `${field} ascending at ${i}`).toBeLessThanOrEqual(0);
      expect(compare(key(down[i - 1]!), key(down[i]!)), `${field} descending at ${i}`).toBeGreaterThanOrEqual(0);
    }
  }
  // Without sort_by the newest order comes first.
  const newest = await list('-created_at');
  expect(ids((await dora('GET', '/api/orders?per_page=100')).body.orders)).toEqual(ids(newest));
});

test('a staff member lists the orders of its restaurants as public orders, without private fields', async () => {
  const anna = await as(demoMock(), ANNA);
  const res = await anna('GET', '/api/orders?sort_by=id');
  expect(ids(res.body.orders)).toEqual([5001, 5002, 5003, 5004, 5006]);
  const order = res.body.orders[0];
  for (const field of [
    'organization_id',
    'secure_id',
    'external_id',
    'delivery',
    'takeaway',
    'status_changed_at',
    'delivery_zone_id',
  ]) {
    expect(order, field).not.toHaveProperty(field);
  }
  expect(order.links).toEqual({ buddies: '/api/orders/5001/buddies', items: '/api/orders/5001/items' });
});

test('listing 10,000 orders through the whole engine filters, sorts and pages them', async () => {
  const mock = demoMock({}, seedWithOrders(10_000));
  const dora = await as(mock, DORA);
  await dora('GET', '/api/orders?per_page=100'); // compiles the response schema once
  // Speed is measured by `npm run bench -w @restoapi/mock-server`, not asserted here.
  const res = await dora('GET', '/api/orders?per_page=100&page=20&status=pending&status=cooking&sort_by=-delivery_at');
  expect(res.status).toBe(200);
  expect(res.body.meta.count).toBeGreaterThan(2800);
  expect(res.body.meta.page_count).toBe(Math.ceil(res.body.meta.count / 100));
  const times = res.body.orders.map((o: { delivery_at: string }) => Date.parse(o.delivery_at));
  expect(times).toEqual([...times].sort((a: number, b: number) => b - a));
  expect(new Set(res.body.orders.map((o: { status: string }) => o.status))).toEqual(new Set(['pending', 'cooking']));
});
