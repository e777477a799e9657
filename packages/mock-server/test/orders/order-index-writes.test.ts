import fc from 'fast-check';
import { expect, test } from 'vitest';
import { sampledRuns } from '../../../../scripts/testing/test-mode.js';
import type { MockEngine } from '@restoapi/mock-server';
import type { OrderRecord } from '../../src/state/mock-state.js';
import { ANNA, DORA, MAX, call, login } from '../support/catalog-client.js';
import { FRIDAY_EVENING, margheritaOrder, storefrontMock } from '../support/storefront.js';
import { seedWithOrders } from './order-fixtures.js';

const STATUSES = ['pending', 'accepted', 'cooking', 'ready', 'delivery', 'complete', 'cancelled'] as const;
const RANK = Object.fromEntries(STATUSES.map((status, rank) => [status, rank]));
const COLLATOR = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
const SORTS = ['created_at', 'delivery_at', 'id', 'number', 'status'].flatMap((key) => [key, `-${key}`]);
const USERS = [DORA, ANNA, MAX];

const some = <T>(values: readonly T[]) =>
  fc.option(fc.uniqueArray(fc.constantFrom(...values), { minLength: 1, maxLength: 2 }), { nil: undefined });
const listQuery = fc.record({
  page: fc.integer({ min: 1, max: 3 }),
  per_page: fc.integer({ min: 1, max: 20 }),
  sort_by: fc.constantFrom(...SORTS),
  restaurant_id: some([11, 12, 21]),
  status: some(STATUSES),
  courier_id: some([501, 502, 601]),
  client_id: some([7001, 7002, 7003]),
});

/** Every write path that files an order: handlers, storefront, import, status changes, state replacement. */
const step = fc.oneof(
  {
    arbitrary: fc.record({ op: fc.constant('list' as const), user: fc.constantFrom(...USERS), query: listQuery }),
    weight: 4,
  },
  fc.record({
    op: fc.constant('edit' as const),
    at: fc.nat(),
    courier: fc.constantFrom(0, 1, null),
    hours: fc.integer({ min: -48, max: 48 }),
  }),
  fc.record({ op: fc.constant('status' as const), at: fc.nat(), cancel: fc.boolean() }),
  fc.record({ op: fc.constant('storefront' as const) }),
  fc.record({ op: fc.constant('import' as const), n: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ op: fc.constant('replaceState' as const) }),
);

function query(q: Record<string, unknown>): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(q)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) params.append(key, String(one));
  }
  return params.toString();
}

type ListQuery = typeof listQuery extends fc.Arbitrary<infer Q> ? Q : never;

/** The naive answer over the whole state read through the control API. */
async function naive(mock: MockEngine, user: string, q: ListQuery) {
  const state = (await call(mock, 'GET', '/__mock/state')).body;
  const orders = state.orders.rows as OrderRecord[];
  const account = state.apiUsers.rows.find((u: { login: string }) => u.login === user).account;
  const org1 = new Set(state.restaurants.rows.filter((r: { organization_id: number }) => r.organization_id === 1));
  const restaurantsOfOrg1 = new Set([...org1].map((r) => (r as { id: number }).id));
  const sees = (o: OrderRecord) =>
    account.type === 'dispatcher' ||
    (account.type === 'courier' ? o.courier_id === account.id : restaurantsOfOrg1.has(o.restaurant_id));
  const field = q.sort_by.replace(/^-/, '');
  const direction = q.sort_by.startsWith('-') ? -1 : 1;
  const time = (text: string | null) => (text && !Number.isNaN(Date.parse(text)) ? Date.parse(text) : -Infinity);
  const key = (o: OrderRecord): number | string =>
    field === 'number'
      ? o.number
      : field === 'status'
        ? RANK[o.status]!
        : field === 'id'
          ? o.id
          : time(o[field as 'created_at']);
  const matches = orders.filter(
    (o) =>
      sees(o) &&
      (!q.restaurant_id || q.restaurant_id.includes(o.restaurant_id)) &&
      (!q.status || q.status.includes(o.status)) &&
      (!q.courier_id || (o.courier_id !== null && q.courier_id.includes(o.courier_id))) &&
      (!q.client_id || q.client_id.includes(o.client_id)),
  );
  matches.sort((a, b) => {
    const [x, y] = [key(a), key(b)];
    const byKey =
      typeof x === 'string' || typeof y === 'string'
        ? COLLATOR.compare(String(x), String(y))
        : x < y
          ? -1
          : x > y
            ? 1
            : 0;
    return direction * (byKey || a.id - b.id);
  });
  const start = (q.page - 1) * q.per_page;
  return { ids: matches.slice(start, start + q.per_page).map((o) => o.id), count: matches.length };
}

