import { openapiDocument, type components } from '@restoapi/openapi';
import type { OrderStatus } from './order-status.js';

type S = components['schemas'];
const schemas = (openapiDocument.components as { schemas: Record<string, Record<string, unknown>> }).schemas;

/** A delivery status of the carrier's delivery block. */
export type DeliveryStatus = S['DeliveryStatus'];

/** The delivery state machine as the document writes it (`x-state-machine` on `DeliveryStatus`). */
export interface DeliveryStateMachine {
  initial: DeliveryStatus;
  terminal: DeliveryStatus[];
  /** Allowed moves; `setsOrderStatus` is the main order status the move sets. */
  transitions: { from: DeliveryStatus; to: DeliveryStatus; actors?: string[]; setsOrderStatus?: OrderStatus }[];
  /** Main order statuses in which the delivery block no longer changes (409). */
  lockedByOrderStatus: OrderStatus[];
}

/** The delivery transitions, their effects on the order and the order statuses that freeze the delivery, from the document. */
export const DELIVERY_STATE_MACHINE = schemas.DeliveryStatus!['x-state-machine'] as DeliveryStateMachine;

/** The delivery block of an order just handed to a carrier: `idle`, every other field unknown (`null`). */
export function idleDelivery(): S['Delivery'] {
  return {
    status: DELIVERY_STATE_MACHINE.initial,
    message: null,
    courier_name: null,
    courier_phone: null,
    courier_external_id: null,
    lat: null,
    lon: null,
  };
}
