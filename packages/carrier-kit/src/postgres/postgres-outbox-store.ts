import type pg from 'pg';
import type { DeliveryUpdate } from '../carrier-api/carrier-api.js';
import type { OutboxEntry, SharedEnqueueResult, SharedOutboxStore } from '../outbox/outbox-store.js';
import { inTransaction, openPool, replicaName, type PostgresConnectionOptions } from './connection.js';
import { OUTBOX_SQL } from './sql.js';

/** Options of {@link createPostgresOutboxStore}. */
export interface PostgresOutboxStoreOptions extends PostgresConnectionOptions {
  /** This replica's name in leases (default: host, pid and a random part). */
  owner?: string;
  /** How long a claimed update stays with this replica before another may send it (default 30 s). */
  leaseMs?: number;
  /** How long settled updates (sent, refused, dropped) stay in the table, for audits (default 24 h). */
  keepMs?: number;
  /**
   * Most claimed updates waiting in this replica's local queue (default 64): one claim fills it. A claim
   * holds its orders' rows while it runs; other replicas' claims pass over them (128 measured no faster).
   */
  prefetch?: number;
  /** The local queue is filled again when it holds fewer than this (default 32). */
  refillBelow?: number;
  /** After a claim that found fewer due orders than it asked for, the next waits this long unless woken (default 100 ms). */
  idleMs?: number;
  /** A wake-up (a NOTIFY, an update queued here) claims after this delay, so one claim takes what came meanwhile (default 5 ms). */
  wakeDelayMs?: number;
  /** How often a replica prunes the settled updates older than `keepMs` (default 60 s). */
  pruneEveryMs?: number;
  /** Wake the other replicas with NOTIFY when an idle order gets an update (default true). */
  notify?: boolean;
}

interface EntryRow {
  id: string;
  secure_id: string;
  order_id: number | null;
  kind: 'status' | 'position';
  patch: DeliveryUpdate;
  attempts: number;
  last_error: string | null;
  created_ms: number;
  not_before_ms: number;
}

function toEntry(row: EntryRow): OutboxEntry {
  return {
    id: Number(row.id),
    secureId: row.secure_id,
    ...(row.order_id !== null ? { orderId: row.order_id } : {}),
    kind: row.kind,
    patch: row.patch,
    createdAt: row.created_ms,
    attempts: row.attempts,
    notBefore: row.not_before_ms,
    ...(row.last_error !== null ? { lastError: row.last_error } : {}),
  };
}

type Outcome = 'sent' | 'rejected' | 'retry';

