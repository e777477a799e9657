import { openapiDocument } from '@restoapi/openapi';
import type { CarrierOrderStatus } from '../carrier-api/carrier-api.js';
import { orderStatusMap } from '../tracker/delivery-state-machine.js';

/** How far along its life an order status is, read from the document's order state machine. */
export interface OrderStatusProgress {
  /** Position of a carrier-view status on the longest path from the initial status; undefined when unknown. */
  rank(status: CarrierOrderStatus): number | undefined;
  /** Whether the status ends the order (`complete`, `cancelled`). */
  isTerminal(status: CarrierOrderStatus): boolean;
  /**
   * Whether `next` is older than `current`: the order cannot move back, so a read showing an earlier
   * status (or leaving a terminal one) was taken before the current one and must not win.
   */
  isStale(current: CarrierOrderStatus, next: CarrierOrderStatus): boolean;
}

interface Machine {
  initial: string;
  terminal: string[];
  transitions: { from: string; to: string }[];
}

/**
 * Reads the order life cycle from `x-state-machine` on `OrderStatus` and maps it to the carrier view
 * with `x-status-map`, so the agent can tell a stale read from a newer one.
 */
export function readOrderStatusProgress(document: Record<string, unknown> = openapiDocument): OrderStatusProgress {
  const schemas =
    (document.components as { schemas?: Record<string, Record<string, unknown> | undefined> } | undefined)?.schemas ??
    {};
  const machine = schemas.OrderStatus?.['x-state-machine'] as Machine | undefined;
  const map = orderStatusMap(document);
  const ranks = new Map<CarrierOrderStatus, number>();
  const terminal = new Set<CarrierOrderStatus>(
    (machine?.terminal ?? []).map((s) => map[s] ?? (s as CarrierOrderStatus)),
  );
  if (machine) {
    // Longest path from the initial status; the machine only moves forward, so it is a DAG.
    const memo = new Map<string, number>();
    const visiting = new Set<string>();
    let cyclic = false;
    const depth = (status: string): number => {
      const known = memo.get(status);
      if (known !== undefined) return known;
      if (visiting.has(status)) {
        cyclic = true;
        return 0;
      }
      visiting.add(status);
      const incoming = machine.transitions.filter((t) => t.to === status && t.from !== status);
      const value =
        status === machine.initial || incoming.length === 0 ? 0 : Math.max(...incoming.map((t) => depth(t.from) + 1));
      visiting.delete(status);
      memo.set(status, value);
      return value;
    };
    const statuses = new Set(machine.transitions.flatMap((t) => [t.from, t.to]));
    for (const status of statuses) depth(status);
    // A machine that can move back gives no order to compare by; every read then wins.
    if (!cyclic) for (const [status, value] of memo) ranks.set(map[status] ?? (status as CarrierOrderStatus), value);
  }
  return {
    rank: (status) => ranks.get(status),
    isTerminal: (status) => terminal.has(status),
    isStale(current, next) {
      if (current === next) return false;
      if (terminal.has(current)) return true;
      const a = ranks.get(current);
      const b = ranks.get(next);
      return a !== undefined && b !== undefined && b < a;
    },
  };
}
