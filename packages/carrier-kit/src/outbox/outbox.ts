import {
  isProgrammingError,
  isRetryableError,
  retryAfterOf,
  type CarrierApi,
  type CarrierOrder,
  type DeliveryUpdate,
} from '../carrier-api/carrier-api.js';
import { TypedEmitter } from '../events/typed-emitter.js';
import { discardAudit, type AuditSink, type AuditStep } from '../observability/audit-trail.js';
import { silentLogger, type Logger } from '../observability/logger.js';
import { deliveryStateMachine, type DeliveryStateMachine } from '../tracker/delivery-state-machine.js';
import { systemScheduler, type Scheduler, type TimerHandle } from '../time/scheduler.js';
import { backoffDelay, type BackoffPolicy } from './backoff.js';
import { distanceMeters, type LatLon } from '../geo/haversine.js';
import { createMemoryOutboxStore, type OutboxEntry, type OutboxSnapshot, type OutboxStore } from './outbox-store.js';

/** How courier positions are thinned out before they reach the service. */
export interface PositionPolicy {
  /** Shortest time between two position updates of one order (default 10 s, like the fleet SDKs). */
  minIntervalMs?: number;
  /** A position closer than this to the last one sent is not sent (metres, default 10). */
  minDistanceM?: number;
}

/** Options of {@link createOutbox}. */
export interface OutboxOptions {
  /** The carrier API updates are sent to. */
  api: CarrierApi;
  /** Where pending updates are kept (default: memory; use the file store to survive restarts). */
  store?: OutboxStore;
  scheduler?: Scheduler;
  /** Backoff of retries on connection errors, 429 and 5xx. */
  retry?: BackoffPolicy;
  positions?: PositionPolicy;
  /** The delivery state machine (default: the document's); its terminal statuses stop positions. */
  machine?: DeliveryStateMachine;
  /** Source of randomness of the jitter (default `Math.random`). */
  random?: () => number;
  logger?: Logger;
  audit?: AuditSink;
}

/** What happened to a reported position. */
export type PositionOutcome = 'queued' | 'coalesced' | 'skipped_nearby' | 'dropped_terminal';

/** Events of an outbox. */
export interface OutboxEvents {
  /**
   * An update was accepted by the service (any 2xx); `order` is the order in the carrier view when the answer
   * held one (the spec shows no answer body: a 204 has none).
   */
  sent: { entry: OutboxEntry; order?: CarrierOrder };
  /** An update failed and will be retried after `delayMs`. */
  retry: { entry: OutboxEntry; error: unknown; delayMs: number };
  /** The service refused an update for good (4xx other than 408/425/429); it is dropped. */
  rejected: { entry: OutboxEntry; error: unknown };
  /** Pending updates were dropped without sending (the order was cancelled or completed). */
  dropped: { entry: OutboxEntry; reason: string };
  /**
   * Sending an update threw a bug (`TypeError`, `RangeError`…: in a custom carrier API, a listener, the kit), not a
   * failed exchange: it is logged with the update, dropped and never retried.
   */
  failed: { entry: OutboxEntry; error: unknown };
}

/**
 * What becomes of an update whose send did not get a 2xx: a position of a finished delivery is dropped, a bug
 * (`TypeError`, `RangeError`…) fails for good, a transport failure or 408/425/429/5xx is retried, any other answer
 * is a refusal. Both outboxes (one process, shared store) decide by this one rule.
 */
export function failureOutcome(
  entry: Pick<OutboxEntry, 'kind'>,
  error: unknown,
  deliveryClosed: boolean,
): 'dropped' | 'failed' | 'retry' | 'rejected' {
  if (deliveryClosed && entry.kind === 'position') return 'dropped';
  if (isProgrammingError(error)) return 'failed';
  return isRetryableError(error) ? 'retry' : 'rejected';
}

/** Counters of an outbox, for dashboards and tests. */
export interface OutboxStats {
  /** Updates queued (a coalesced position counts once). */
  queued: number;
  /** Positions folded into a pending one. */
  coalesced: number;
  /** Positions not queued because they were within the minimum distance. */
  skippedNearby: number;
  /** Calls made to the service (attempts, retries included). */
  attempts: number;
  /** Updates the service accepted. */
  sent: number;
  /** Failed attempts that will be retried. */
  retried: number;
  /** Updates the service refused. */
  rejected: number;
  /** Updates dropped because sending them threw a bug (never retried). */
  failed: number;
  /** Updates dropped without sending. */
  dropped: number;
}

