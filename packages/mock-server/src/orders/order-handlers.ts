import type { components } from '@restoapi/openapi';
import { JsonText, ok, type HandlerMap } from '../engine/handler.js';
import { conflict, forbidden, unprocessable, type FieldProblem } from '../engine/http-error.js';
import { notEditableProblems, sameJson } from '../model/editability.js';
import type { Actor } from '../session/actor.js';
import type { OrderRecord } from '../state/mock-state.js';
import { Money } from '../model/money.js';
import { listOrders } from './order-list.js';
import { receiptFor } from './order-receipts.js';
import { canTransition, changeOrderStatus, isTerminal, type OrderStatus } from '../model/order-status.js';
import { ORDER_FIELDS, orderJsonBytes, orderResponseJson, publicOrder, visibleOrder } from './order-views.js';
import { seesCourier } from '../model/access.js';
import { storedMoney } from '../model/money.js';
import { renderReceiptHtml, renderReceiptPdf } from './receipt.js';

type OrderUpdateFields = components['schemas']['OrderUpdate']['order'];

const UTF8 = new TextEncoder();
const COMMA = UTF8.encode(',');

function concatBytes(parts: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const part of parts) size += part.byteLength;
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.byteLength;
  }
  return out;
}

/** What `PUT /api/orders/{id}` may change (Endpoints > Orders). */
export const EDITABLE_ORDER_FIELDS = [
  'courier_id',
  'status',
  'contact_name',
  'contact_phone',
  'description',
  'delivery_at',
  'delivery_price',
] as const;

const NOT_EDITABLE_FIELDS = ORDER_FIELDS.filter(
  (field) => !(EDITABLE_ORDER_FIELDS as readonly string[]).includes(field),
);
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/;

// A GET body sent back may carry the same instant in another offset (`Z` vs `+01:00`): that is no change.
function sameStoredValue(_field: string, sent: unknown, stored: unknown): boolean {
  if (typeof sent === 'string' && typeof stored === 'string' && TIMESTAMP.test(sent) && TIMESTAMP.test(stored)) {
    return Date.parse(sent) === Date.parse(stored);
  }
  return sameJson(sent, stored);
}

/**
 * The document's rule for staff members and dispatchers: one step forward or cancel, anything else is 409.
 * `changeOrderStatus` would answer 403 for a move only a courier may make (e.g. pending → complete), so
 * that case is settled here first; couriers get their 403 for other values before this is reached.
 */
function requireStaffTransition(actor: Actor, order: OrderRecord, to: OrderStatus): void {
  if (actor.type === 'courier' || order.status === to || isTerminal(order.status)) return;
  if (!canTransition(actor.type, order.status, to)) {
    throw conflict('invalid_transition', `An order in status ${order.status} cannot move to ${to}.`, {
      parameter: 'status',
    });
  }
}

