import { openapiDocument } from '@restoapi/openapi';
import type { components } from '@restoapi/openapi';
import { conflict, forbidden } from '../engine/http-error.js';
import type { MockRuntime } from '../engine/runtime.js';
import type { AccountType } from '../session/actor.js';
import type { OrderRecord } from '../state/mock-state.js';

/** A main-API order status. */
export type OrderStatus = components['schemas']['OrderStatus'];

interface StateMachine {
  initial: OrderStatus;
  terminal: OrderStatus[];
  transitions: { from: OrderStatus; to: OrderStatus; actors: AccountType[] }[];
}

/** The order state machine, read from `x-state-machine` on `OrderStatus` so the mock cannot drift from the document. */
export const ORDER_STATE_MACHINE = (
  openapiDocument.components as { schemas: Record<string, { 'x-state-machine'?: StateMachine }> }
).schemas.OrderStatus!['x-state-machine']!;

/** Whether the status ends the order's life. */
export function isTerminal(status: OrderStatus): boolean {
  return ORDER_STATE_MACHINE.terminal.includes(status);
}

/** Whether an account type may move an order from one status to another. */
export function canTransition(actor: AccountType | 'carrier' | 'system', from: OrderStatus, to: OrderStatus): boolean {
  if (actor === 'system' || actor === 'carrier')
    return ORDER_STATE_MACHINE.transitions.some((t) => t.from === from && t.to === to);
  return ORDER_STATE_MACHINE.transitions.some((t) => t.from === from && t.to === to && t.actors.includes(actor));
}

/** Options of {@link changeOrderStatus}. */
export interface StatusChangeOptions {
  /** Who asks: an account type, the carrier API or the mock itself. */
  by: AccountType | 'carrier' | 'system';
  /** `send_sms=false` switches the client's SMS off. */
  sendSms?: boolean;
}

/**
 * Checks and applies a status change: the same status again is a no-op, an
 * illegal move is 409 (403 when the move exists but not for this account), a
 * change notifies the client by SMS and emits `order_status_changed`.
 * Throws before changing anything.
 */
export function changeOrderStatus(
  runtime: MockRuntime,
  order: OrderRecord,
  to: OrderStatus,
  options: StatusChangeOptions,
): boolean {
  const from = order.status;
  if (from === to) return false;
  if (isTerminal(from)) {
    throw conflict('invalid_transition', `An order in status ${from} cannot move to ${to}: ${from} is final.`, {
      parameter: 'status',
    });
  }
  if (!canTransition(options.by, from, to)) {
    // A courier asking for a move only staff may make is refused for its account (403); staff asking
    // for a courier-only shortcut is simply not a step of their state machine (409).
    const somebodyCan = ORDER_STATE_MACHINE.transitions.some((t) => t.from === from && t.to === to);
    if (somebodyCan && options.by === 'courier') {
      throw forbidden(`A ${options.by.replace('_', ' ')} account may not move an order from ${from} to ${to}.`, {
        parameter: 'status',
      });
    }
    throw conflict('invalid_transition', `An order in status ${from} cannot move to ${to}.`, { parameter: 'status' });
  }
  order.status = to;
  order.status_changed_at = runtime.nowIso();
  // Stored again so that the list index files it under its new status.
  runtime.state.orders.put(order);
  if (options.sendSms !== false && order.contact_phone) {
    runtime.notify({
      channel: 'sms',
      to: order.contact_phone,
      subject: null,
      text: `Order ${order.number}: ${STATUS_TEXT[to]}`,
      order_id: order.id,
      reason: 'order_status_changed',
    });
  }
  runtime.events.emit({ type: 'order_status_changed', order, previous: from });
  return true;
}

const STATUS_TEXT: Record<OrderStatus, string> = {
  pending: 'we have received your order.',
  accepted: 'the restaurant has accepted your order.',
  cooking: 'your order is being prepared.',
  ready: 'your order is ready and waiting for the courier.',
  delivery: 'your order is on its way.',
  complete: 'your order has been delivered. Enjoy your meal!',
  cancelled: 'your order has been cancelled.',
};
