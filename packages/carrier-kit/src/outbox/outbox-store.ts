import type { DeliveryUpdate } from '../carrier-api/carrier-api.js';

/** What an outbox entry carries: a status change (with its fields) or a courier position. */
export type OutboxEntryKind = 'status' | 'position';

/** One delivery update waiting to be sent. */
export interface OutboxEntry {
  /** Increasing number: the sending order within an order. */
  id: number;
  /** The order's `secure_id`. */
  secureId: string;
  /** The main API's order id, when known (for logs and the audit trail). */
  orderId?: number;
  kind: OutboxEntryKind;
  /** The body of `PUT /orders/{secure_id}/delivery`. */
  patch: DeliveryUpdate;
  /** When it was queued (scheduler time, ms). */
  createdAt: number;
  /** Failed attempts so far. */
  attempts: number;
  /** Earliest time of the next attempt (scheduler time, ms). */
  notBefore: number;
  /** The last failure, for people. */
  lastError?: string;
}

/** Everything an outbox needs to survive a restart. */
export interface OutboxSnapshot {
  version: 1;
  /** The id the next entry gets. */
  nextId: number;
  /** Pending entries, oldest first. */
  entries: OutboxEntry[];
  /** Orders whose delivery ended: their positions are no longer sent. */
  closed: string[];
}

/**
 * Where an outbox keeps its pending updates. `save` must be durable when it resolves (the file store
 * writes a temporary file, fsyncs it and renames it over the old one); implement it over SQLite,
 * Redis or a database table for a shared or larger outbox.
 */
export interface OutboxStore {
  /** The saved snapshot, or `undefined` when nothing was saved yet. */
  load(): Promise<OutboxSnapshot | undefined>;
  /** Replaces the saved snapshot. */
  save(snapshot: OutboxSnapshot): Promise<void>;
}

/** An outbox store in memory: survives nothing, for tests and short-lived tools. */
export interface MemoryOutboxStore extends OutboxStore {
  /** The last snapshot saved. */
  readonly snapshot: OutboxSnapshot | undefined;
  /** Number of saves so far. */
  readonly saves: number;
}

/**
 * Creates an in-memory outbox store (the default of {@link createOutbox}); pass a file store from
 * `@restoapi/carrier-kit/node` to survive restarts.
 */
export function createMemoryOutboxStore(initial?: OutboxSnapshot): MemoryOutboxStore {
  let snapshot = initial ? structuredClone(initial) : undefined;
  let saves = 0;
  return {
    async load() {
      return snapshot ? structuredClone(snapshot) : undefined;
    },
    async save(next) {
      snapshot = structuredClone(next);
      saves += 1;
    },
    get snapshot() {
      return snapshot;
    },
    get saves() {
      return saves;
    },
  };
}

/** Checks that a loaded value is an outbox snapshot, so a foreign or damaged file is not taken for one. */
export function assertSnapshot(value: unknown, where: string): OutboxSnapshot {
  const snapshot = value as Partial<OutboxSnapshot> | null;
  if (
    !snapshot ||
    typeof snapshot !== 'object' ||
    snapshot.version !== 1 ||
    !Array.isArray(snapshot.entries) ||
    typeof snapshot.nextId !== 'number'
  ) {
    throw new Error(`${where} is not an outbox snapshot (version 1)`);
  }
  return {
    version: 1,
    nextId: snapshot.nextId,
    entries: snapshot.entries,
    closed: Array.isArray(snapshot.closed) ? snapshot.closed : [],
  };
}