/** `/api/orders…` (alias `/orders…`): list, read, update, confirm, set status, receipts, items and buddies. */
export const orderHandlers: HandlerMap = {
  listOrders({ runtime, actor, query }) {
    const page = listOrders(runtime.state.orders, actor, query);
    // `{ orders: page.orders.map(publicOrder), meta }` as UTF-8 JSON, with each order's bytes from the cache.
    const parts: Uint8Array[] = [UTF8.encode('{"orders":[')];
    for (let at = 0; at < page.orders.length; at++) {
      if (at > 0) parts.push(COMMA);
      parts.push(orderJsonBytes(page.orders[at]!));
    }
    parts.push(UTF8.encode(`],"meta":${JSON.stringify(page.meta)}}`));
    return ok(new JsonText(concatBytes(parts)));
  },

  getOrder({ runtime, actor, params }) {
    return ok(orderResponseJson(runtime, visibleOrder(runtime, actor, params.id)));
  },

  updateOrder({ runtime, actor, params, query, body }) {
    const order = visibleOrder(runtime, actor, params.id);
    if (actor.type === 'courier') {
      throw forbidden(
        'A courier account may not edit orders; it confirms them (PUT /api/orders/{id}/confirm) and sets delivery or complete (PUT /api/orders/{id}/status).',
      );
    }
    const sent = body.order as OrderUpdateFields & Record<string, unknown>;
    const problems: FieldProblem[] = notEditableProblems(
      '/order',
      sent,
      publicOrder(order) as unknown as Record<string, unknown>,
      NOT_EDITABLE_FIELDS,
      sameStoredValue,
    );
    if (sent.courier_id !== undefined && sent.courier_id !== null) {
      const courier = runtime.state.couriers.get(sent.courier_id);
      if (!courier || courier.organization_id !== order.organization_id || !seesCourier(actor, courier)) {
        problems.push({
          pointer: '/order/courier_id',
          code: 'invalid_value',
          detail: `Courier ${sent.courier_id} is not a courier of the order's organization (${order.organization_id}) visible to this account; see GET /api/couriers.`,
        });
      }
    }
    if (problems.length > 0) throw unprocessable(problems);

    // The status change is checked last and may still refuse (403/409): keep a copy to undo the field changes.
    const before: OrderRecord = { ...order };
    if (sent.courier_id !== undefined) order.courier_id = sent.courier_id;
    if (sent.contact_name !== undefined) order.contact_name = sent.contact_name;
    if (sent.contact_phone !== undefined) order.contact_phone = sent.contact_phone;
    if (sent.description !== undefined) order.description = sent.description;
    if (sent.delivery_at !== undefined) order.delivery_at = sent.delivery_at;
    if (sent.delivery_price !== undefined) {
      const price = Money.of(sent.delivery_price);
      // final_sum may hold surcharges besides dishes and delivery, so only the delivery part is swapped.
      order.final_sum = storedMoney(order.final_sum).minus(Money.of(order.delivery_price)).plus(price).toNumber();
      order.delivery_price = price.toString();
    }
    if (sent.status !== undefined) {
      try {
        requireStaffTransition(actor, order, sent.status);
        changeOrderStatus(runtime, order, sent.status, { by: actor.type, sendSms: query.send_sms !== false });
      } catch (error) {
        Object.assign(order, before);
        throw error;
      }
    }
    // Stored again so that the list index files it under its new courier and delivery time.
    runtime.state.orders.put(order);
    return ok(orderResponseJson(runtime, order));
  },

  confirmOrder({ runtime, actor, params }) {
    const order = visibleOrder(runtime, actor, params.id);
    if (actor.type === 'dispatcher') {
      throw forbidden(
        'A dispatcher is neither the restaurant nor the courier of an order and cannot confirm it (Authentication 6).',
      );
    }
    const field = actor.type === 'courier' ? 'courier_confirmed_at' : 'restaurant_confirmed_at';
    // A repeated confirmation keeps the first timestamp, so the record of when the order was accepted stays true.
    if (order[field] === null) {
      if (order.status === 'cancelled')
        throw conflict('conflict', `Order ${order.id} is cancelled and can no longer be confirmed.`);
      order[field] = runtime.nowIso();
    }
    return ok(orderResponseJson(runtime, order));
  },

  setOrderStatus({ runtime, actor, params, query }) {
    const order = visibleOrder(runtime, actor, params.id);
    const status = query.status;
    if (actor.type === 'courier' && status !== 'delivery' && status !== 'complete') {
      throw forbidden(`A courier may set only the statuses delivery and complete, not ${status}.`, {
        parameter: 'status',
      });
    }
    requireStaffTransition(actor, order, status);
    changeOrderStatus(runtime, order, status, { by: actor.type, sendSms: query.send_sms !== false });
    return ok(orderResponseJson(runtime, order));
  },

  getOrderReceiptHtml({ runtime, actor, params }) {
    const order = visibleOrder(runtime, actor, params.id);
    return { status: 200, raw: renderReceiptHtml(receiptFor(runtime, order)), contentType: 'text/html; charset=utf-8' };
  },

  async getOrderReceiptPdf({ runtime, actor, params }) {
    const order = visibleOrder(runtime, actor, params.id);
    const pdf = await renderReceiptPdf(receiptFor(runtime, order));
    return {
      status: 200,
      raw: pdf,
      contentType: 'application/pdf',
      headers: { 'Content-Disposition': `inline; filename="receipt-${order.number}.pdf"` },
    };
  },

  listOrderItems({ runtime, actor, params }) {
    const order = visibleOrder(runtime, actor, params.id);
    return ok({
      items: runtime.state.orderItems.filter((item) => item.order_id === order.id).sort((a, b) => a.id - b.id),
    });
  },

  listOrderBuddies({ runtime, actor, params }) {
    const order = visibleOrder(runtime, actor, params.id);
    return ok({
      buddies: runtime.state.buddies.filter((buddy) => buddy.order_id === order.id).sort((a, b) => a.id - b.id),
    });
  },
};
