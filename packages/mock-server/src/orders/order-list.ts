import type { components, operations } from '@restoapi/openapi';
import type { OrderRecord } from '../state/mock-state.js';
import type { Table } from '../state/table.js';
import {
  NUMBER_COLLATOR,
  OrderIndex,
  STATUS_RANK,
  timeOf,
  type OrderFilters,
  type OrderSortField,
} from '../model/order-index.js';
import { orderScope } from '../model/access.js';
import type { Actor } from '../session/actor.js';

/** The query of `GET /api/orders` after validation (defaults may already be applied). */
export type OrderListQuery = NonNullable<operations['listOrders']['parameters']['query']>;
/** A `sort_by` value: a key, optionally prefixed by `-` for descending. */
export type OrderSortBy = NonNullable<OrderListQuery['sort_by']>;
/** `meta` of the order list (Limits 3). */
export type OrderListMeta = components['schemas']['OrderListMeta'];

/** The decided defaults: page 1, 25 per page, newest first. */
export const ORDER_LIST_DEFAULTS = { page: 1, per_page: 25, sort_by: '-created_at' } as const;

type SortKey = number | string;

/** A parsed timestamp, remembered with the text it was parsed from. */
interface Instant {
  text: string | null | undefined;
  ms: number;
}

// Parsing an ISO timestamp costs more than everything else in a comparison, and a list request keys
// every matching order. The instant is remembered per order and field, and reused only while the stored
// text is the same (times are assigned in place, so the text itself is the validity check).
const CREATED_AT = new WeakMap<OrderRecord, Instant>();
const DELIVERY_AT = new WeakMap<OrderRecord, Instant>();

function cachedTime(cache: WeakMap<OrderRecord, Instant>, order: OrderRecord, text: string | null | undefined): number {
  const hit = cache.get(order);
  if (hit !== undefined && hit.text === text) return hit.ms;
  const ms = timeOf(text);
  cache.set(order, { text, ms });
  return ms;
}

function sortKey(field: string): (order: OrderRecord) => SortKey {
  switch (field) {
    case 'created_at':
      return (order) => cachedTime(CREATED_AT, order, order.created_at);
    case 'delivery_at':
      return (order) => cachedTime(DELIVERY_AT, order, order.delivery_at);
    case 'number':
      return (order) => order.number;
    case 'status':
      return (order) => STATUS_RANK[order.status] ?? Number.MAX_SAFE_INTEGER;
    default:
      return (order) => order.id;
  }
}

function compareKeys(a: SortKey, b: SortKey): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0;
  return NUMBER_COLLATOR.compare(String(a), String(b));
}

/** One page of orders and its `meta`. */
export interface OrderPage {
  orders: OrderRecord[];
  meta: OrderListMeta;
}

/** Something that can be filtered in one pass, such as a state `Table`. */
export interface Filterable<T> {
  filter(predicate: (row: T) => boolean): T[];
}

/** Orders to list: filterable, and with the restaurant index of a state `Table` when there is one. */
export interface OrderSource extends Filterable<OrderRecord> {
  /** `filter` over the orders of some restaurants only (`Table.filterWhere`). */
  filterWhere?(
    column: 'restaurant_id',
    values: Iterable<number>,
    predicate: (order: OrderRecord) => boolean,
  ): OrderRecord[];
}

/**
 * Filters, sorts and pages orders as `GET /api/orders` documents it. One pass keeps the orders the caller
 * may see (`visible`) that match every filter given (within a filter, any of its values); a
 * `restaurant_id` filter reads only those restaurants' orders through the table's index. Keys are computed
 * once per match; ties are broken by id in the same direction, so the order is total and the page is
 * exactly the slice a full sort would give. Only the first `page × per_page` matches are put in order
 * (a bounded heap), not all of them. `meta.count` counts the matches on all pages and
 * `page_count = ceil(count / per_page)`, 0 when none.
 */
export function listOrderPage(
  orders: OrderSource,
  visible: (order: OrderRecord) => boolean,
  query: OrderListQuery,
): OrderPage {
  const page = query.page ?? ORDER_LIST_DEFAULTS.page;
  const perPage = query.per_page ?? ORDER_LIST_DEFAULTS.per_page;
  const sortBy = query.sort_by ?? ORDER_LIST_DEFAULTS.sort_by;
  const restaurants = toSet(query.restaurant_id);
  const couriers = toSet(query.courier_id);
  const clients = toSet(query.client_id);
  const statuses = toSet(query.status);

  // The cheap filters first, the caller's scope check (a call per order) last; all are pure, so the order
  // of the checks changes nothing but the time.
  const matchesRest = (order: OrderRecord): boolean =>
    (!statuses || statuses.has(order.status)) &&
    (!couriers || (order.courier_id !== null && couriers.has(order.courier_id))) &&
    (!clients || clients.has(order.client_id)) &&
    visible(order);
  const matches =
    restaurants && orders.filterWhere
      ? orders.filterWhere('restaurant_id', restaurants, matchesRest)
      : orders.filter((order) => (!restaurants || restaurants.has(order.restaurant_id)) && matchesRest(order));

  const descending = sortBy.startsWith('-');
  const field = descending ? sortBy.slice(1) : sortBy;
  const key = sortKey(field);
  const direction = descending ? -1 : 1;
  // Keys computed once per match, compared by index: no object per match, and plain number comparisons
  // for every key but the order number.
  const keys = matches.map(key);
  const compare =
    field === 'number'
      ? (a: number, b: number): number =>
          direction * (compareKeys(keys[a]!, keys[b]!) || matches[a]!.id - matches[b]!.id)
      : (a: number, b: number): number => {
          const x = keys[a]!;
          const y = keys[b]!;
          return direction * (x < y ? -1 : x > y ? 1 : matches[a]!.id - matches[b]!.id);
        };

  const count = matches.length;
  const start = (page - 1) * perPage;
  const end = Math.min(start + perPage, count);
  return {
    orders:
      start >= count
        ? []
        : firstInOrder(count, compare, end)
            .slice(start, end)
            .map((index) => matches[index]!),
    meta: { page, page_count: count === 0 ? 0 : Math.ceil(count / perPage), per_page: perPage, count },
  };
}

