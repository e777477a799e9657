import { openapiDocument } from '@restoapi/openapi';
import type { CarrierOrderStatus, DeliveryStatus } from '../carrier-api/carrier-api.js';

/** One allowed move of the delivery, as the document's `x-state-machine` lists it. */
export interface DeliveryTransition {
  from: DeliveryStatus;
  to: DeliveryStatus;
  /** The main order status the move sets (`delivering` → `delivery`, `delivered` → `complete`). */
  setsOrderStatus?: string;
}

/** The delivery state machine of the document (`x-state-machine` on `DeliveryStatus`). */
export interface DeliveryStateMachine {
  readonly initial: DeliveryStatus;
  readonly terminal: readonly DeliveryStatus[];
  readonly transitions: readonly DeliveryTransition[];
  /** Carrier-view order statuses in which the delivery no longer changes (`complete`, `cancelled`). */
  readonly lockedByOrderStatus: readonly CarrierOrderStatus[];
  /** Whether the delivery may move from one status to another. */
  canMove(from: DeliveryStatus, to: DeliveryStatus): boolean;
  /** The statuses reachable from `from`. */
  next(from: DeliveryStatus): DeliveryStatus[];
  /** Whether a status ends the delivery. */
  isTerminal(status: DeliveryStatus): boolean;
  /** Whether an order in this carrier-view status refuses every delivery update. */
  isLocked(orderStatus: CarrierOrderStatus): boolean;
}

interface DocumentMachine {
  initial: DeliveryStatus;
  terminal: DeliveryStatus[];
  transitions: DeliveryTransition[];
  lockedByOrderStatus?: string[];
}

type Schemas = Record<string, Record<string, unknown> | undefined>;

/**
 * Main API order status → carrier-view status, read from `x-status-map` on `CarrierOrderStatus`.
 * @example
 * orderStatusMap(document).delivery; // 'delivering'
 */
export function orderStatusMap(
  document: Record<string, unknown> = openapiDocument,
): Record<string, CarrierOrderStatus> {
  const schemas = (document.components as { schemas?: Schemas } | undefined)?.schemas ?? {};
  const map = schemas.CarrierOrderStatus?.['x-status-map'] as Record<string, CarrierOrderStatus> | undefined;
  if (!map) throw new Error('the document has no x-status-map on CarrierOrderStatus');
  return map;
}

/**
 * Reads the delivery state machine from an OpenAPI document (the bundled one by default), so the
 * kit's transitions can never drift from what the service enforces.
 * @example
 * const machine = readDeliveryStateMachine();
 * machine.canMove('idle', 'delivering'); // false
 */
export function readDeliveryStateMachine(document: Record<string, unknown> = openapiDocument): DeliveryStateMachine {
  const schemas = (document.components as { schemas?: Schemas } | undefined)?.schemas ?? {};
  const raw = schemas.DeliveryStatus?.['x-state-machine'] as DocumentMachine | undefined;
  if (!raw || !Array.isArray(raw.transitions)) throw new Error('the document has no x-state-machine on DeliveryStatus');
  const statusMap = orderStatusMap(document);
  const locked = (raw.lockedByOrderStatus ?? []).map((status) => statusMap[status] ?? (status as CarrierOrderStatus));
  const transitions = raw.transitions.map((t) => ({
    from: t.from,
    to: t.to,
    ...(t.setsOrderStatus ? { setsOrderStatus: t.setsOrderStatus } : {}),
  }));
  return {
    initial: raw.initial,
    terminal: [...raw.terminal],
    transitions,
    lockedByOrderStatus: locked,
    canMove: (from, to) => transitions.some((t) => t.from === from && t.to === to),
    next: (from) => transitions.filter((t) => t.from === from).map((t) => t.to),
    isTerminal: (status) => raw.terminal.includes(status),
    isLocked: (orderStatus) => locked.includes(orderStatus),
  };
}

let defaultMachine: DeliveryStateMachine | undefined;

/** The delivery state machine of the bundled document, read once. */
export function deliveryStateMachine(): DeliveryStateMachine {
  defaultMachine ??= readDeliveryStateMachine();
  return defaultMachine;
}
