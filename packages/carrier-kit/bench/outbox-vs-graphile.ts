/**
 * The shared PostgreSQL outbox beside graphile-worker 0.18 (the anchor), on one PostgreSQL server, in
 * one run. The workload is the same for both: an HTTP service on loopback that answers every update after
 * SERVICE_MS, one named queue per order (graphile-worker's `queueName`; our outbox keeps an order's
 * updates in series by itself), 16 updates in flight per worker, ORDERS orders × 5 updates, with 1 and 3
 * replicas. The anchor is tuned as its docs advise: `localQueue.size` 500 and batched completion
 * (`completeJobBatchDelay` 0).
 *
 * Processes, as a deployment runs them: the service is a process of its own (outbox-vs-graphile/service.ts,
 * keep-alive HTTP), and so is every replica of either system (outbox-vs-graphile/replica.ts: its own pool
 * of 20 connections; it queues its share of the orders, `order % replicas`, and sends them). This process
 * only drives them over IPC, makes the databases and reads the clocks; no HTTP or queue work runs in it.
 * Two ways to load:
 *   - drained: every update queued first (one call per update), then the workers start; the drain is timed;
 *   - live: the workers run while the updates are queued; timed from the first call to the last answer.
 * A third system, `bound`, has no queue: each replica sends the same updates from memory with the same HTTP
 * call, the ceiling of any queue on this machine (a ratio to the anchor it does not reach, no queue can).
 * The CPU of the database server's processes, the replicas' and the service's (/proc/<pid>/stat) is read
 * around each timed phase, and a second table splits each update's CPU among them, beside the busiest
 * replica's CPU and its main thread's time waiting for a core (/proc/<pid>/schedstat) over the wall time:
 * near 100 together, that replica never idles, and whether it waits or runs says if the machine's cores or
 * its own thread hold the drain. Each round
 * runs every case for both systems (in turns, on fresh databases), and the ratios are paired by round:
 * the machine is shared, so compare ratios, not absolute figures.
 * Then the claim's cost as history grows: buffers one claim touches (EXPLAIN (ANALYZE, BUFFERS)) with
 * 0, 10,000 and 100,000 settled updates kept, and a pruning round over the largest history.
 *
 *   npm run bench -w @restoapi/carrier-kit                      (2000 orders × 5, 3 rounds)
 *   BENCH_QUICK=1 npm run bench -w @restoapi/carrier-kit        (300 orders × 5, 1 round)
 *   BENCH_ORDERS=… BENCH_ROUNDS=… BENCH_SERVICE_MS=…            (any size)
 *   BENCH_CASES=live/1,drained/3                                (some cases only; `history` for the claim's cost)
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { Logger, runMigrations } from 'graphile-worker';
import { createPostgresOutboxStore, migrate } from '../src/postgres.js';
import { OUTBOX_SQL } from '../src/postgres/sql.js';
import { postgresUnavailable, startPostgres, type TestPostgres } from '../../../scripts/testing/postgres.js';
import { IN_FLIGHT, STEPS, forkChild, type Child } from './outbox-vs-graphile/common.js';
import type { ReplicaSetup } from './outbox-vs-graphile/replica.js';

const QUICK = process.env.BENCH_QUICK === '1';
const ORDERS = Number(process.env.BENCH_ORDERS ?? (QUICK ? 300 : 2000));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 1 : 3));
const SERVICE_MS = Number(process.env.BENCH_SERVICE_MS ?? 2);
const UPDATES = ORDERS * STEPS.length;
/** Orders queued at once by the callers, shared out among the replicas (each order's updates in sequence). */
const CALLERS = 64;
const TICKS = 100; // USER_HZ of /proc/<pid>/stat on Linux

/** CPU seconds the server's processes used so far: the live ones, and the backends that ended (cutime). */
const serverCpuSeconds = (server: TestPostgres): number => cpuSeconds(server.pids());