/** Builds the orders table's list index (one per table, on the first list). */
const buildOrderIndex = (rows: Iterable<OrderRecord>): OrderIndex => new OrderIndex(rows);

/**
 * `GET /api/orders` through the orders table's {@link OrderIndex}: the same page and `meta` as
 * {@link listOrderPage} with `seesOrder` as the visibility, at a cost that does not grow with the table
 * (the caller's scope is folded into the filters, see `orderScope`).
 */
export function listOrders(orders: Table<OrderRecord>, actor: Actor, query: OrderListQuery): OrderPage {
  const page = query.page ?? ORDER_LIST_DEFAULTS.page;
  const perPage = query.per_page ?? ORDER_LIST_DEFAULTS.per_page;
  const sortBy = query.sort_by ?? ORDER_LIST_DEFAULTS.sort_by;
  const descending = sortBy.startsWith('-');
  const field = (descending ? sortBy.slice(1) : sortBy) as OrderSortField;
  const scope = orderScope(actor);
  const filters: OrderFilters = {
    restaurants: intersect(toSet(query.restaurant_id), scope.restaurants),
    statuses: toSet(query.status),
    couriers: intersect(toSet(query.courier_id), scope.couriers),
    clients: toSet(query.client_id),
  };
  const index = orders.indexedBy(buildOrderIndex);
  const start = (page - 1) * perPage;
  let found = index.page(filters, field, descending, start, perPage);
  if (index.refresh(found.rows)) found = index.page(filters, field, descending, start, perPage);
  const { count } = found;
  return {
    orders: found.rows,
    meta: { page, page_count: count === 0 ? 0 : Math.ceil(count / perPage), per_page: perPage, count },
  };
}

function intersect<T>(asked: Set<T> | undefined, allowed: ReadonlySet<T> | undefined): ReadonlySet<T> | undefined {
  if (asked === undefined) return allowed;
  if (allowed === undefined) return asked;
  return new Set([...asked].filter((value) => allowed.has(value)));
}

/**
 * The indexes of the first `limit` of `count` items by `compare`, in order. A full sort when most of them
 * are wanted; otherwise a max-heap of the best `limit` so far (its worst on top), which rejects most items
 * with a single comparison: O(n log limit) instead of O(n log n). `compare` is a total order, so both give
 * the same items in the same order.
 */
function firstInOrder(count: number, compare: (a: number, b: number) => number, limit: number): number[] {
  if (limit * 4 >= count) return Array.from({ length: count }, (_, index) => index).sort(compare);
  const heap: number[] = [];
  for (let index = 0; index < count; index += 1) {
    if (heap.length < limit) {
      heap.push(index);
      siftUp(heap, heap.length - 1, compare);
    } else if (compare(index, heap[0]!) < 0) {
      heap[0] = index;
      siftDown(heap, 0, compare);
    }
  }
  return heap.sort(compare);
}

function siftUp(heap: number[], at: number, compare: (a: number, b: number) => number): void {
  const item = heap[at]!;
  while (at > 0) {
    const parent = (at - 1) >> 1;
    if (compare(heap[parent]!, item) >= 0) break;
    heap[at] = heap[parent]!;
    at = parent;
  }
  heap[at] = item;
}

function siftDown(heap: number[], at: number, compare: (a: number, b: number) => number): void {
  const item = heap[at]!;
  const size = heap.length;
  for (;;) {
    let child = 2 * at + 1;
    if (child >= size) break;
    if (child + 1 < size && compare(heap[child + 1]!, heap[child]!) > 0) child += 1;
    if (compare(heap[child]!, item) <= 0) break;
    heap[at] = heap[child]!;
    at = child;
  }
  heap[at] = item;
}

// An empty array means "no filter": a repeated key with no values cannot be sent, so [] only arises in code.
function toSet<T>(values: readonly T[] | undefined): Set<T> | undefined {
  return values && values.length > 0 ? new Set(values) : undefined;
}
