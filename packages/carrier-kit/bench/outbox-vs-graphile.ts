/**
 * The shared PostgreSQL outbox beside graphile-worker 0.18 (the anchor), on one PostgreSQL server, in
 * one run. The workload is the same for both: an HTTP service on loopback that answers every update after
 * SERVICE_MS, one named queue per order (graphile-worker's `queueName`; our outbox keeps an order's
 * updates in series by itself), 16 updates in flight per worker, ORDERS orders × 5 updates, with 1 and 3
 * replicas (workers with their own pool, in this process). The anchor is tuned as its docs advise:
 * `localQueue.size` 500 and batched completion (`completeJobBatchDelay` 0). Two ways to load:
 *   - drained: every update queued first (one call per update), then the workers start; the drain is timed;
 *   - live: the workers run while the updates are queued; timed from the first call to the last answer.
 * The database server's CPU (its processes' /proc/<pid>/stat) is read around each timed phase. Each round
 * runs every case for both systems (in turns, on fresh databases), and the ratios are paired by round:
 * the machine is shared, so compare ratios, not absolute figures.
 * Then the claim's cost as history grows: buffers one claim touches (EXPLAIN (ANALYZE, BUFFERS)) with
 * 0, 10,000 and 100,000 settled updates kept, and a pruning round over the largest history.
 *
 *   npm run bench -w @restoapi/carrier-kit                      (2000 orders × 5, 3 rounds)
 *   BENCH_QUICK=1 npm run bench -w @restoapi/carrier-kit        (300 orders × 5, 1 round)
 *   BENCH_ORDERS=… BENCH_ROUNDS=… BENCH_SERVICE_MS=…            (any size)
 *   BENCH_CASES=live/1,drained/3                                (some cases only, and no history part)
 */
import { createServer, Agent, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { Logger, makeWorkerUtils, run, runMigrations, type Runner, type WorkerUtils } from 'graphile-worker';
import { createSharedOutbox, type CarrierApi, type DeliveryUpdate, type Outbox } from '../src/index.js';
import { createPostgresOutboxStore, migrate } from '../src/postgres.js';
import { OUTBOX_SQL } from '../src/postgres/sql.js';
import { postgresUnavailable, startPostgres, type TestPostgres } from '../../../scripts/testing/postgres.js';

const QUICK = process.env.BENCH_QUICK === '1';
const ORDERS = Number(process.env.BENCH_ORDERS ?? (QUICK ? 300 : 2000));
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? (QUICK ? 1 : 3));
const SERVICE_MS = Number(process.env.BENCH_SERVICE_MS ?? 2);
const IN_FLIGHT = 16;
const STEPS = ['courier_assigned', 'courier_assigned', 'delivering', 'delivering', 'delivered'] as const;
const UPDATES = ORDERS * STEPS.length;
/** Orders queued at once by the callers (each order's updates one after another). */
const CALLERS = 64;
const TICKS = 100; // USER_HZ of /proc/<pid>/stat on Linux

/** The update number `step` (1-based) of an order: the step rides in `courier_name`, for the order check. */
const patchOf = (step: number): DeliveryUpdate =>
  ({ status: STEPS[step - 1], courier_name: `update ${step}` }) as DeliveryUpdate;

/** The service: answers each PUT after SERVICE_MS; counts the updates and those that came out of order. */
interface Service {
  url: string;
  received: number;
  outOfOrder: number;
  reset(): void;
  close(): Promise<void>;
}

