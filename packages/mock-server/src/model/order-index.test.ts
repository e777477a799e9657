import fc from 'fast-check';
import { expect, test } from 'vitest';
import { listActors, seedWithOrders } from '../../test/orders/order-fixtures.js';
import { listOrders, type OrderListQuery, type OrderSortBy } from '../orders/order-list.js';
import type { Actor } from '../session/actor.js';
import type { OrderRecord } from '../state/mock-state.js';
import { Table } from '../state/table.js';
import { seesOrder } from './access.js';

const STATUSES = ['pending', 'accepted', 'cooking', 'ready', 'delivery', 'complete', 'cancelled'] as const;
const RANK = Object.fromEntries(STATUSES.map((status, rank) => [status, rank]));
const SORTS = ['created_at', 'delivery_at', 'id', 'number', 'status'].flatMap((key) => [key, `-${key}`]);
const COLLATOR = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });
const TEMPLATE = seedWithOrders(1).orders!.rows.at(-1) as OrderRecord;

/** Few values per column, so that filters, ties and bucket moves happen often. */
const TIMES = ['2026-11-20T18:00:00Z', '2026-11-20T19:00:00+01:00', '2026-11-20T17:30:00Z', 'not a time'];
const columns = fc.record({
  restaurant_id: fc.constantFrom(11, 12, 21),
  status: fc.constantFrom(...STATUSES),
  courier_id: fc.constantFrom(501, 502, null),
  client_id: fc.constantFrom(7001, 7002, 7003),
  created_at: fc.constantFrom(...TIMES),
  delivery_at: fc.constantFrom(...TIMES),
  number: fc.constantFrom('PP-9', 'PP-10', 'PP-100', 'SS-2'),
});

const ACTORS: Record<string, Actor> = {
  dispatcher: listActors.dispatcher,
  staffOf11And21: listActors.staffOf(11, 21),
  courier501: listActors.courier(501),
};

const some = <T>(values: readonly T[]) =>
  fc.option(fc.uniqueArray(fc.constantFrom(...values), { minLength: 1, maxLength: 3 }), { nil: undefined });
const query: fc.Arbitrary<OrderListQuery> = fc.record(
  {
    page: fc.integer({ min: 1, max: 4 }),
    per_page: fc.integer({ min: 1, max: 12 }),
    sort_by: fc.constantFrom(...(SORTS as OrderSortBy[])),
    restaurant_id: some([11, 12, 21, 99]),
    status: some(STATUSES),
    courier_id: some([501, 502]),
    client_id: some([7001, 7002, 7003]),
  },
  { requiredKeys: [] },
);

const write = fc.oneof(
  fc.record({ op: fc.constant('insert' as const), values: columns }),
  fc.record({ op: fc.constant('replace' as const), at: fc.nat(), values: columns }),
  fc.record({ op: fc.constant('inPlace' as const), at: fc.nat(), values: columns }),
  fc.record({ op: fc.constant('delete' as const), at: fc.nat() }),
);
const step = fc.oneof(
  write,
  fc.record({ op: fc.constant('list' as const), actor: fc.constantFrom(...Object.keys(ACTORS)), query }),
);

/** The naive answer: every row filtered, all of them sorted, then sliced. */
function naive(rows: OrderRecord[], actor: Actor, q: OrderListQuery): { ids: number[]; count: number } {
  const sortBy = q.sort_by ?? '-created_at';
  const direction = sortBy.startsWith('-') ? -1 : 1;
  const field = sortBy.replace(/^-/, '');
  const time = (text: string) => (text && !Number.isNaN(Date.parse(text)) ? Date.parse(text) : -Infinity);
  const compare = (a: OrderRecord, b: OrderRecord): number => {
    const byKey =
      field === 'number'
        ? COLLATOR.compare(a.number, b.number)
        : field === 'status'
          ? RANK[a.status]! - RANK[b.status]!
          : field === 'id'
            ? 0
            : Math.sign(time(a[field as 'created_at']) - time(b[field as 'created_at']) || 0);
    return direction * (byKey || a.id - b.id);
  };
  const matches = rows.filter(
    (o) =>
      seesOrder(actor, o) &&
      (!q.restaurant_id || q.restaurant_id.includes(o.restaurant_id)) &&
      (!q.status || q.status.includes(o.status)) &&
      (!q.courier_id || (o.courier_id !== null && q.courier_id.includes(o.courier_id))) &&
      (!q.client_id || q.client_id.includes(o.client_id)),
  );
  const perPage = q.per_page ?? 25;
  const start = ((q.page ?? 1) - 1) * perPage;
  const ids = matches
    .sort(compare)
    .slice(start, start + perPage)
    .map((o) => o.id);
  return { ids, count: matches.length };
}

test('indexed order lists equal a naive filter and sort after any sequence of writes', () => {
  fc.assert(
    fc.property(fc.array(columns, { maxLength: 30 }), fc.array(step, { maxLength: 60 }), (initial, steps) => {
      const table = new Table<OrderRecord>(initial.map((values, i) => ({ ...TEMPLATE, ...values, id: i + 1 })));
      const pick = (at: number) => {
        const rows = table.all();
        return rows.length === 0 ? undefined : rows[at % rows.length];
      };
      for (const s of steps) {
        if (s.op === 'insert') table.insert({ ...TEMPLATE, ...s.values });
        else if (s.op === 'replace') {
          const row = pick(s.at);
          if (row) table.put({ ...row, ...s.values });
        } else if (s.op === 'inPlace') {
          // What the handlers do: change the stored record, then store it again.
          const row = pick(s.at);
          if (row) table.put(Object.assign(row, s.values));
        } else if (s.op === 'delete') {
          const row = pick(s.at);
          if (row) table.delete(row.id);
        } else {
          const actor = ACTORS[s.actor]!;
          const got = listOrders(table, actor, s.query);
          const expected = naive(table.all(), actor, s.query);
          expect(got.orders.map((o) => o.id)).toEqual(expected.ids);
          expect(got.meta.count).toBe(expected.count);
        }
      }
    }),
    { numRuns: 300, seed: 17 },
  );
});

test('the scope of every account type lists exactly the orders it may see', () => {
  const table = new Table(seedWithOrders(700).orders!.rows as OrderRecord[]);
  for (const actor of Object.values(ACTORS)) {
    const page = listOrders(table, actor, { per_page: 100, page: 2, sort_by: 'delivery_at' });
    const expected = naive(table.all(), actor, { per_page: 100, page: 2, sort_by: 'delivery_at' });
    expect(page.orders.map((o) => o.id)).toEqual(expected.ids);
    expect(page.meta.count).toBe(expected.count);
  }
});

test('an order changed in place without being stored again is re-filed when a page shows it', () => {
  const table = new Table(seedWithOrders(50).orders!.rows as OrderRecord[]);
  const q: OrderListQuery = { sort_by: 'id', per_page: 100, status: ['pending'] };
  const first = listOrders(table, ACTORS.dispatcher!, q);
  const moved = first.orders[0]!;
  moved.status = 'cancelled';
  const second = listOrders(table, ACTORS.dispatcher!, q);
  expect(second.orders.map((o) => o.id)).not.toContain(moved.id);
  expect(second.meta.count).toBe(first.meta.count - 1);
});