/**
 * Seconds the main thread of process `pid` spent runnable but waiting for a core so far (the second field of
 * /proc/<pid>/schedstat, in ns): the time the machine's other work kept it from running.
 */
function runDelaySeconds(pid: number): number {
  try {
    return Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]) / 1e9;
  } catch {
    return Number.NaN; // a kernel without scheduler statistics: the column reads "NaN"
  }
}

/** CPU seconds the processes `pids` used so far; the first one's ended children counted too. */
function cpuSeconds(pids: number[]): number {
  let ticks = 0;
  const [main, ...children] = pids;
  for (const pid of [main!, ...children]) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      ticks += Number(fields[11]) + Number(fields[12]);
      if (pid === main) ticks += Number(fields[13]) + Number(fields[14]);
    } catch {
      // a backend that ended between the listing and the read: its time is in the postmaster's cutime
    }
  }
  return ticks / TICKS;
}

type Mode = 'drained' | 'live';
/** `bound`: no queue, the updates sent from memory with the same HTTP call (the ceiling; see replica.ts). */
type Who = 'ours' | 'anchor' | 'bound';

const quiet = new Logger(() => () => undefined);

interface Measure {
  rate: number;
  cpuMsPerUpdate: number;
  /** CPU the replicas' processes used per update (their HTTP client, pg and the queue's own work). */
  replicaMsPerUpdate: number;
  /** CPU the service's process used per update (the same work for every system). */
  serviceMsPerUpdate: number;
  /**
   * The busiest replica's CPU (all its threads) over the wall time, in %. With `replicaWaiting` it says what
   * holds the throughput: near 100 together, the replica's thread never idles (it runs, or waits for a core).
   */
  replicaBusy: number;
  /** The busiest replica's main thread's time runnable but waiting for a core, over the wall time, in %. */
  replicaWaiting: number;
  outOfOrder: number;
}

async function measure(
  server: TestPostgres,
  service: Child,
  serviceUrl: string,
  who: Who,
  mode: Mode,
  replicas: number,
): Promise<Measure> {
  const url = who === 'bound' ? '' : await server.createDatabase(`${who}_${mode}_${replicas}_${Date.now()}`);
  // The schema once, here, before the replicas start (as a deployment migrates before it rolls out).
  if (who === 'ours') await migrate({ connectionString: url });
  else if (who === 'anchor') await runMigrations({ connectionString: url, logger: quiet });
  await service.call('reset', UPDATES);
  const children = Array.from({ length: replicas }, () => forkChild('./replica.ts'));
  try {
    await Promise.all(
      children.map((child, index) =>
        child.call('init', {
          system: who,
          url,
          serviceUrl,
          index,
          replicas,
          orders: ORDERS,
          callers: Math.ceil(CALLERS / replicas),
        } satisfies ReplicaSetup),
      ),
    );
    const all = (cmd: string): Promise<void[]> => Promise.all(children.map((child) => child.call(cmd)));
    /** The clocks read around the timed phase: CPU seconds of each process, the replicas' waits for a core. */
    const clocks = () => ({
      at: performance.now(),
      db: serverCpuSeconds(server),
      replicas: children.map((child) => cpuSeconds([child.pid])),
      waits: children.map((child) => runDelaySeconds(child.pid)),
      service: cpuSeconds([service.pid]),
    });
    let before: ReturnType<typeof clocks>;
    if (mode === 'drained') {
      await all('queue');
      // The backlog's statistics and visibility map made now, for both systems alike: otherwise autovacuum
      // works on what the queueing wrote at some point of the drain, or not, depending on how long queueing took.
      if (url) await settleTables(url);
      before = clocks();
      await all('start');
    } else {
      await all('start');
      before = clocks();
      await all('queue');
    }
    const { outOfOrder } = await service.call<{ outOfOrder: number }>('wait');
    const after = clocks();
    await all('stop');
    const seconds = (after.at - before.at) / 1000;
    const used = after.replicas.map((cpu, i) => cpu - before.replicas[i]!);
    const busiest = used.indexOf(Math.max(...used));
    const perUpdate = (cpuSeconds: number): number => (cpuSeconds * 1000) / UPDATES;
    return {
      rate: UPDATES / seconds,
      cpuMsPerUpdate: perUpdate(after.db - before.db),
      replicaMsPerUpdate: perUpdate(used.reduce((sum, cpu) => sum + cpu, 0)),
      serviceMsPerUpdate: perUpdate(after.service - before.service),
      replicaBusy: (used[busiest]! / seconds) * 100,
      replicaWaiting: ((after.waits[busiest]! - before.waits[busiest]!) / seconds) * 100,
      outOfOrder,
    };
  } finally {
    await Promise.all(children.map((child) => child.kill()));
  }
}

