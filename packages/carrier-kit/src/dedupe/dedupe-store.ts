import { systemScheduler, type Scheduler } from '../time/scheduler.js';

/** The outcome of {@link DedupeStore.claim}. */
export type ClaimResult = 'claimed' | 'in_flight' | 'done';

/**
 * Remembers which callbacks were processed, so a callback delivered twice is processed once.
 * A claim is a short lease (an in-flight lock); `complete` turns it into a longer-lived mark.
 * Implement it over Redis (`SET key NX PX`), a SQL table with a unique key, or anything shared
 * between the instances of a carrier service.
 */
export interface DedupeStore {
  /**
   * Claims a key for processing. `claimed`: process it; `in_flight`: another worker is processing
   * the same callback right now; `done`: it was processed within the TTL.
   */
  claim(key: string, leaseMs: number): ClaimResult | Promise<ClaimResult>;
  /** Marks a claimed key as processed, remembered for `ttlMs`. */
  complete(key: string, ttlMs: number): void | Promise<void>;
  /** Gives a claim up after a failure, so a redelivery is processed. */
  release(key: string): void | Promise<void>;
  /**
   * Claims are transactions that commit together with the work they start (the PostgreSQL store): a receiver
   * on such a store answers after that commit by default (`ack: 'after-processing'`).
   */
  readonly transactional?: boolean;
}

/** Options of {@link createMemoryDedupeStore}. */
export interface MemoryDedupeStoreOptions {
  /** The clock the TTLs are measured with (default: real time). */
  scheduler?: Scheduler;
  /** Most keys kept; the oldest go first (default 100,000). */
  maxKeys?: number;
}

/**
 * Creates the default dedupe store: a map in memory with TTLs, for a single carrier process.
 * @example
 * createCallbackReceiver({ dedupe: { store: createMemoryDedupeStore(), ttlMs: 24 * 3600_000 } });
 */
export function createMemoryDedupeStore(
  options: MemoryDedupeStoreOptions = {},
): DedupeStore & { readonly size: number } {
  const scheduler = options.scheduler ?? systemScheduler;
  const maxKeys = options.maxKeys ?? 100_000;
  const entries = new Map<string, { state: 'in_flight' | 'done'; expiresAt: number }>();
  const sweep = (now: number): void => {
    for (const [key, entry] of entries) {
      if (entry.expiresAt <= now) entries.delete(key);
    }
  };
  // Oldest first: a Map iterates in insertion order, and every write re-inserts its key.
  const trim = (): void => {
    while (entries.size > maxKeys) entries.delete(entries.keys().next().value as string);
  };
  let lastSweep = 0;
  return {
    claim(key, leaseMs) {
      const now = scheduler.now();
      if (now - lastSweep > 60_000) {
        sweep(now);
        lastSweep = now;
      }
      const entry = entries.get(key);
      if (entry && entry.expiresAt > now) return entry.state;
      entries.delete(key);
      entries.set(key, { state: 'in_flight', expiresAt: now + leaseMs });
      trim();
      return 'claimed';
    },
    complete(key, ttlMs) {
      entries.delete(key);
      entries.set(key, { state: 'done', expiresAt: scheduler.now() + ttlMs });
      trim();
    },
    release(key) {
      entries.delete(key);
    },
    get size() {
      return entries.size;
    },
  };
}
