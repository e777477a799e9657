import { expect, test } from 'vitest';
import { listActors, seedWithOrders } from '../../test/orders/order-fixtures.js';
import { seesOrder } from '../model/access.js';
import type { Actor } from '../session/actor.js';
import type { OrderRecord } from '../state/mock-state.js';
import { Table } from '../state/table.js';
import { listOrders, type OrderListQuery, type OrderSortBy } from './order-list.js';

const RANK: Record<string, number> = {
  pending: 0,
  accepted: 1,
  cooking: 2,
  ready: 3,
  delivery: 4,
  complete: 5,
  cancelled: 6,
};
const COLLATOR = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/** The list as it was first written: filter everything, sort all matches (parsing times each time), slice. */
function reference(rows: OrderRecord[], actor: Actor, query: OrderListQuery): { ids: number[]; count: number } {
  const sortBy = query.sort_by ?? '-created_at';
  const descending = sortBy.startsWith('-');
  const field = descending ? sortBy.slice(1) : sortBy;
  const time = (v: string | null | undefined): number => {
    const ms = v ? Date.parse(v) : Number.NaN;
    return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
  };
  const key = (o: OrderRecord): number | string =>
    field === 'created_at'
      ? time(o.created_at)
      : field === 'delivery_at'
        ? time(o.delivery_at)
        : field === 'number'
          ? o.number
          : field === 'status'
            ? (RANK[o.status] ?? Number.MAX_SAFE_INTEGER)
            : o.id;
  const compare = (a: number | string, b: number | string): number =>
    typeof a === 'number' && typeof b === 'number'
      ? a < b
        ? -1
        : a > b
          ? 1
          : 0
      : COLLATOR.compare(String(a), String(b));
  const matches = rows.filter(
    (o) =>
      seesOrder(actor, o) &&
      (!query.restaurant_id?.length || query.restaurant_id.includes(o.restaurant_id)) &&
      (!query.courier_id?.length || (o.courier_id !== null && query.courier_id.includes(o.courier_id))) &&
      (!query.client_id?.length || query.client_id.includes(o.client_id)) &&
      (!query.status?.length || query.status.includes(o.status)),
  );
  const sorted = matches.sort((a, b) => (descending ? -1 : 1) * (compare(key(a), key(b)) || a.id - b.id));
  const page = query.page ?? 1;
  const perPage = query.per_page ?? 25;
  return { ids: sorted.slice((page - 1) * perPage, page * perPage).map((o) => o.id), count: matches.length };
}

const SORTS: OrderSortBy[] = [
  'created_at',
  '-created_at',
  'delivery_at',
  '-delivery_at',
  'number',
  '-number',
  'status',
  '-status',
  'id',
  '-id',
] as OrderSortBy[];

function check(table: Table<OrderRecord>, actor: Actor, query: OrderListQuery): void {
  const expected = reference(table.all(), actor, query);
  const label = JSON.stringify(query);
  const page = listOrders(table, actor, query);
  expect(
    page.orders.map((o) => o.id),
    label,
  ).toEqual(expected.ids);
  expect(page.meta.count, label).toBe(expected.count);
}

test('every sort, direction and page (bounded selection or full sort) gives the rows of a full sort', () => {
  const table = new Table(seedWithOrders(3000).orders!.rows as OrderRecord[]);
  const everyone = listActors.dispatcher;
  for (const sort_by of SORTS) {
    for (const [page, per_page] of [
      [1, 25],
      [1, 1],
      [3, 50],
      [7, 100],
      [1, 100],
      [30, 100],
      [200, 25],
    ] as const) {
      check(table, everyone, { sort_by, page, per_page });
      check(table, everyone, { sort_by, page, per_page, restaurant_id: [11, 12], status: ['pending', 'delivery'] });
    }
  }
  // Scope and the other filters, with and without restaurants.
  const staffOf11 = listActors.staffOf(11, 21);
  check(table, staffOf11, { sort_by: '-delivery_at', per_page: 10, restaurant_id: [11, 12, 21] });
  check(table, everyone, { sort_by: 'number', per_page: 10, courier_id: [501], client_id: [7001] });
  check(table, everyone, { per_page: 10, restaurant_id: [424242] });
});

test('times changed in place are sorted by their new value (the parsed instants follow the text)', () => {
  const table = new Table(seedWithOrders(500).orders!.rows as OrderRecord[]);
  const query: OrderListQuery = { sort_by: '-delivery_at', per_page: 20 };
  check(table, listActors.dispatcher, query);
  const rows = table.all();
  // Move some orders far into the future, one into an unparseable value, one to another offset.
  rows[10]!.delivery_at = '2030-01-01T00:00:00+01:00';
  rows[20]!.delivery_at = '2030-01-01T00:00:00Z';
  rows[30]!.delivery_at = 'not a time';
  rows[40]!.created_at = '1999-12-31T23:59:59.999Z';
  // The write paths store a record changed in place again, which files it under its new values.
  for (const at of [10, 20, 30, 40]) table.put(rows[at]!);
  check(table, listActors.dispatcher, query);
  check(table, listActors.dispatcher, { sort_by: 'delivery_at', per_page: 5 });
  check(table, listActors.dispatcher, { sort_by: 'created_at', per_page: 5 });
  expect(
    listOrders(table, listActors.dispatcher, query)
      .orders.slice(0, 2)
      .map((o) => o.id),
  ).toEqual([rows[20]!.id, rows[10]!.id]);
});

test('an order moved to another restaurant with put is listed under its new restaurant only', () => {
  const table = new Table(seedWithOrders(200).orders!.rows as OrderRecord[]);
  const query: OrderListQuery = { restaurant_id: [22], per_page: 100, sort_by: 'id' };
  check(table, listActors.dispatcher, query);
  const moved = { ...table.all().find((o) => o.restaurant_id === 11)!, restaurant_id: 22 };
  table.put(moved);
  check(table, listActors.dispatcher, query);
  check(table, listActors.dispatcher, { ...query, restaurant_id: [11] });
  expect(listOrders(table, listActors.dispatcher, query).orders.map((o) => o.id)).toContain(moved.id);
});