/** VACUUM ANALYZE of the database at `url`. */
async function settleTables(url: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query('VACUUM ANALYZE');
  } finally {
    await client.end();
  }
}

/** Buffers one claim of `limit` orders touches (the statements of its function included), rolled back. */
async function claimBuffers(pool: pg.Pool, limit: number): Promise<number> {
  const client = await pool.connect();
  const buffers = async (text: string, values: unknown[]): Promise<number> => {
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: Record<string, number> }] }>(
      `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`,
      values,
    );
    const plan = rows[0]!['QUERY PLAN'][0].Plan;
    return (plan['Shared Hit Blocks'] ?? 0) + (plan['Shared Read Blocks'] ?? 0);
  };
  try {
    await client.query('BEGIN');
    // A first claim, undone, so the one measured runs on a warm session (its function compiled, its plans cached).
    await client.query('SAVEPOINT warm');
    await client.query(OUTBOX_SQL.claim, ['bench', 30_000, limit]);
    await client.query('ROLLBACK TO SAVEPOINT warm');
    return await buffers(OUTBOX_SQL.claim, ['bench', 30_000, limit]);
  } finally {
    await client.query('ROLLBACK');
    client.release();
  }
}

/**
 * The claim's cost with `history` settled updates kept (5 per finished order) beside 2000 orders × 5
 * pending ones, all written in bulk as the store writes them.
 */
async function claimCost(server: TestPostgres, history: number): Promise<{ claim16: number; claim64: number }> {
  const url = await server.createDatabase(`history_${history}_${Date.now()}`);
  await migrate({ connectionString: url });
  const pool = new pg.Pool({ connectionString: url, max: 2 });
  try {
    await pool.query(
      `INSERT INTO carrier_outbox_orders (secure_id, closed) SELECT 'done-' || g, true FROM generate_series(1, $1::int / 5) g`,
      [history],
    );
    await pool.query(
      `INSERT INTO carrier_outbox (secure_id, kind, patch, state, sent_at, sent_by, created_at)
       SELECT 'done-' || (g / 5 + 1), 'status', '{"status":"delivering"}', 'sent', now(), 'bench', now() - interval '1 hour'
       FROM generate_series(0, $1::int - 1) g`,
      [history],
    );
    await pool.query(
      `INSERT INTO carrier_outbox_orders (secure_id, due_at) SELECT 'live-' || g, now() - interval '1 minute' + g * interval '1 millisecond' FROM generate_series(1, 2000) g`,
    );
    await pool.query(
      `INSERT INTO carrier_outbox (secure_id, kind, patch) SELECT 'live-' || (g / 5 + 1), 'status', '{"status":"delivering"}' FROM generate_series(0, 9999) g`,
    );
    await pool.query('ANALYZE');
    return { claim16: await claimBuffers(pool, 16), claim64: await claimBuffers(pool, 64) };
  } finally {
    await pool.end();
  }
}

