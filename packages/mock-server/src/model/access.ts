import type { components } from '@restoapi/openapi';
import { seesOrganization, seesRestaurant, type Actor } from '../session/actor.js';
import type { OrderRecord } from '../state/mock-state.js';
import type { Table, WithId } from '../state/table.js';

type Courier = components['schemas']['Courier'];

/**
 * Whether the account may see an order: a dispatcher every order, a staff member the orders of the
 * restaurants it handles, a courier only the orders assigned to it (Authentication 5).
 */
export function seesOrder(actor: Actor, order: OrderRecord): boolean {
  if (actor.type === 'dispatcher') return true;
  if (actor.type === 'courier') return order.courier_id !== null && order.courier_id === actor.courierId;
  return seesRestaurant(actor, order.restaurant_id);
}

/**
 * {@link seesOrder} as list filters, for the order index: the restaurants a staff member handles, the
 * courier's own id; a dispatcher has none. The two must agree (test/orders/order-index.test.ts checks it).
 */
export function orderScope(actor: Actor): { restaurants?: ReadonlySet<number>; couriers?: ReadonlySet<number> } {
  if (actor.type === 'dispatcher') return {};
  if (actor.type === 'courier') return { couriers: new Set(actor.courierId === undefined ? [] : [actor.courierId]) };
  return actor.restaurantIds === 'all' ? {} : { restaurants: actor.restaurantIds };
}

/**
 * Whether the account may see a courier: a dispatcher every courier, a staff
 * member the couriers of its organization, a courier only its own record.
 */
export function seesCourier(actor: Actor, courier: Courier): boolean {
  if (actor.type === 'courier') return actor.courierId === courier.id;
  return seesOrganization(actor, courier.organization_id);
}

/** `GET /api/couriers` and `GET /api/couriers/{id}`: read-only, as decided. */

/**
 * The rows of an organization-owned table that the account sees, of one organization when `organizationId`
 * is given: through the table's `organization_id` index, so a list costs what it answers, not the table
 * size. A dispatcher without a filter sees (and is answered) every row.
 */
export function organizationRows<T extends WithId & { organization_id: number }>(
  table: Table<T>,
  actor: Actor,
  organizationId: number | undefined,
): T[] {
  const column = 'organization_id' as const;
  if (organizationId !== undefined) {
    return seesOrganization(actor, organizationId) ? table.where(column, organizationId as T[typeof column]) : [];
  }
  if (actor.organizationIds === 'all') return table.all();
  return table.filterWhere(column, actor.organizationIds as ReadonlySet<T[typeof column]>, () => true);
}
