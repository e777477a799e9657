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

/** What {@link SharedOutboxStore.enqueue} did with an update. */
export interface SharedEnqueueResult {
  /** `queued`: a new entry; `coalesced`: it replaced the waiting position; `dropped_terminal`: the delivery had ended. */
  outcome: 'queued' | 'coalesced' | 'dropped_terminal';
  /** The entry that holds the update (absent when dropped). */
  entry?: OutboxEntry;
  /** A terminal status took the order's waiting position along. */
  foldedPosition?: boolean;
}

/**
 * An outbox store that several replicas of a carrier service share (the PostgreSQL store of
 * `@restoapi/carrier-kit/postgres`). Instead of one snapshot it keeps one row per update: each replica
 * claims due updates under a lease, so an update is sent by one replica at a time and an order's
 * updates go out in the order queued; a dead replica's lease runs out and another takes its updates.
 */
export interface SharedOutboxStore {
  /** Marks the store as shared: {@link createCarrierAgent} then builds a shared outbox over it. */
  readonly shared: true;
  /** This replica's name in leases and logs. */
  readonly owner: string;
  /** How long a claimed update stays with its replica before another may take it (ms). */
  readonly leaseMs: number;
  /**
   * Queues an update. A status that ends the delivery (`terminal`) closes the order and takes its
   * waiting position along; a position replaces the order's waiting one, or waits `minIntervalMs` after
   * the last position sent, and is dropped once the order is closed.
   */
  enqueue(update: {
    secureId: string;
    orderId?: number;
    kind: OutboxEntryKind;
    patch: DeliveryUpdate;
    terminal: boolean;
    minIntervalMs: number;
  }): Promise<SharedEnqueueResult>;
  /** Claims due updates for this replica, at most one per order and at most `limit`. */
  claim(limit: number): Promise<OutboxEntry[]>;
  /** The service accepted a claimed update. */
  markSent(id: number): Promise<void>;
  /** A claimed update failed and is due again after `delayMs`. */
  markRetry(id: number, delayMs: number, error: string): Promise<void>;
  /** A claimed update was refused for good, or is no longer to be sent. */
  markRejected(id: number, error: string): Promise<void>;
  /** Closes an order and drops its pending updates that are not in flight; answers those dropped. */
  discard(secureId: string): Promise<OutboxEntry[]>;
  /** The ids among `ids` that are still pending. */
  stillPending(ids: number[]): Promise<Set<number>>;
  /** Pending updates of every replica, oldest first (of one order when given). */
  pending(secureId?: string): Promise<OutboxEntry[]>;
  /** Calls `wake` when another replica queued an update that may be due now (e.g. PostgreSQL's NOTIFY). */
  listen?(wake: () => void): Promise<void>;
  /** Stops the wake-ups and gives back the updates claimed but not handed out, for another replica. */
  release?(): Promise<void>;
  /** Releases the store's connections when it made them. */
  close?(): Promise<void>;
}

/** Whether an outbox store is shared between replicas (see {@link SharedOutboxStore}). */
export function isSharedOutboxStore(store: OutboxStore | SharedOutboxStore | undefined): store is SharedOutboxStore {
  return (store as Partial<SharedOutboxStore> | undefined)?.shared === true;
}