/** The durable outbox of delivery updates. */
export interface Outbox {
  /** Loads the pending updates of the store and starts sending them. Call once before queuing. */
  start(): Promise<void>;
  /** Stops sending; pending updates stay in the store for the next start. */
  stop(): Promise<void>;
  /**
   * Queues a delivery update (a status change and its fields). Resolves once the store holds it, so
   * a crash afterwards cannot lose it. A terminal status stops the order's positions.
   */
  enqueue(secureId: string, patch: DeliveryUpdate, meta?: { orderId?: number }): Promise<void>;
  /** Reports a courier position: coalesced (latest wins), thinned by interval and distance. */
  enqueuePosition(secureId: string, position: LatLon, meta?: { orderId?: number }): Promise<PositionOutcome>;
  /** Drops every pending update of an order and stops its positions (the order was cancelled or completed). */
  discard(secureId: string, reason: string): Promise<void>;
  /** Whether an order's delivery ended here (its positions are dropped). */
  isClosed(secureId: string): boolean;
  /** The pending updates, oldest first, of one order or of all. */
  pending(secureId?: string): OutboxEntry[];
  /** Resolves when no update is in flight and none is due now (the rest wait for their time). */
  idle(): Promise<void>;
  /** Resolves when nothing is pending any more and the store says so. */
  drained(): Promise<void>;
  on: TypedEmitter<OutboxEvents>['on'];
  readonly stats: Readonly<OutboxStats>;
}

const MAX_CLOSED = 1000;

/** The settings both outboxes (one process, shared store) read from their options, with their defaults. */
export function outboxSettings(options: Omit<OutboxOptions, 'store'>) {
  return {
    scheduler: options.scheduler ?? systemScheduler,
    logger: options.logger ?? silentLogger,
    audit: options.audit ?? discardAudit,
    machine: options.machine ?? deliveryStateMachine(),
    random: options.random ?? Math.random,
    minIntervalMs: options.positions?.minIntervalMs ?? 10_000,
    minDistanceM: options.positions?.minDistanceM ?? 10,
  };
}

/** An outbox's counters before its first update. */
export function emptyStats(): OutboxStats {
  return {
    queued: 0,
    coalesced: 0,
    skippedNearby: 0,
    attempts: 0,
    sent: 0,
    retried: 0,
    rejected: 0,
    failed: 0,
    dropped: 0,
  };
}

/** How an accepted update is told in the audit trail: the states the service answered with, when it sent the order. */
export function acceptedText(order: CarrierOrder | undefined): string {
  return order
    ? `accepted: delivery ${order.delivery.status}, order ${order.order_status}`
    : 'accepted (the answer held no order)';
}

/**
 * Creates the outbox: updates are stored before they are sent, sent one at a time per order in the
 * order queued, retried with backoff on connection errors, 429 and 5xx until they get through, and
 * positions are coalesced.
 * @example
 * const outbox = createOutbox({ api: createCarrierApi({ baseUrl }), store: createFileOutboxStore('./outbox.json') });
 * await outbox.start();
 * await outbox.enqueue(secureId, { status: 'delivering' });
 */