interface Settle {
  id: number;
  outcome: Outcome;
  delayMs: number;
  error: string | null;
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** The rest of an order's run this replica claimed: its updates not handed out yet, and the lease on them. */
interface Run {
  rest: OutboxEntry[];
  /** The last update of the run: the lease's end (`lease_id`), which names the lease in statements. */
  end: number;
  /** When the lease was taken or last renewed (this process's clock). */
  leasedAt: number;
}

/** An update in the middle of a run, marked sent or refused; its run goes on once the mark committed. */
interface Step extends Settle {
  run: Run;
}

/**
 * Most settles written in one statement. Queueing no longer waits for a settle; waiting for more answers
 * before writing (16, or 2 ms) measured no cheaper and slower with 3 replicas, so a settle goes at once.
 */
const SETTLE_BATCH = 32;
/** Most statuses queued in one transaction (those queued meanwhile wait for the next). */
const STATUS_BATCH = 64;
/** Most settled rows one prune statement deletes; a prune repeats it while it deletes full batches. */
const PRUNE_BATCH = 5000;

/**
 * Runs `write` once the current tick is over (so what comes in the same tick joins its batch), one write at a
 * time, and again after each while `more()` says something is waiting.
 */
function batchWriter(write: () => Promise<void>, more: () => boolean) {
  let running: Promise<void> | undefined;
  let queued = false;
  const schedule = (): void => {
    if (running || queued) return;
    queued = true;
    setImmediate(() => {
      queued = false;
      running = write().finally(() => {
        running = undefined;
        if (more()) schedule();
      });
    });
  };
  return { schedule, writing: (): Promise<void> | undefined => running };
}

/**
 * Creates the PostgreSQL outbox store, shared by every replica of a carrier service: one row per
 * delivery update and one per order; the order's row carries its lease and due time, so each update is
 * sent by one replica at a time, an order's updates go out in order, and a dead replica's updates are
 * taken over when its lease runs out. Each replica claims due orders in batches into a local queue
 * (the longest waiting first), each with its run of due updates, sent one after another: an update in
 * the middle of a run is only marked (the next goes out once the mark committed), and the statement that
 * settles a run's last update moves the order on to its next one. Answers are written in batches. Apply
 * the schema first with `migrate`.
 * @example
 * const agent = createCarrierAgent({ baseUrl, outboxStore: createPostgresOutboxStore({ pool }) });
 */
export function createPostgresOutboxStore(options: PostgresOutboxStoreOptions): SharedOutboxStore {
  const { pool, owned } = openPool(options, 'createPostgresOutboxStore');
  const owner = options.owner ?? replicaName();
  const leaseMs = options.leaseMs ?? 30_000;
  const keepMs = options.keepMs ?? 24 * 60 * 60 * 1000;
  const prefetch = options.prefetch ?? 64;
  const refillBelow = Math.min(options.refillBelow ?? 32, prefetch);
  const idleMs = options.idleMs ?? 100;
  const wakeDelayMs = options.wakeDelayMs ?? 5;
  const pruneEveryMs = options.pruneEveryMs ?? 60_000;
  const notify = options.notify ?? true;
  // Named statements are parsed and planned once per connection, not on every call.
  const named = (key: keyof typeof OUTBOX_SQL, values: unknown[]): pg.QueryConfig => ({
    name: `carrier_kit_outbox_${key}`,
    text: OUTBOX_SQL[key],
    values,
  });
  const query = async <R extends pg.QueryResultRow>(key: keyof typeof OUTBOX_SQL, values: unknown[]): Promise<R[]> =>
    (await pool.query<R>(named(key, values))).rows;

  /** Claimed updates not handed out yet, the longest waiting first, with when they were leased. */
  const queue: { entry: OutboxEntry; leasedAt: number }[] = [];
  /**
   * The runs of the orders this replica holds, by the id of the update of theirs handed out (or waiting in
   * the queue): one update of an order at a time, the next once the last one's answer is written.
   */
  const runs = new Map<number, Run>();
  /** Set by `release`: a settle no longer takes an order's next update, nor a step its run's. */
  let stopping = false;
  let refilling: Promise<void> | undefined;
  /** No claim before this time: the last one took every due order (a wake-up or `idleMs` later, the next one asks). */
  let idleUntil = 0;
  let wakeTimer: ReturnType<typeof setTimeout> | undefined;
  let prunedAt = Number.NEGATIVE_INFINITY;
  let pruning: Promise<void> | undefined;
  const settles: Settle[] = [];
  let listener: pg.PoolClient | undefined;
  const wakes = new Set<() => void>();

  /** Queues the heads of the orders claimed or moved on; the rest of a claimed run waits for its head's answer. */
  const queueEntries = (rows: EntryRow[]): void => {
    const now = Date.now();
    let run: Run | undefined;
    for (const [i, row] of rows.entries()) {
      const entry = toEntry(row);
      if (rows[i - 1]?.secure_id === row.secure_id) {
        run!.rest.push(entry);
        run!.end = entry.id;
        continue;
      }
      queue.push({ entry, leasedAt: now });
      run = { rest: [], end: entry.id, leasedAt: now };
      if (rows[i + 1]?.secure_id === row.secure_id) runs.set(entry.id, run);
    }
  };

  const refill = async (): Promise<void> => {
    const room = prefetch - queue.length;
    if (room <= 0) return;
    const rows = await query<EntryRow>('claim', [owner, leaseMs, room]);
    if (rows.length < room) idleUntil = Date.now() + idleMs;
    queueEntries(rows);
  };

  const prune = async (): Promise<void> => {
    // A few batches per round, so a long history is worked off over several rounds, not in one long burst.
    for (let round = 0; round < 20; round += 1) {
      const [result] = await query<{ updates: number }>('prune', [keepMs, PRUNE_BATCH]);
      if ((result?.updates ?? 0) < PRUNE_BATCH) return;
    }
  };

  const flush = async (): Promise<void> => {
    const batch = settles.splice(0, SETTLE_BATCH);
    try {
      const ids = batch.map((s) => s.id);
      const rows = await query<EntryRow>('settle', [
        ids,
        batch.map((s) => s.outcome),
        batch.map((s) => s.delayMs),
        batch.map((s) => s.error),
        owner,
        leaseMs,
        // Always: each order moved on replaces the update just settled, so the local queue and the sends in
        // flight stay within what the last claim took. Leaving it to a claim when the queue was full (as
        // before) broke a third of the orders' chains when drained: each cost the order's re-check, a wake-up
        // and a claim more (57 claims and 1,633 updates through claims for 1,000 orders, now 37 and 1,000).
        // Not once the replica stops: nothing would send them, and the orders would wait for the lease to run out.
        !stopping,
      ]);
      queueEntries(rows);
      for (const s of batch) s.resolve();
    } catch (error) {
      for (const s of batch) s.reject(error);
    }
  };

  /** Writes the settles gathered so far in one transaction; those that come meanwhile wait for the next. */
  const settleWriter = batchWriter(flush, () => settles.length > 0);

  const steps: Step[] = [];

  /**
   * Writes the marks of updates in the middle of their runs in one statement, then queues each run's next
   * update, when the store says this replica may still send it; a run whose lease is a quarter gone is
   * renewed first (an update that waits in the local queue past half its lease is dropped as stale, so the
   * next update of a run must start well within it). A run that may not go on (its lease ran out, or a
   * discard dropped the rest) is given back.
   */
  const flushSteps = async (): Promise<void> => {
    const batch = steps.splice(0, SETTLE_BATCH);
    try {
      // The runs to renew, by the end of their lease (what the statement answers).
      const aging = new Map(
        batch.filter((s) => Date.now() - s.run.leasedAt > leaseMs / 4).map((s) => [s.run.end, s.run]),
      );
      const lost = new Set<Run>(aging.values());
      if (aging.size > 0) {
        const renewedAt = Date.now();
        for (const row of await query<{ lease_id: string }>('renew', [owner, leaseMs, [...aging.keys()]])) {
          const run = aging.get(Number(row.lease_id))!;
          run.leasedAt = renewedAt;
          lost.delete(run);
        }
      }
      const rows = await query<{ id: string }>('step', [
        batch.map((s) => s.id),
        batch.map((s) => s.outcome),
        batch.map((s) => s.error),
        owner,
        batch.map((s) => s.run.rest[0]!.id),
      ]);
      const allowed = new Set(rows.map((row) => Number(row.id)));
      const giveBack: number[] = [];
      for (const { run } of batch) {
        const next = run.rest.shift()!;
        if (stopping || lost.has(run) || !allowed.has(next.id)) {
          giveBack.push(run.end);
          continue;
        }
        queue.push({ entry: next, leasedAt: run.leasedAt });
        if (run.rest.length > 0) runs.set(next.id, run);
      }
      for (const s of batch) s.resolve();
      // After the answers: a failure here only leaves the leases to run out.
      if (giveBack.length > 0) await query('release', [owner, giveBack]).catch(() => undefined);
    } catch (error) {
      for (const s of batch) s.reject(error);
    }
  };

  const stepWriter = batchWriter(flushSteps, () => steps.length > 0);

  /** Something may be due: the next claim goes to the database, after `wakeDelayMs`, and the outbox is told. */
  const nudge = (): void => {
    if (wakeTimer) return;
    wakeTimer = setTimeout(() => {
      wakeTimer = undefined;
      idleUntil = 0;
      for (const wake of wakes) wake();
    }, wakeDelayMs);
  };

  /** Listens for wake-ups on a connection of its own; a lost one is replaced at the next claim (polls cover the gap). */
  const subscribe = async (): Promise<void> => {
    if (listener || !notify || wakes.size === 0) return;
    const client = await pool.connect();
    listener = client;
    client.on('notification', nudge);
    client.on('error', (error) => {
      if (listener === client) listener = undefined;
      client.release(error);
    });
    await client.query(OUTBOX_SQL.listen);
  };

  /**
   * An update in the middle of its run, sent or refused, is a step (the next goes out once it is written); the
   * last of a run, an update alone and a retry are settled, which ends or moves on the order's lease.
   */
  const settle = (id: number, outcome: Outcome, delayMs: number, error: string | null): Promise<void> =>
    new Promise((resolve, reject) => {
      const run = runs.get(id);
      runs.delete(id);
      if (run && outcome !== 'retry' && !stopping) {
        steps.push({ id, outcome, delayMs, error, resolve, reject, run });
        stepWriter.schedule();
        return;
      }
      settles.push({ id, outcome, delayMs, error, resolve, reject });
      settleWriter.schedule();
    });

  type Update = Parameters<SharedOutboxStore['enqueue']>[0];
  type EnqueueRow = EntryRow & {
    outcome: SharedEnqueueResult['outcome'] | 'deferred';
    folded?: boolean;
    woke: boolean;
  };

  const toResult = (row: EnqueueRow): SharedEnqueueResult => {
    // This replica claims soon only when the order needs one sooner (new, or idle until now); otherwise the
    // settle of the update in flight or the claim of the due order takes it on.
    if (row.woke) {
      idleUntil = 0; // the next claim of this replica asks the database, even before the wake-up fires
      nudge();
    }
    // (`deferred` never gets here: enqueue queues it again, alone.)
    if (row.outcome !== 'queued') return { outcome: row.outcome as SharedEnqueueResult['outcome'] };
    return { outcome: 'queued', entry: toEntry(row), ...(row.folded ? { foldedPosition: true } : {}) };
  };

  /** Queues one update in its own transaction (a position, a deferred final status, or a batch that failed). */
  const enqueueOne = async (update: Update): Promise<EnqueueRow> => {
    const [row] = await query<EnqueueRow>('enqueue', [
      update.secureId,
      update.orderId ?? null,
      update.kind,
      update.patch,
      update.terminal,
      owner,
      update.minIntervalMs,
      notify,
    ]);
    return row!;
  };

  /** Statuses waiting for the next batch, and whether one is being written. */
  const statuses: { update: Update; resolve: (row: EnqueueRow) => void; reject: (error: unknown) => void }[] = [];
  let writingStatuses = false;

  /**
   * Writes the statuses queued so far in one transaction (group commit: the callers that came meanwhile
   * share one round trip and one commit); each caller is answered once the batch committed. A batch that
   * fails is written again one update at a time, so one bad update fails alone.
   */
  const writeStatuses = async (): Promise<void> => {
    writingStatuses = true;
    try {
      while (statuses.length > 0) {
        const batch = statuses.splice(0, STATUS_BATCH);
        try {
          const rows = await query<EnqueueRow & { ord: number }>('enqueueStatuses', [
            batch.map((b) => b.update.secureId),
            batch.map((b) => b.update.orderId ?? null),
            batch.map((b) => b.update.patch),
            batch.map((b) => b.update.terminal),
            owner,
            notify,
          ]);
          for (const row of rows) batch[row.ord - 1]!.resolve(row);
        } catch {
          for (const b of batch) enqueueOne(b.update).then(b.resolve, b.reject);
        }
      }
    } finally {
      writingStatuses = false;
    }
  };

  const queueStatus = (update: Update): Promise<EnqueueRow> =>
    new Promise((resolve, reject) => {
      statuses.push({ update, resolve, reject });
      if (!writingStatuses) setImmediate(() => void (writingStatuses ? undefined : writeStatuses()));
    });

  return {
    shared: true,
    owner,
    leaseMs,
    async enqueue(update) {
      const result = update.kind === 'status' ? await queueStatus(update) : await enqueueOne(update);
      if (result.outcome === 'deferred') return toResult(await enqueueOne(update));
      return toResult(result);
    },
    async claim(limit) {
      // Each replica trims the settled rows about once a minute, in the background.
      if (!pruning && Date.now() - prunedAt > pruneEveryMs) {
        prunedAt = Date.now();
        pruning = prune()
          .catch(() => undefined) // tried again next round
          .finally(() => (pruning = undefined));
      }
      // An update that waited in the local queue for half its lease is left to whoever claims its order
      // next: sent this late, it could go out after another replica already sent the update following it.
      // The queue is in the order its updates were leased (claims and settles append), so the stale ones lead.
      const fresh = Date.now() - leaseMs / 2;
      let stale = 0;
      while (stale < queue.length && queue[stale]!.leasedAt < fresh) stale += 1;
      for (const { entry } of queue.splice(0, stale)) runs.delete(entry.id);
      if (!listener && wakes.size > 0) void subscribe().catch(() => undefined);
      if (queue.length < refillBelow && !refilling && Date.now() >= idleUntil) {
        refilling = refill().finally(() => (refilling = undefined));
        refilling.catch(() => undefined); // a claim that waits for it sees the error
      }
      if (queue.length === 0 && refilling) await refilling;
      return queue.splice(0, limit).map((item) => item.entry);
    },
    markSent(id) {
      return settle(id, 'sent', 0, null);
    },
    markRetry(id, delayMs, error) {
      return settle(id, 'retry', delayMs, error);
    },
    markRejected(id, error) {
      return settle(id, 'rejected', 0, error);
    },
    discard(secureId) {
      return inTransaction(pool, async (client) => {
        await client.query(named('lockOrder', [secureId, null]));
        const dropped = (await client.query<EntryRow>(named('discard', [secureId]))).rows.map(toEntry);
        await client.query(named('close', [secureId]));
        await client.query(named('recheck', [secureId]));
        return dropped;
      });
    },
    async stillPending(ids) {
      if (ids.length === 0) return new Set();
      return new Set((await query<{ id: string }>('stillPending', [ids])).map((row) => Number(row.id)));
    },
    async pending(secureId) {
      return (await query<EntryRow>('pending', [secureId ?? null])).map(toEntry);
    },
    async listen(wake) {
      stopping = false; // an outbox started again over this store
      wakes.add(wake);
      await subscribe();
    },
    async release() {
      stopping = true;
      wakes.clear();
      clearTimeout(wakeTimer);
      wakeTimer = undefined;
      const client = listener;
      listener = undefined;
      if (client) {
        client.removeAllListeners('notification');
        await client.query(OUTBOX_SQL.unlisten).catch(() => undefined);
        client.release();
      }
      await refilling?.catch(() => undefined);
      const unsent = queue.splice(0).map(({ entry }) => {
        const end = runs.get(entry.id)?.end ?? entry.id;
        runs.delete(entry.id);
        return end;
      });
      if (unsent.length > 0) await query('release', [owner, unsent]);
      await settleWriter.writing();
      await stepWriter.writing();
      await pruning;
    },
    async close() {
      if (owned) await pool.end();
    },
  };
}
