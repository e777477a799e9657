import { openapiDocument } from '@restoapi/openapi';
import type { components } from '@restoapi/openapi';
import { JsonText } from '../engine/handler.js';
import { notFound } from '../engine/http-error.js';
import type { MockRuntime } from '../engine/runtime.js';
import type { Actor } from '../session/actor.js';
import { seesOrder } from '../model/access.js';
import { orderLinks } from '../model/order.js';
import { restaurantView } from '../restaurants/restaurant-handlers.js';
import type { OrderRecord } from '../state/mock-state.js';

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

/**
 * Copies the `Order` fields of a record into a new object, in the document's order, with the given links.
 * Generated once from {@link ORDER_FIELDS} (as ajv generates its validators): an object literal with fixed
 * keys is built about 7× faster than 35 copies through computed keys, and a list page builds 50 of them.
 * Field names come from the bundled document and are embedded as JSON string literals.
 */
const pickOrderFields = new Function(
  'record',
  'links',
  `return { ${ORDER_FIELDS.map((field) => `${JSON.stringify(field)}: ${field === 'links' ? 'links' : `record[${JSON.stringify(field)}]`}`).join(', ')}${
    (ORDER_FIELDS as string[]).includes('links') ? '' : ', "links": links'
  } };`,
) as (record: OrderRecord, links: Order['links']) => Order;

/** The public view of a stored order: exactly the `Order` fields, with links built from the id. */
export function publicOrder(record: OrderRecord): Order {
  return pickOrderFields(record, orderLinks(record.id));
}

/** What an order's JSON is computed from: its public fields but `links`, which the id (one of them) determines. */
const SOURCE_FIELDS = ORDER_FIELDS.filter((field) => field !== 'links');
/** The values of {@link SOURCE_FIELDS} of a record, in order (generated like {@link pickOrderFields}). */
const sourceValues = new Function(
  'record',
  `return [${SOURCE_FIELDS.map((field) => `record[${JSON.stringify(field)}]`).join(', ')}];`,
) as (record: OrderRecord) => unknown[];
/** Whether a record still holds exactly these values of {@link SOURCE_FIELDS}. */
const stillHolds = new Function(
  'record',
  'values',
  `return ${SOURCE_FIELDS.map((field, index) => `record[${JSON.stringify(field)}] === values[${index}]`).join(' && ') || 'true'};`,
) as (record: OrderRecord, values: unknown[]) => boolean;

/** Orders whose JSON is kept: a few thousand (some MB), so paging through a huge state cannot grow memory. */
export const ORDER_JSON_CAPACITY = 4096;
const orderJsonCache = new Map<OrderRecord, { values: unknown[]; text: string; bytes?: Uint8Array }>();
const UTF8 = new TextEncoder();

const isPrimitive = (value: unknown): boolean =>
  value === null || (typeof value !== 'object' && typeof value !== 'function');

/** How many orders' JSON is kept (for tests of the bound). */
export function cachedOrderJsonCount(): number {
  return orderJsonCache.size;
}

/**
 * `JSON.stringify(publicOrder(record))`, remembered. Serializing is the largest cost of answering with
 * orders (a list page has 50), and orders change in place (status, courier, times…), so the text is kept
 * with the values it was made from and reused only while every one of them is still `===` on the record.
 * That is exact because the JSON depends on nothing else: the public fields are primitives (a record
 * holding an object in one is never cached) and `links` follows from the id. Oldest entries go first.
 */
export function orderJson(record: OrderRecord): string {
  const known = orderJsonCache.get(record);
  if (known !== undefined && stillHolds(record, known.values)) return known.text;
  const text = JSON.stringify(publicOrder(record));
  const values = sourceValues(record);
  if (!values.every(isPrimitive)) {
    orderJsonCache.delete(record);
    return text;
  }
  if (known === undefined && orderJsonCache.size >= ORDER_JSON_CAPACITY) {
    orderJsonCache.delete(orderJsonCache.keys().next().value!);
  }
  orderJsonCache.set(record, { values, text });
  return text;
}

/**
 * {@link orderJson} as UTF-8 bytes, kept with the text: encoding a list page of 50 orders costs more than
 * building it when an order holds a non-ASCII character (the whole page is then a two-byte string).
 */
export function orderJsonBytes(record: OrderRecord): Uint8Array {
  const text = orderJson(record);
  const known = orderJsonCache.get(record);
  if (known === undefined || known.text !== text) return UTF8.encode(text);
  known.bytes ??= UTF8.encode(text);
  return known.bytes;
}

/** The order with this id if the account may see it; 404 otherwise (missing and out of scope look the same). */
export function visibleOrder(runtime: MockRuntime, actor: Actor, id: number): OrderRecord {
  const order = runtime.state.orders.get(id);
  if (!order || !seesOrder(actor, order)) throw notFound('Order', id);
  return order;
}

/** The sideloads of the single-order answer: its restaurant, courier and payment (Data format rules 5). */
function sideloadsOf(runtime: MockRuntime, order: OrderRecord): Omit<OrderResponse, 'order'> {
  const { state } = runtime;
  const restaurant = state.restaurants.get(order.restaurant_id);
  const courier = order.courier_id === null ? undefined : state.couriers.get(order.courier_id);
  const payment = order.payment_id === null ? undefined : state.payments.get(order.payment_id);
  return {
    // The spec lists is_running and is_delivery for the restaurant embedded in an order response.
    restaurants: restaurant ? [restaurantView(restaurant)] : [],
    couriers: courier ? [courier] : [],
    payments: payment ? [payment] : [],
  };
}

/** The single-order answer: `order` plus the sideloaded restaurant, courier and payment (Data format rules 5). */
export function orderResponse(runtime: MockRuntime, order: OrderRecord): OrderResponse {
  return { order: publicOrder(order), ...sideloadsOf(runtime, order) };
}

/** {@link orderResponse} serialized, the same text as `JSON.stringify` of it, with the order's JSON from {@link orderJson}. */
export function orderResponseJson(runtime: MockRuntime, order: OrderRecord): JsonText {
  // The sideloads are stringified each time: keeping their JSON (checked key by key, as `orderJson` checks an
  // order) measured no cheaper than `JSON.stringify` of these small flat rows (bench/phase-profile.ts).
  const { restaurants, couriers, payments } = sideloadsOf(runtime, order);
  return new JsonText(
    `{"order":${orderJson(order)},"restaurants":${JSON.stringify(restaurants)},"couriers":${JSON.stringify(couriers)},"payments":${JSON.stringify(payments)}}`,
  );
}