export function createOutbox(options: OutboxOptions): Outbox {
  const { api } = options;
  const store = options.store ?? createMemoryOutboxStore();
  const { scheduler, logger, audit, machine, random, minIntervalMs, minDistanceM } = outboxSettings(options);
  const emitter = new TypedEmitter<OutboxEvents>();
  const stats = emptyStats();

  let entries: OutboxEntry[] = [];
  let nextId = 1;
  const closed = new Set<string>();
  /** Entry in flight per order: at most one. */
  const inflight = new Map<string, OutboxEntry>();
  const sends = new Set<Promise<void>>();
  /** The last position the service got (or is getting) per order, and when it was sent. */
  const lastPosition = new Map<string, LatLon & { at: number }>();
  let timer: TimerHandle | undefined;
  let timerAt = Number.POSITIVE_INFINITY;
  let started = false;
  let stopped = false;
  const emptyWaiters: (() => void)[] = [];

  const record = (
    entry: Pick<OutboxEntry, 'secureId' | 'orderId'>,
    step: AuditStep,
    detail: string,
    data?: Record<string, unknown>,
  ): void => {
    audit.record({
      at: scheduler.now(),
      step,
      secureId: entry.secureId,
      ...(entry.orderId !== undefined ? { orderId: entry.orderId } : {}),
      detail,
      ...(data ? { data } : {}),
    });
  };

  // Saves are coalesced: while one is written, later changes wait and go out together in the next one.
  let writing: Promise<void> | undefined;
  let dirty = false;
  const snapshot = (): OutboxSnapshot => ({
    version: 1,
    nextId,
    entries: entries.map((e) => ({ ...e, patch: { ...e.patch } })),
    closed: [...closed],
  });
  const persist = (): Promise<void> => {
    dirty = true;
    writing ??= (async () => {
      try {
        while (dirty) {
          dirty = false;
          await store.save(snapshot());
        }
      } catch (error) {
        logger.error('outbox could not be saved', { error: String(error) });
        throw error;
      } finally {
        writing = undefined;
      }
    })();
    return writing;
  };
  const persistQuietly = (): void => {
    persist().catch(() => undefined);
  };

  const notifyIfEmpty = (): void => {
    if (entries.length > 0) return;
    for (const resolve of emptyWaiters.splice(0)) resolve();
  };

  const remove = (entry: OutboxEntry): void => {
    entries = entries.filter((e) => e !== entry);
    notifyIfEmpty();
  };

  const arm = (at: number): void => {
    if (at >= timerAt && timer !== undefined) return;
    if (timer !== undefined) scheduler.clearTimer(timer);
    timerAt = at;
    timer = scheduler.setTimer(
      () => {
        timer = undefined;
        timerAt = Number.POSITIVE_INFINITY;
        pump();
      },
      Math.max(0, at - scheduler.now()),
    );
  };

  /** Sends the next sendable update of every order that has none in flight; arms a timer for the rest. */
  const pump = (): void => {
    if (!started || stopped) return;
    const now = scheduler.now();
    let earliest = Number.POSITIVE_INFINITY;
    const seen = new Set<string>();
    for (const entry of entries) {
      if (seen.has(entry.secureId) || inflight.has(entry.secureId)) continue;
      if (entry.notBefore > now) {
        earliest = Math.min(earliest, entry.notBefore);
        // A position waiting for its interval does not hold back the status updates queued after it;
        // an update waiting for a retry does, so the order of updates is kept.
        if (entry.kind === 'position' && entry.attempts === 0) continue;
        seen.add(entry.secureId);
        continue;
      }
      seen.add(entry.secureId);
      send(entry);
    }
    if (earliest < Number.POSITIVE_INFINITY) arm(earliest);
  };

  /** A failed update: retried (no answer, 408/425/429/5xx), refused by the service (other 4xx), or a bug (never retried). */
  const failed = async (entry: OutboxEntry, patch: DeliveryUpdate, error: unknown): Promise<void> => {
    const status = (error as { status?: unknown } | undefined)?.status;
    entry.lastError = error instanceof Error ? error.message : String(error);
    const outcome = failureOutcome(entry, error, closed.has(entry.secureId));
    if (outcome === 'dropped') {
      stats.dropped += 1;
      remove(entry);
      record(entry, 'update_dropped', 'position dropped: the delivery ended');
    } else if (outcome === 'failed') {
      // A bug (in a custom CarrierApi, the SDK or the kit) is not a network failure: sending again repeats it.
      stats.failed += 1;
      remove(entry);
      const name = (error as Error).name;
      record(entry, 'update_failed', `${name}: ${entry.lastError} (a bug, not retried)`, { patch, error: name });
      logger.error('delivery update failed with an error in the code, not retried', {
        secure_id: entry.secureId,
        patch,
        error: String(error),
        stack: (error as Error).stack,
      });
      await emitter.emit('failed', { entry, error });
    } else if (outcome === 'retry') {
      entry.attempts += 1;
      const delayMs = backoffDelay(options.retry ?? {}, entry.attempts, random(), retryAfterOf(error));
      entry.notBefore = scheduler.now() + delayMs;
      stats.retried += 1;
      record(entry, 'update_retrying', `${typeof status === 'number' ? status : 'no answer'}: retry in ${delayMs} ms`, {
        error: entry.lastError,
        delay_ms: delayMs,
      });
      logger.warn('delivery update failed, will retry', {
        secure_id: entry.secureId,
        attempts: entry.attempts,
        delay_ms: delayMs,
        error: entry.lastError,
      });
      await emitter.emit('retry', { entry, error, delayMs });
    } else {
      stats.rejected += 1;
      remove(entry);
      record(entry, 'update_rejected', `${typeof status === 'number' ? status : 'error'}: ${entry.lastError}`, {
        patch,
      });
      logger.error('delivery update refused by the service', {
        secure_id: entry.secureId,
        patch,
        error: entry.lastError,
      });
      await emitter.emit('rejected', { entry, error });
    }
  };

  const send = (entry: OutboxEntry): void => {
    inflight.set(entry.secureId, entry);
    stats.attempts += 1;
    const patch = { ...entry.patch };
    if (entry.kind === 'position' && patch.lat !== undefined && patch.lon !== undefined) {
      lastPosition.set(entry.secureId, { lat: patch.lat, lon: patch.lon, at: scheduler.now() });
    }
    record(
      entry,
      'update_pushed',
      `${describePatch(patch)}${entry.attempts > 0 ? ` (attempt ${entry.attempts + 1})` : ''}`,
      { patch, entry_id: entry.id },
    );
    const work = (async () => {
      // The call alone is guarded: what we do with a 2xx afterwards can never pass for a failed exchange.
      let answered: { order: CarrierOrder | undefined } | undefined;
      let failure: unknown;
      try {
        answered = { order: await api.updateDelivery(entry.secureId, patch) };
      } catch (error) {
        failure = error;
      }
      try {
        if (!answered) {
          await failed(entry, patch, failure);
          return;
        }
        const { order } = answered;
        stats.sent += 1;
        remove(entry);
        record(
          entry,
          'update_answered',
          acceptedText(order),
          order ? { delivery_status: order.delivery.status, order_status: order.order_status } : {},
        );
        await emitter.emit('sent', { entry, ...(order ? { order } : {}) }, (error) =>
          logger.error('outbox sent listener failed', { error: String(error) }),
        );
      } finally {
        inflight.delete(entry.secureId);
        persistQuietly();
        pump();
      }
    })();
    sends.add(work);
    void work.finally(() => sends.delete(work));
  };

  const requireStarted = (): void => {
    if (!started) throw new Error('the outbox is not started: await outbox.start() (or agent.start()) first');
    if (stopped) throw new Error('the outbox is stopped');
  };

  const close = (secureId: string): void => {
    closed.delete(secureId);
    closed.add(secureId);
    while (closed.size > MAX_CLOSED) closed.delete(closed.values().next().value as string);
  };

  const dropPending = (secureId: string, filter: (entry: OutboxEntry) => boolean, reason: string): void => {
    const current = inflight.get(secureId);
    for (const entry of entries.filter((e) => e.secureId === secureId && e !== current && filter(e))) {
      stats.dropped += 1;
      remove(entry);
      record(entry, 'update_dropped', `${describePatch(entry.patch)} dropped: ${reason}`);
      void emitter.emit('dropped', { entry, reason });
    }
  };

  const outbox: Outbox = {
    async start() {
      if (started && !stopped) return;
      if (started) {
        // Started again after stop(): the entries in memory are the current ones.
        stopped = false;
        pump();
        return;
      }
      const saved = await store.load();
      const now = scheduler.now();
      if (saved) {
        nextId = Math.max(nextId, saved.nextId);
        // After a restart every pending update is due at once: the pause was long enough.
        entries = saved.entries.map((entry) => ({ ...entry, notBefore: Math.min(entry.notBefore, now) }));
        for (const secureId of saved.closed) close(secureId);
        if (entries.length > 0) logger.info('outbox resumed', { pending: entries.length });
      }
      started = true;
      stopped = false;
      pump();
    },

    async stop() {
      stopped = true;
      if (timer !== undefined) scheduler.clearTimer(timer);
      timer = undefined;
      timerAt = Number.POSITIVE_INFINITY;
      await Promise.allSettled([...sends]);
      await (writing ?? Promise.resolve()).catch(() => undefined);
      await persist().catch(() => undefined);
    },

    async enqueue(secureId, patch, meta = {}) {
      requireStarted();
      if (Object.keys(patch).length === 0) throw new TypeError('a delivery update needs at least one field');
      const now = scheduler.now();
      const entry: OutboxEntry = {
        id: nextId++,
        secureId,
        ...(meta.orderId !== undefined ? { orderId: meta.orderId } : {}),
        kind: patch.status !== undefined || patch.lat === undefined ? 'status' : 'position',
        patch: { ...patch },
        createdAt: now,
        attempts: 0,
        notBefore: now,
      };
      if (patch.status !== undefined && machine.isTerminal(patch.status)) {
        close(secureId);
        // The last position reported before the end rides along with the final status (one call, in order);
        // no position goes out after it.
        const current = inflight.get(secureId);
        const waiting = entries.find((e) => e.secureId === secureId && e.kind === 'position' && e !== current);
        if (waiting && entry.patch.lat === undefined && entry.patch.lon === undefined) {
          entry.patch.lat = waiting.patch.lat;
          entry.patch.lon = waiting.patch.lon;
          remove(waiting);
          stats.coalesced += 1;
          record(entry, 'update_coalesced', `last position folded into the ${patch.status} update`);
        }
      }
      entries.push(entry);
      stats.queued += 1;
      record(entry, 'update_queued', describePatch(entry.patch), { patch: entry.patch, entry_id: entry.id });
      const saved = persist();
      pump();
      await saved;
    },

    async enqueuePosition(secureId, position, meta = {}) {
      requireStarted();
      if (closed.has(secureId)) return 'dropped_terminal';
      const current = inflight.get(secureId);
      const waiting = entries.find((e) => e.secureId === secureId && e.kind === 'position' && e !== current);
      const reference =
        current?.kind === 'position'
          ? { lat: current.patch.lat!, lon: current.patch.lon! }
          : lastPosition.get(secureId);
      if (reference && distanceMeters(reference, position) < minDistanceM) {
        stats.skippedNearby += 1;
        // The latest position wins: when it is back near what the service knows, nothing is left to send.
        if (waiting) {
          remove(waiting);
          persistQuietly();
        }
        return 'skipped_nearby';
      }
      if (waiting) {
        waiting.patch = { lat: position.lat, lon: position.lon };
        stats.coalesced += 1;
        record(
          waiting,
          'update_coalesced',
          `position replaced by ${position.lat.toFixed(5)}, ${position.lon.toFixed(5)}`,
        );
        await persist();
        return 'coalesced';
      }
      const now = scheduler.now();
      const last = lastPosition.get(secureId);
      const entry: OutboxEntry = {
        id: nextId++,
        secureId,
        ...(meta.orderId !== undefined ? { orderId: meta.orderId } : {}),
        kind: 'position',
        patch: { lat: position.lat, lon: position.lon },
        createdAt: now,
        attempts: 0,
        notBefore: last ? Math.max(now, last.at + minIntervalMs) : now,
      };
      entries.push(entry);
      stats.queued += 1;
      record(entry, 'update_queued', describePatch(entry.patch), { entry_id: entry.id, not_before: entry.notBefore });
      const saved = persist();
      pump();
      await saved;
      return 'queued';
    },

    async discard(secureId, reason) {
      close(secureId);
      dropPending(secureId, () => true, reason);
      await persist();
    },

    isClosed: (secureId) => closed.has(secureId),

    pending(secureId) {
      return entries
        .filter((e) => secureId === undefined || e.secureId === secureId)
        .map((e) => ({ ...e, patch: { ...e.patch } }));
    },

    async idle() {
      for (;;) {
        if (sends.size > 0) {
          await Promise.allSettled([...sends]);
          continue;
        }
        if (writing) {
          await writing.catch(() => undefined);
          continue;
        }
        return;
      }
    },

    async drained() {
      for (;;) {
        if (entries.length > 0) await new Promise<void>((resolve) => emptyWaiters.push(resolve));
        // Empty in memory: wait for the sends to settle and the store to hold the empty state too.
        await outbox.idle();
        if (entries.length === 0) return;
      }
    },

    on: (name, listener) => emitter.on(name, listener),

    get stats() {
      return { ...stats };
    },
  };
  return outbox;
}

/** A short text for an update, e.g. `status delivering` or `position 52.49810, 13.42970`. */
export function describePatch(patch: DeliveryUpdate): string {
  const parts: string[] = [];
  if (patch.status !== undefined) parts.push(`status ${patch.status}`);
  if (patch.courier_name !== undefined) parts.push(`courier ${patch.courier_name ?? 'cleared'}`);
  if (patch.message !== undefined) parts.push(`message ${JSON.stringify(patch.message)}`);
  if (patch.lat !== undefined && patch.lon !== undefined)
    parts.push(`position ${patch.lat.toFixed(5)}, ${patch.lon.toFixed(5)}`);
  return parts.join(', ') || 'update';
}
