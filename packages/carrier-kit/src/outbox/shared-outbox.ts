import { retryAfterOf, type CarrierOrder } from '../carrier-api/carrier-api.js';
import { TypedEmitter } from '../events/typed-emitter.js';
import { discardAudit, type AuditStep } from '../observability/audit-trail.js';
import type { TimerHandle } from '../time/scheduler.js';
import { distanceMeters, type LatLon } from '../geo/haversine.js';
import { backoffDelay } from './backoff.js';
import {
  acceptedText,
  describePatch,
  emptyStats,
  failureOutcome,
  outboxSettings,
  type Outbox,
  type OutboxEvents,
  type OutboxOptions,
} from './outbox.js';
import type { OutboxEntry, SharedOutboxStore } from './outbox-store.js';

/** Most of this replica's pending updates one poll asks the store about. */
const RECONCILE_BATCH = 256;

/** Options of {@link createSharedOutbox}. */
export interface SharedOutboxOptions extends Omit<OutboxOptions, 'store'> {
  store: SharedOutboxStore;
  /** How often an idle replica looks for due updates (default 250 ms). */
  pollMs?: number;
  /** Most updates in flight at once in this replica (default 16). */
  batch?: number;
}

/**
 * Creates an outbox over a {@link SharedOutboxStore}: the same contract as {@link createOutbox}, but the
 * pending updates live in the shared store, and every replica claims and sends the due ones, so an
 * update queued by one replica may be sent by another (after its replica died, for instance).
 * `pending()` answers the updates this replica queued that are still waiting.
 * @example
 * const outbox = createSharedOutbox({ api, store: createPostgresOutboxStore({ pool }) });
 */