async function startService(): Promise<Service> {
  const last = new Map<string, number>();
  const service = {
    url: '',
    received: 0,
    outOfOrder: 0,
    reset() {
      last.clear();
      service.received = 0;
      service.outOfOrder = 0;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      setTimeout(() => {
        const order = req.url!.split('/')[2]!;
        const step = Number((JSON.parse(body) as { courier_name: string }).courier_name.split(' ')[1]);
        if (step !== (last.get(order) ?? 0) + 1) service.outOfOrder += 1;
        last.set(order, Math.max(step, last.get(order) ?? 0));
        service.received += 1;
        res.writeHead(204).end();
      }, SERVICE_MS);
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  service.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return service;
}

const agent = new Agent({ keepAlive: true, maxSockets: 256 });

/** PUT /orders/{secure_id}/delivery: the same call for both systems. */
function put(base: string, secureId: string, patch: DeliveryUpdate): Promise<void> {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(patch);
    const req = request(
      `${base}/orders/${secureId}/delivery`,
      {
        method: 'PUT',
        agent,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () =>
          res.statusCode! < 300
            ? resolve()
            : reject(Object.assign(new Error(`HTTP ${res.statusCode}`), { status: res.statusCode })),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** CPU seconds the server's processes used so far: the live ones, and the backends that ended (cutime). */
function serverCpuSeconds(server: TestPostgres): number {
  let ticks = 0;
  const [main, ...children] = server.pids();
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

/** Queues every update, CALLERS orders at a time, each order's updates in sequence. */
async function queueAll(enqueue: (order: number, step: number) => Promise<unknown>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: CALLERS }, async () => {
      while (next < ORDERS) {
        const order = next++;
        for (let step = 1; step <= STEPS.length; step += 1) await enqueue(order, step);
      }
    }),
  );
}

async function untilReceived(service: Service): Promise<void> {
  while (service.received < UPDATES) await new Promise((resolve) => setTimeout(resolve, 2));
}

type Mode = 'drained' | 'live';

/** A system under test: queue with `enqueue`, send once `start` ran, `stop` ends it. */
interface System {
  enqueue(order: number, step: number): Promise<unknown>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

async function ours(url: string, service: Service, replicas: number): Promise<System> {
  await migrate({ connectionString: url });
  const api: CarrierApi = {
    getOrder: () => Promise.reject(new Error('not used')),
    updateDelivery: async (secureId, patch) => {
      await put(service.url, secureId, patch);
      return undefined;
    },
  };
  // As many connections per replica as graphile-worker has below: its WorkerUtils pool (addJob, pg's default
  // of 10) and its runner's (maxPoolSize 10).
  const pools = Array.from({ length: replicas }, () => new pg.Pool({ connectionString: url, max: 20 }));
  const stores = pools.map((pool, index) => createPostgresOutboxStore({ pool, owner: `replica-${index + 1}` }));
  const outboxes: Outbox[] = stores.map((store) =>
    createSharedOutbox({ api, store, batch: IN_FLIGHT, retry: { initialDelayMs: 50, maxDelayMs: 200 } }),
  );
  let started = false;
  return {
    enqueue(order, step) {
      const index = order % replicas;
      const patch = patchOf(step);
      if (started) return outboxes[index]!.enqueue(`order-${order}`, patch);
      // Before the start: straight into the store, as a replica would have queued them before a restart.
      return stores[index]!.enqueue({
        secureId: `order-${order}`,
        kind: 'status',
        patch,
        terminal: step === STEPS.length,
        minIntervalMs: 0,
      });
    },
    async start() {
      started = true;
      await Promise.all(outboxes.map((outbox) => outbox.start()));
    },
    async stop() {
      await Promise.all(outboxes.map((outbox) => outbox.stop()));
      await Promise.all(pools.map((pool) => pool.end()));
    },
  };
}

const quiet = new Logger(() => () => undefined);

async function graphile(url: string, service: Service, replicas: number): Promise<System> {
  await runMigrations({ connectionString: url, logger: quiet });
  const utils: WorkerUtils[] = [];
  for (let i = 0; i < replicas; i += 1) utils.push(await makeWorkerUtils({ connectionString: url, logger: quiet }));
  const runners: Runner[] = [];
  return {
    enqueue(order, step) {
      return utils[order % replicas]!.addJob(
        'send',
        { secureId: `order-${order}`, patch: patchOf(step) },
        { queueName: `order-${order}` },
      );
    },
    async start() {
      for (let i = 0; i < replicas; i += 1)
        runners.push(
          await run({
            logger: quiet,
            noHandleSignals: true,
            taskList: {
              send: async (payload) => {
                const { secureId, patch } = payload as { secureId: string; patch: DeliveryUpdate };
                await put(service.url, secureId, patch);
              },
            },
            preset: {
              worker: {
                connectionString: url,
                concurrentJobs: IN_FLIGHT,
                maxPoolSize: 10,
                pollInterval: 250,
                localQueue: { size: 500 },
                completeJobBatchDelay: 0,
                failJobBatchDelay: 0,
              },
            },
          }),
        );
    },
    async stop() {
      await Promise.all(runners.map((runner) => runner.stop()));
      await Promise.all(utils.map((u) => u.release()));
    },
  };
}

interface Measure {
  rate: number;
  cpuMsPerUpdate: number;
  outOfOrder: number;
}

async function measure(
  server: TestPostgres,
  service: Service,
  make: typeof ours,
  name: string,
  mode: Mode,
  replicas: number,
): Promise<Measure> {
  const url = await server.createDatabase(`${name}_${mode}_${replicas}_${Date.now()}`);
  service.reset();
  const system = await make(url, service, replicas);
  let started: number;
  let cpu: number;
  if (mode === 'drained') {
    await queueAll(system.enqueue);
    // The backlog's statistics and visibility map made now, for both systems alike: otherwise autovacuum
    // works on what the queueing wrote at some point of the drain, or not, depending on how long queueing took.
    await settleTables(url);
    cpu = serverCpuSeconds(server);
    started = performance.now();
    await system.start();
  } else {
    await system.start();
    cpu = serverCpuSeconds(server);
    started = performance.now();
    await queueAll(system.enqueue);
  }
  await untilReceived(service);
  const seconds = (performance.now() - started) / 1000;
  cpu = serverCpuSeconds(server) - cpu;
  await system.stop();
  return { rate: UPDATES / seconds, cpuMsPerUpdate: (cpu * 1000) / UPDATES, outOfOrder: service.outOfOrder };
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
const service = await startService();
const only = process.env.BENCH_CASES?.split(',');
const cases = (['drained', 'live'] as const)
  .flatMap((mode) => [1, 3].map((replicas) => ({ mode, replicas })))
  .filter(({ mode, replicas }) => !only || only.includes(`${mode}/${replicas}`));
const results = new Map<string, { ours: Measure[]; anchor: Measure[] }>();
try {
  for (let round = 0; round < ROUNDS; round += 1) {
    for (const { mode, replicas } of cases) {
      const key = `${mode}/${replicas}`;
      const entry = results.get(key) ?? { ours: [], anchor: [] };
      results.set(key, entry);
      // Turns: who goes first changes each round, so a slow spell of the shared machine hits both.
      const order = (round + replicas) % 2 === 0 ? (['ours', 'anchor'] as const) : (['anchor', 'ours'] as const);
      for (const who of order) {
        const m = await measure(server, service, who === 'ours' ? ours : graphile, who, mode, replicas);
        entry[who].push(m);
        console.error(
          `round ${round + 1} ${key} ${who}: ${m.rate.toFixed(0)} updates/s, ${m.cpuMsPerUpdate.toFixed(3)} DB CPU ms/update, ${m.outOfOrder} out of order`,
        );
      }
    }
  }

  console.log(
    `\n${ORDERS} orders × ${STEPS.length} updates, service answers after ${SERVICE_MS} ms, ${IN_FLIGHT} in flight per worker, ${ROUNDS} round${ROUNDS > 1 ? 's' : ''}: median (range) by round\n`,
  );
  console.log(
    '| load | replicas | ours updates/s | graphile-worker tuned updates/s | throughput ours / anchor | DB CPU ms/update ours | anchor | DB CPU ours / anchor | out of order ours / anchor |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const { mode, replicas } of cases) {
    const { ours: o, anchor: a } = results.get(`${mode}/${replicas}`)!;
    const ratio = (f: (m: Measure) => number): number[] => o.map((m, i) => f(m) / f(a[i]!));
    console.log(
      `| ${mode === 'drained' ? 'queued, then drained' : 'queued while sending'} | ${replicas} | ${spread(
        o.map((m) => m.rate),
        0,
      )} | ${spread(
        a.map((m) => m.rate),
        0,
      )} | ${spread(ratio((m) => m.rate))}× | ${spread(
        o.map((m) => m.cpuMsPerUpdate),
        3,
      )} | ${spread(
        a.map((m) => m.cpuMsPerUpdate),
        3,
      )} | ${spread(ratio((m) => m.cpuMsPerUpdate))}× | ${o.reduce((n, m) => n + m.outOfOrder, 0)} / ${a.reduce(
        (n, m) => n + m.outOfOrder,
        0,
      )} |`,
    );
  }

  if (!only) {
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
  await service.close();
  agent.destroy();
  await server.stop();
}