/** One pruning round of a store (keepMs 0) over `history` settled rows: rows left and seconds taken. */
async function pruneRound(
  server: TestPostgres,
  history: number,
): Promise<{ left: number; orders: number; seconds: number }> {
  const url = await server.createDatabase(`prune_${Date.now()}`);
  await migrate({ connectionString: url });
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  try {
    await pool.query(
      `INSERT INTO carrier_outbox_orders (secure_id, closed) SELECT 'done-' || g, true FROM generate_series(1, $1::int / 5) g`,
      [history],
    );
    await pool.query(
      `INSERT INTO carrier_outbox (secure_id, kind, patch, state, sent_at, created_at)
       SELECT 'done-' || (g / 5 + 1), 'status', '{}', 'sent', now(), now() - interval '1 hour'
       FROM generate_series(0, $1::int - 1) g`,
      [history],
    );
    const store = createPostgresOutboxStore({ pool, owner: 'pruner', keepMs: 60_000 });
    const started = performance.now();
    await store.claim(1); // the first claim of a store starts a pruning round in the background
    await store.release!();
    const seconds = (performance.now() - started) / 1000;
    const [left] = (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM carrier_outbox')).rows;
    const [orders] = (await pool.query<{ n: number }>('SELECT count(*)::int AS n FROM carrier_outbox_orders')).rows;
    return { left: left!.n, orders: orders!.n, seconds };
  } finally {
    await pool.end();
  }
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
const spread = (values: number[], digits = 2): string =>
  values.length === 1
    ? values[0]!.toFixed(digits)
    : `${median(values).toFixed(digits)} (${Math.min(...values).toFixed(digits)}–${Math.max(...values).toFixed(digits)})`;

const unavailable = postgresUnavailable();
if (unavailable) {
  console.log(`bench skipped: ${unavailable}`);
  process.exit(0);
}
const server = await startPostgres();
const service = forkChild('./service.ts');
const serviceUrl = await service.call<string>('url');
const only = process.env.BENCH_CASES?.split(',');
const cases = (['drained', 'live'] as const)
  .flatMap((mode) => [1, 3].map((replicas) => ({ mode, replicas })))
  .filter(({ mode, replicas }) => !only || only.includes(`${mode}/${replicas}`));
const results = new Map<string, Record<Who, Measure[]>>();
try {
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const { mode, replicas } of cases) {
      const key = `${mode}/${replicas}`;
      const entry = results.get(key) ?? { ours: [], anchor: [], bound: [] };
      results.set(key, entry);
      // Turns: who goes first changes each round, so a slow spell of the shared machine hits both.
      const order =
        (round + replicas) % 2 === 0 ? (['ours', 'anchor', 'bound'] as const) : (['anchor', 'ours', 'bound'] as const);
      for (const who of order) {
        const m = await measure(server, service, serviceUrl, who, mode, replicas);
        entry[who].push(m);
        console.error(
          `round ${round + 1} ${key} ${who}: ${m.rate.toFixed(0)} updates/s, ${m.cpuMsPerUpdate.toFixed(3)} DB CPU ms/update, ${m.replicaMsPerUpdate.toFixed(3)} replica CPU ms/update, ${m.serviceMsPerUpdate.toFixed(3)} service CPU ms/update, busiest replica ${m.replicaBusy.toFixed(0)}% busy and ${m.replicaWaiting.toFixed(0)}% waiting for a core, ${m.outOfOrder} out of order`,
        );
      }
    }
  }

  console.log(
    `\n${ORDERS} orders × ${STEPS.length} updates, service answers after ${SERVICE_MS} ms, ${IN_FLIGHT} in flight per worker, ${ROUNDS} round${ROUNDS > 1 ? 's' : ''}: median (range) by round\n`,
  );
  console.log(
    '| load | replicas | ours updates/s | graphile-worker tuned updates/s | throughput ours / anchor | DB CPU ms/update ours | anchor | DB CPU ours / anchor | replica CPU ms/update ours | anchor | service CPU ms/update ours | anchor | no queue (bound) updates/s | bound / anchor | out of order ours / anchor |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const { mode, replicas } of cases) {
    const { ours: o, anchor: a, bound: b } = results.get(`${mode}/${replicas}`)!;
    const ratio = (x: Measure[], f: (m: Measure) => number): number[] => x.map((m, i) => f(m) / f(a[i]!));
    const cells = [
      mode === 'drained' ? 'queued, then drained' : 'queued while sending',
      String(replicas),
      spread(
        o.map((m) => m.rate),
        0,
      ),
      spread(
        a.map((m) => m.rate),
        0,
      ),
      `${spread(ratio(o, (m) => m.rate))}×`,
      ...(['cpuMsPerUpdate'] as const).flatMap((k) => [
        spread(
          o.map((m) => m[k]),
          3,
        ),
        spread(
          a.map((m) => m[k]),
          3,
        ),
        `${spread(ratio(o, (m) => m[k]))}×`,
      ]),
      ...(['replicaMsPerUpdate', 'serviceMsPerUpdate'] as const).flatMap((k) => [
        spread(
          o.map((m) => m[k]),
          3,
        ),
        spread(
          a.map((m) => m[k]),
          3,
        ),
      ]),
      spread(
        b.map((m) => m.rate),
        0,
      ),
      `${spread(ratio(b, (m) => m.rate))}×`,
      `${o.reduce((n, m) => n + m.outOfOrder, 0)} / ${a.reduce((n, m) => n + m.outOfOrder, 0)}`,
    ];
    console.log(`| ${cells.join(' | ')} |`);
  }

  // Where the CPU of an update goes, per system: on a machine that CPU bounds (this one), throughput follows
  // the inverse of the whole, so `anchor / ours` below is the ratio the machine can give, whatever its load.
  console.log(
    '\nCPU per update (ms), DB + replicas + service = all, median (range) by round; all CPU anchor / system:\n',
  );
  console.log(
    '| load | replicas | system | DB | replicas | service | all | anchor / system | busiest replica: CPU / waiting for a core, % of wall |',
  );
  console.log('|---|---:|---|---:|---:|---:|---:|---:|---:|');
  const all = (m: Measure): number => m.cpuMsPerUpdate + m.replicaMsPerUpdate + m.serviceMsPerUpdate;
  for (const { mode, replicas } of cases) {
    const row = results.get(`${mode}/${replicas}`)!;
    for (const who of ['ours', 'anchor', 'bound'] as const) {
      const ms = row[who];
      const cells = [
        mode,
        String(replicas),
        who,
        ...(['cpuMsPerUpdate', 'replicaMsPerUpdate', 'serviceMsPerUpdate'] as const).map((k) =>
          spread(
            ms.map((m) => m[k]),
            3,
          ),
        ),
        spread(ms.map(all), 3),
        `${spread(ms.map((m, i) => all(row.anchor[i]!) / all(m)))}×`,
        `${spread(
          ms.map((m) => m.replicaBusy),
          0,
        )}% / ${spread(
          ms.map((m) => m.replicaWaiting),
          0,
        )}%`,
      ];
      console.log(`| ${cells.join(' | ')} |`);
    }
  }

  if (!only || only.includes('history')) {
    console.log('\nThe claim as history grows (2000 orders × 5 pending beside it), shared buffers touched:\n');
    console.log(
      '| settled updates kept | finished orders | claim of 16 orders | claim of 64 orders (a full local queue) |',
    );
    console.log('|---:|---:|---:|---:|');
    for (const history of [0, 10_000, 100_000]) {
      const cost = await claimCost(server, history);
      console.log(
        `| ${history.toLocaleString('en')} | ${(history / 5).toLocaleString('en')} | ${cost.claim16} | ${cost.claim64} |`,
      );
    }
    const pruned = await pruneRound(server, 100_000);
    console.log(
      `\nPruning: one round of a store over 100,000 settled updates of 20,000 finished orders older than keepMs left ${pruned.left} updates and ${pruned.orders} orders, in ${pruned.seconds.toFixed(2)} s.`,
    );
  }
} finally {
  await service.kill();
  await server.stop();
}