test('GET /api/orders answers as a naive filter and sort after any sequence of writes over HTTP', async () => {
  let imported = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(step, { minLength: 10, maxLength: 30 }), async (steps) => {
      const { mock } = await storefrontMock(FRIDAY_EVENING, { state: seedWithOrders(120) });
      const tokens = Object.fromEntries(await Promise.all(USERS.map(async (u) => [u, await login(mock, u)])));
      const ids = () => mock.runtime.state.orders.all().map((o) => o.id);
      for (const s of steps) {
        if (s.op === 'list') {
          const res = await call(mock, 'GET', `/api/orders?${query(s.query)}`, { token: tokens[s.user] });
          expect(res.status).toBe(200);
          const expected = await naive(mock, s.user, s.query);
          expect(res.body.orders.map((o: { id: number }) => o.id)).toEqual(expected.ids);
          expect(res.body.meta.count).toBe(expected.count);
        } else if (s.op === 'edit') {
          const id = ids()[s.at % ids().length]!;
          const deliveryAt = new Date(Date.parse(FRIDAY_EVENING) + s.hours * 3_600_000).toISOString();
          // A courier of the order's own organization (Pizza Piccolo: 501, 502; Sushi Sun: 601), or none.
          const organization = mock.runtime.state.orders.get(id)!.organization_id;
          const courier = s.courier === null ? null : organization === 1 ? [501, 502][s.courier]! : 601;
          const order = { delivery_at: deliveryAt, courier_id: courier };
          const res = await call(mock, 'PUT', `/api/orders/${id}`, { token: tokens[DORA], json: { order } });
          expect(res.status, JSON.stringify(res.body)).toBe(200);
        } else if (s.op === 'status') {
          const id = ids()[s.at % ids().length]!;
          // One step forward along the life cycle (or cancel), which a dispatcher may make.
          const current = mock.runtime.state.orders.get(id)!.status;
          const status = s.cancel ? 'cancelled' : STATUSES[Math.min(RANK[current]! + 1, 5)];
          const res = await call(mock, 'PUT', `/api/orders/${id}/status?status=${status}`, { token: tokens[DORA] });
          // A final status moves no more (409, or 200 when asked for itself); every other step is made.
          const final = current === 'complete' || current === 'cancelled';
          expect(res.status, JSON.stringify(res.body)).toBe(final && status !== current ? 409 : 200);
        } else if (s.op === 'storefront') {
          expect((await call(mock, 'POST', '/__mock/orders', { json: margheritaOrder() })).status).toBe(201);
        } else if (s.op === 'import') {
          const orders = Array.from({ length: s.n }, () => ({
            external_id: `prop-${(imported += 1)}`,
            status: STATUSES[imported % STATUSES.length],
            city: 'Berlin',
            address: 'Wiener Straße 18',
            latitude: 52.4975,
            longitude: 13.431,
            contact_name: 'Jonas Becker',
            contact_phone: '+49 170 1112233',
            payment_source: 'cash',
            total: 17.5,
            buddies: [{ items: [{ name: 'Margherita', amount: 1, price: 15 }] }],
          }));
          const res = await call(mock, 'POST', '/api/organizations/1/import/orders', {
            token: tokens[ANNA],
            json: { orders },
          });
          expect(res.status).toBe(200);
        } else {
          // The whole state replaced by itself: a new table, and so a new index, under the same tokens.
          const state = (await call(mock, 'GET', '/__mock/state')).body;
          expect((await call(mock, 'PUT', '/__mock/state', { json: state })).status).toBe(204);
        }
      }
      mock.close();
    }),
    { numRuns: sampledRuns(5, 20), seed: 1717 },
  );
}, 120_000);
