import type { components, operations } from '@restoapi/sdk';
import type { OrderRecord } from '../state/mock-state.js';

type OrderStatus = components['schemas']['OrderStatus'];
/** The query of `GET /api/orders` after validation (defaults may already be applied). */
export type OrderListQuery = NonNullable<operations['listOrders']['parameters']['query']>;
/** A `sort_by` value: a key, optionally prefixed by `-` for descending. */
export type OrderSortBy = NonNullable<OrderListQuery['sort_by']>;
/** `meta` of the order list (Limits 3). */
export type OrderListMeta = components['schemas']['OrderListMeta'];

/** The decided defaults: page 1, 25 per page, newest first. */
export const ORDER_LIST_DEFAULTS = { page: 1, per_page: 25, sort_by: '-created_at' } as const;

// `status` sorts along the life cycle rather than alphabetically: a dispatcher reads "pending" before
// "delivery", and the terminal statuses come last.
const STATUS_RANK: Record<OrderStatus, number> = {
  pending: 0,
  accepted: 1,
  cooking: 2,
  ready: 3,
  delivery: 4,
  complete: 5,
  cancelled: 6,
};

// Numeric collation so that PP-999 sorts before PP-1000.
const NUMBER_COLLATOR = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

type SortKey = number | string;

function sortKey(field: string): (order: OrderRecord) => SortKey {
  switch (field) {
    case 'created_at':
      return (order) => timeOf(order.created_at);
    case 'delivery_at':
      return (order) => timeOf(order.delivery_at);
    case 'number':
      return (order) => order.number;
    case 'status':
      return (order) => STATUS_RANK[order.status] ?? Number.MAX_SAFE_INTEGER;
    default:
      return (order) => order.id;
  }
}

// Timestamps carry offsets (`+01:00`), so they are compared as instants, never as strings.
function timeOf(value: string | null | undefined): number {
  const ms = value ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
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

/**
 * Filters, sorts and pages orders as `GET /api/orders` documents it. One pass keeps the orders the caller
 * may see (`visible`) that match every filter given (within a filter, any of its values); only that set is
 * sorted (keys computed once per order, ties broken by id in the same direction) and then sliced.
 * `meta.count` counts the matches on all pages and `page_count = ceil(count / per_page)`, 0 when none.
 */
export function listOrderPage(
  orders: Filterable<OrderRecord>,
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

  const matches = orders.filter(
    (order) =>
      visible(order) &&
      (!restaurants || restaurants.has(order.restaurant_id)) &&
      (!couriers || (order.courier_id !== null && couriers.has(order.courier_id))) &&
      (!clients || clients.has(order.client_id)) &&
      (!statuses || statuses.has(order.status)),
  );

  const descending = sortBy.startsWith('-');
  const key = sortKey(descending ? sortBy.slice(1) : sortBy);
  const direction = descending ? -1 : 1;
  const keyed = matches.map((order) => ({ order, key: key(order) }));
  keyed.sort((a, b) => direction * (compareKeys(a.key, b.key) || a.order.id - b.order.id));

  const count = keyed.length;
  const start = (page - 1) * perPage;
  return {
    orders: start >= count ? [] : keyed.slice(start, start + perPage).map((entry) => entry.order),
    meta: { page, page_count: count === 0 ? 0 : Math.ceil(count / perPage), per_page: perPage, count },
  };
}

// An empty array means "no filter": a repeated key with no values cannot be sent, so [] only arises in code.
function toSet<T>(values: readonly T[] | undefined): Set<T> | undefined {
  return values && values.length > 0 ? new Set(values) : undefined;
}
