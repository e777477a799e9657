import type { components, operations } from '@restoapi/openapi';
import type { OrderRecord } from '../state/mock-state.js';
import type { Table } from '../state/table.js';
import { OrderIndex, type OrderFilters, type OrderSortField } from '../model/order-index.js';
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

/** One page of orders and its `meta`. */
export interface OrderPage {
  orders: OrderRecord[];
  meta: OrderListMeta;
}

/** Builds the orders table's list index (one per table, on the first list). */
const buildOrderIndex = (rows: Iterable<OrderRecord>): OrderIndex => new OrderIndex(rows);

/**
 * `GET /api/orders` through the orders table's {@link OrderIndex}: the orders the account may see
 * (`seesOrder`, folded into the filters by `orderScope`) that match every filter given (within a filter, any
 * of its values), sorted by `sort_by` with ties broken by id in the same direction, sliced to the page.
 * `meta.count` counts the matches on all pages and `page_count = ceil(count / per_page)`, 0 when none.
 * The cost does not grow with the table: see {@link OrderIndex}.
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

// An empty array means "no filter": a repeated key with no values cannot be sent, so [] only arises in code.
function toSet<T>(values: readonly T[] | undefined): Set<T> | undefined {
  return values && values.length > 0 ? new Set(values) : undefined;
}
