import { openapiDocument } from '@restoapi/openapi';
import type { components } from '@restoapi/sdk';
import { notFound } from '../engine/http-error.js';
import type { MockRuntime } from '../engine/runtime.js';
import { seesRestaurant, type Actor } from '../session/actor.js';
import type { OrderRecord } from '../state/mock-state.js';
import { Money } from './money.js';

type S = components['schemas'];
/** An order as the API returns it. */
export type Order = S['Order'];
/** `GET /api/orders/{id}` and the answers of the order actions. */
export type OrderResponse = S['OrderResponse'];

/**
 * The public fields of an order, read from the document's `Order` schema so that a private field added
 * to `OrderRecord` (secure_id, external_id, …) can never leak into an answer.
 */
export const ORDER_FIELDS = Object.keys(
  (openapiDocument.components as { schemas: Record<string, { properties: Record<string, unknown> }> }).schemas.Order!
    .properties,
) as (keyof Order)[];

/** The `links` of an order: its participants and items (paths under `/api/orders/<id>/`). */
export function orderLinks(id: number): Order['links'] {
  return { buddies: `/api/orders/${id}/buddies`, items: `/api/orders/${id}/items` };
}

/** The public view of a stored order: exactly the `Order` fields, with links built from the id. */
export function publicOrder(record: OrderRecord): Order {
  const out: Record<string, unknown> = {};
  for (const field of ORDER_FIELDS) out[field] = record[field];
  out.links = orderLinks(record.id);
  return out as Order;
}

/**
 * Whether the account may see an order: a dispatcher every order, a staff member the orders of the
 * restaurants it handles, a courier only the orders assigned to it (Authentication 5).
 */
export function seesOrder(actor: Actor, order: OrderRecord): boolean {
  if (actor.type === 'dispatcher') return true;
  if (actor.type === 'courier') return order.courier_id !== null && order.courier_id === actor.courierId;
  return seesRestaurant(actor, order.restaurant_id);
}

/** The order with this id if the account may see it; 404 otherwise (missing and out of scope look the same). */
export function visibleOrder(runtime: MockRuntime, actor: Actor, id: number): OrderRecord {
  const order = runtime.state.orders.get(id);
  if (!order || !seesOrder(actor, order)) throw notFound('Order', id);
  return order;
}

/** The single-order answer: `order` plus the sideloaded restaurant, courier and payment (Data format rules 5). */
export function orderResponse(runtime: MockRuntime, order: OrderRecord): OrderResponse {
  const { state } = runtime;
  const restaurant = state.restaurants.get(order.restaurant_id);
  const courier = order.courier_id === null ? undefined : state.couriers.get(order.courier_id);
  const payment = order.payment_id === null ? undefined : state.payments.get(order.payment_id);
  return {
    order: publicOrder(order),
    restaurants: restaurant ? [restaurant] : [],
    couriers: courier ? [courier] : [],
    payments: payment ? [payment] : [],
  };
}

/** The parts an order's `address_text` is built from. */
export interface AddressParts {
  address?: string | null;
  apartment?: string | null;
  staircase?: string | null;
  floor?: string | null;
  doorphone?: string | null;
  city?: string | null;
}

/** The order's full address from its fields, as in `Wiener Straße 18, apartment 4, floor 2, Berlin`; empty parts are left out. */
export function buildAddressText(parts: AddressParts): string {
  const labelled = (label: string, value: string | null | undefined) => (value ? `${label} ${value}` : '');
  return [
    parts.address ?? '',
    labelled('apartment', parts.apartment),
    labelled('staircase', parts.staircase),
    labelled('floor', parts.floor),
    labelled('doorphone', parts.doorphone),
    parts.city ?? '',
  ]
    .map((part) => part.trim())
    .filter(Boolean)
    .join(', ');
}

/** The initials an organization's order numbers start with: `Pizza Piccolo` → `PP`; `ORD` for a name without letters. */
export function orderNumberPrefix(organizationName: string): string {
  const initials = organizationName
    .normalize('NFD')
    .replace(/\p{M}/gu, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean)
    .map((word) => word[0]!.toUpperCase())
    .join('')
    .replace(/[^A-Z0-9]/g, '')
    .slice(0, 4);
  return initials || 'ORD';
}

/** The human-readable number of an order: organization initials and the order id, `PP-5001`. */
export function orderNumber(organizationName: string, id: number): string {
  return `${orderNumberPrefix(organizationName)}-${id}`;
}

/**
 * Reads a stored amount (number or decimal string) as money. Stored JSON numbers may carry float noise
 * (24.400000000000002) from older writers; that is rounded to cents instead of failing the request.
 */
export function storedMoney(value: number | string): Money {
  return Money.parse(value) ?? Money.fromMinorUnits(Math.round(Number(value) * 100));
}
