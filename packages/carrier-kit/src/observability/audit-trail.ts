/**
 * The steps of an order's life in the carrier, in the order they usually happen:
 * a callback arrives, the order is (re)loaded, updates are queued and pushed, the service answers.
 */
export type AuditStep =
  | 'callback_received'
  | 'callback_duplicate'
  | 'callback_ignored'
  | 'callback_failed'
  | 'order_loaded'
  | 'event_emitted'
  | 'update_queued'
  | 'update_coalesced'
  | 'update_pushed'
  | 'update_answered'
  | 'update_retrying'
  | 'update_rejected'
  | 'update_failed'
  | 'update_dropped';

/** One line of an order's audit trail. */
export interface AuditEntry {
  /** Milliseconds since the epoch, from the kit's scheduler. */
  at: number;
  step: AuditStep;
  /** The order's `secure_id`: every step knows it. */
  secureId: string;
  /** The order's id in the main API, once known. */
  orderId?: number;
  /** What happened, for people. */
  detail: string;
  /** Machine-readable extras (callback parameters, the patch sent, the HTTP status of the answer…). */
  data?: Record<string, unknown>;
}

/** Where audit entries go; the memory trail is the default, a database-backed one can replace it. */
export interface AuditSink {
  record(entry: AuditEntry): void;
}

/** An in-memory audit trail that can be read back per order. */
export interface AuditTrail extends AuditSink {
  /** The entries of one order, oldest first, by `secure_id` or by the main API's order id. */
  forOrder(key: string | number): AuditEntry[];
  /** Every entry kept, oldest first. */
  all(): AuditEntry[];
  /** Forgets everything. */
  clear(): void;
}

/** Options of {@link createAuditTrail}. */
export interface AuditTrailOptions {
  /** Entries kept per order; the oldest go first (default 500). */
  maxEntriesPerOrder?: number;
  /** Orders kept; the least recently written go first (default 10,000). */
  maxOrders?: number;
}

/**
 * Creates an in-memory, bounded audit trail.
 * @example
 * const audit = createAuditTrail();
 * createCarrierAgent({ baseUrl, audit });
 * console.table(audit.forOrder(5007).map((e) => [e.step, e.detail]));
 */
export function createAuditTrail(options: AuditTrailOptions = {}): AuditTrail {
  const perOrder = options.maxEntriesPerOrder ?? 500;
  const maxOrders = options.maxOrders ?? 10_000;
  const bySecureId = new Map<string, AuditEntry[]>();
  const secureIdOf = new Map<number, string>();
  const sequence = new WeakMap<AuditEntry, number>();
  let counter = 0;
  return {
    record(entry) {
      sequence.set(entry, counter++);
      let list = bySecureId.get(entry.secureId);
      if (list) bySecureId.delete(entry.secureId);
      else list = [];
      // Re-inserting keeps the Map in least-recently-written order for eviction.
      bySecureId.set(entry.secureId, list);
      list.push(entry);
      if (list.length > perOrder) list.splice(0, list.length - perOrder);
      if (entry.orderId !== undefined) secureIdOf.set(entry.orderId, entry.secureId);
      while (bySecureId.size > maxOrders) {
        const oldest = bySecureId.keys().next().value as string;
        bySecureId.delete(oldest);
      }
    },
    forOrder(key) {
      const secureId = typeof key === 'number' ? secureIdOf.get(key) : key;
      return secureId ? [...(bySecureId.get(secureId) ?? [])] : [];
    },
    all() {
      return [...bySecureId.values()].flat().sort((a, b) => (sequence.get(a) ?? 0) - (sequence.get(b) ?? 0));
    },
    clear() {
      bySecureId.clear();
      secureIdOf.clear();
    },
  };
}

/** An audit sink that keeps nothing. */
export const discardAudit: AuditSink = { record: () => undefined };