export function createSharedOutbox(options: SharedOutboxOptions): Outbox {
  const { api, store } = options;
  const { scheduler, logger, audit, machine, random, minIntervalMs, minDistanceM } = outboxSettings(options);
  const pollMs = options.pollMs ?? 250;
  const batch = options.batch ?? 16;
  const emitter = new TypedEmitter<OutboxEvents>();
  const stats = emptyStats();
  /** Updates this replica queued that are still pending as far as it knows. */
  const local = new Map<number, OutboxEntry>();
  const closed = new Set<string>();
  const lastPosition = new Map<string, LatLon>();
  const sends = new Set<Promise<void>>();
  /** Calls to the service under way: the room for more is `batch` minus these (a settle being written takes none). */
  let calling = 0;
  /** Ids of the updates whose answer this replica is writing to the store (see the reconciliation in `poll`). */
  const settling = new Set<number>();
  let started = false;
  let stopped = false;
  let timer: TimerHandle | undefined;
  let polling: Promise<void> | undefined;
  let again = false;

  const auditing = audit !== discardAudit;
  const record = (entry: OutboxEntry, step: AuditStep, detail: string, data?: Record<string, unknown>): void => {
    audit.record({
      at: scheduler.now(),
      step,
      secureId: entry.secureId,
      ...(entry.orderId !== undefined ? { orderId: entry.orderId } : {}),
      detail,
      ...(data ? { data } : {}),
    });
  };

  // A poll already armed is left as it is: every poll would otherwise move it (twice per update while sending),
  // and a poll sooner than pollMs after the last one does no harm.
  const arm = (ms: number): void => {
    if (stopped || !started || timer !== undefined) return;
    timer = scheduler.setTimer(() => {
      timer = undefined;
      kick();
    }, ms);
  };

  /** Claims and sends due updates now; a call during a poll makes that poll run once more. */
  const kick = (): void => {
    if (!started || stopped) return;
    if (polling) {
      again = true;
      return;
    }
    polling = (async () => {
      try {
        do {
          again = false;
          await poll();
        } while (again && !stopped);
      } catch (error) {
        logger.warn('outbox poll failed', { error: String(error) });
      } finally {
        polling = undefined;
        arm(pollMs);
      }
    })();
  };

  /**
   * After a send: a poll only when a call could start (a poll per answer otherwise, twice per update, each an
   * async round through the store for nothing while all `batch` calls are under way) or this replica's
   * queued updates are due a reconciliation.
   */
  const refill = (): void => {
    if (calling < batch || (local.size > 0 && scheduler.now() - reconciledAt >= pollMs)) kick();
  };

  let reconciledAt = Number.NEGATIVE_INFINITY;
  let reconciledThrough = Number.NEGATIVE_INFINITY;
  const poll = async (): Promise<void> => {
    // Updates of this replica that another one sent: looked up once per poll interval, not per send.
    if (local.size > 0 && scheduler.now() - reconciledAt >= pollMs) {
      reconciledAt = scheduler.now();
      // Only the ids asked about: an update queued while the store answers is not in its answer. At most
      // RECONCILE_BATCH a poll, going round from where the last one stopped, so the cost stays flat however
      // many updates this replica queued.
      const ids = [...local.keys()];
      const from = ids.findIndex((id) => id > reconciledThrough);
      const asked = (from < 0 ? ids : [...ids.slice(from), ...ids.slice(0, from)]).slice(0, RECONCILE_BATCH);
      reconciledThrough = asked.at(-1)!;
      const still = await store.stillPending(asked);
      // An update whose answer this replica is writing is left to its send, which takes it off once its event
      // fires: the store may already say it is done (the write committed) while the event is still to come. An
      // update whose call hangs is not, so one another replica sent still leaves pending() here.
      for (const id of asked) if (!still.has(id) && !settling.has(id)) local.delete(id);
    }
    const room = batch - calling;
    if (room <= 0) return;
    for (const entry of await store.claim(room)) send(entry);
  };

  const send = (entry: OutboxEntry): void => {
    stats.attempts += 1;
    // The two records of every update are not even built when the audit keeps nothing (the default).
    if (auditing)
      record(
        entry,
        'update_pushed',
        `${describePatch(entry.patch)}${entry.attempts > 0 ? ` (attempt ${entry.attempts + 1})` : ''}`,
        { patch: entry.patch, entry_id: entry.id, replica: store.owner },
      );
    const work = (async () => {
      // The call alone is guarded, as in createOutbox: what we do with a 2xx can never pass for a failed exchange.
      let answered: { order: CarrierOrder | undefined } | undefined;
      let failure: unknown;
      calling += 1;
      try {
        answered = { order: await api.updateDelivery(entry.secureId, { ...entry.patch }) };
      } catch (error) {
        failure = error;
      } finally {
        calling -= 1;
      }
      settling.add(entry.id);
      // The store writes answers in batches: the next update goes out while this one's answer is written.
      refill();
      if (answered) {
        const { order } = answered;
        await store.markSent(entry.id);
        stats.sent += 1;
        local.delete(entry.id);
        if (entry.kind === 'position' && entry.patch.lat !== undefined && entry.patch.lon !== undefined)
          lastPosition.set(entry.secureId, { lat: entry.patch.lat, lon: entry.patch.lon });
        if (auditing) record(entry, 'update_answered', acceptedText(order));
        await emitter.emit('sent', { entry, ...(order ? { order } : {}) }, (error) =>
          logger.error('outbox sent listener failed', { error: String(error) }),
        );
        return;
      }
      // Each branch takes the entry off pending() only after its store write, in the tick its event fires, so a
      // caller that waits for an empty pending() also sees the event.
      const error = failure;
      const message = error instanceof Error ? error.message : String(error);
      const outcome = failureOutcome(entry, error, closed.has(entry.secureId));
      if (outcome === 'dropped') {
        stats.dropped += 1;
        await store.markRejected(entry.id, `dropped: the delivery ended (${message})`);
        local.delete(entry.id);
        record(entry, 'update_dropped', 'position dropped: the delivery ended');
      } else if (outcome === 'failed') {
        // A bug (in a custom CarrierApi, the SDK or the kit) is not a network failure: sending again repeats it.
        stats.failed += 1;
        const name = (error as Error).name;
        await store.markRejected(entry.id, `failed: ${name}: ${message}`);
        local.delete(entry.id);
        record(entry, 'update_failed', `${name}: ${message} (a bug, not retried)`, { patch: entry.patch, error: name });
        logger.error('delivery update failed with an error in the code, not retried', {
          secure_id: entry.secureId,
          patch: entry.patch,
          error: String(error),
          stack: (error as Error).stack,
        });
        await emitter.emit('failed', { entry, error });
      } else if (outcome === 'retry') {
        const delayMs = backoffDelay(options.retry ?? {}, entry.attempts + 1, random(), retryAfterOf(error));
        stats.retried += 1;
        await store.markRetry(entry.id, delayMs, message);
        record(entry, 'update_retrying', `retry in ${delayMs} ms`, { error: message, delay_ms: delayMs });
        await emitter.emit('retry', { entry: { ...entry, attempts: entry.attempts + 1 }, error, delayMs });
      } else {
        stats.rejected += 1;
        await store.markRejected(entry.id, message);
        local.delete(entry.id);
        record(entry, 'update_rejected', message, { patch: entry.patch });
        logger.error('delivery update refused by the service', { secure_id: entry.secureId, error: message });
        await emitter.emit('rejected', { entry, error });
      }
    })()
      .catch((error: unknown) => logger.error('outbox store failed', { error: String(error) }))
      .finally(() => {
        settling.delete(entry.id);
        // The settle may have moved the order on to its next update (in the store's local queue).
        refill();
      });
    sends.add(work);
    void work.finally(() => sends.delete(work));
  };

  const requireStarted = (): void => {
    if (!started) throw new Error('the outbox is not started: await outbox.start() (or agent.start()) first');
    if (stopped) throw new Error('the outbox is stopped');
  };

  const outbox: Outbox = {
    async start() {
      started = true;
      stopped = false;
      await store.listen?.(kick);
      kick();
    },

    async stop() {
      stopped = true;
      if (timer !== undefined) scheduler.clearTimer(timer);
      timer = undefined;
      await polling?.catch(() => undefined);
      // Before waiting for the sends: a send that hangs must not keep the claimed updates from the others.
      await store.release?.().catch((error: unknown) => logger.warn('outbox release failed', { error: String(error) }));
      await Promise.allSettled([...sends]);
    },

    async enqueue(secureId, patch, meta = {}) {
      requireStarted();
      if (Object.keys(patch).length === 0) throw new TypeError('a delivery update needs at least one field');
      const kind = patch.status !== undefined || patch.lat === undefined ? 'status' : 'position';
      const terminal = patch.status !== undefined && machine.isTerminal(patch.status);
      if (terminal) closed.add(secureId);
      const result = await store.enqueue({
        secureId,
        ...(meta.orderId !== undefined ? { orderId: meta.orderId } : {}),
        kind,
        patch: { ...patch },
        terminal,
        minIntervalMs,
      });
      if (result.entry) {
        local.set(result.entry.id, result.entry);
        stats.queued += 1;
        record(result.entry, 'update_queued', describePatch(result.entry.patch), { entry_id: result.entry.id });
      }
      if (result.foldedPosition) {
        stats.coalesced += 1;
        for (const entry of local.values())
          if (entry.secureId === secureId && entry.kind === 'position') local.delete(entry.id);
      }
      kick();
    },

    async enqueuePosition(secureId, position, meta = {}) {
      requireStarted();
      if (closed.has(secureId)) return 'dropped_terminal';
      const last = lastPosition.get(secureId);
      if (last && distanceMeters(last, position) < minDistanceM) {
        stats.skippedNearby += 1;
        return 'skipped_nearby';
      }
      const result = await store.enqueue({
        secureId,
        ...(meta.orderId !== undefined ? { orderId: meta.orderId } : {}),
        kind: 'position',
        patch: { lat: position.lat, lon: position.lon },
        terminal: false,
        minIntervalMs,
      });
      if (result.outcome === 'dropped_terminal') {
        closed.add(secureId);
        return 'dropped_terminal';
      }
      if (result.outcome === 'coalesced') stats.coalesced += 1;
      else stats.queued += 1;
      if (result.entry) local.set(result.entry.id, result.entry);
      kick();
      return result.outcome;
    },

    async discard(secureId, reason) {
      closed.add(secureId);
      for (const entry of await store.discard(secureId)) {
        stats.dropped += 1;
        local.delete(entry.id);
        record(entry, 'update_dropped', `${describePatch(entry.patch)} dropped: ${reason}`);
        void emitter.emit('dropped', { entry, reason });
      }
    },

    isClosed: (secureId) => closed.has(secureId),

    pending(secureId) {
      return [...local.values()]
        .filter((e) => secureId === undefined || e.secureId === secureId)
        .sort((a, b) => a.id - b.id)
        .map((e) => ({ ...e, patch: { ...e.patch } }));
    },

    async idle() {
      while (sends.size > 0 || polling) {
        await Promise.allSettled([...sends]);
        await polling?.catch(() => undefined);
      }
    },

    async drained() {
      while (local.size > 0) {
        kick();
        await new Promise<void>((resolve) => scheduler.setTimer(resolve, pollMs));
        await outbox.idle();
      }
    },

    on: (name, listener) => emitter.on(name, listener),

    get stats() {
      return { ...stats };
    },
  };
  return outbox;
}
