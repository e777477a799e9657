/**
 * Delivery updates per second through the outbox: the file store (one process, the embedded default
 * that survives restarts) beside the PostgreSQL store with 1 and 3 replicas sharing one database, in one
 * run, with the database server's CPU time beside each row. The service answers in-process after
 * SERVICE_MS, so the figures are the outbox's and the store's, not a network's. Replicas are outboxes in
 * this process, each with its own pool and lease owner: the claims race in the database as they would
 * between processes. The PostgreSQL server is the tests' throw-away one (scripts/testing/postgres.ts).
 *
 *   npm run bench -w @restoapi/carrier-kit
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { createOutbox, createSharedOutbox, type CarrierApi, type Outbox } from '../src/index.js';
import { createFileOutboxStore } from '../src/node.js';
import { createPostgresOutboxStore, migrate } from '../src/postgres.js';
import { postgresUnavailable, startPostgres, type TestPostgres } from '../../../scripts/testing/postgres.js';
import { carrierOrder } from '../test/support/fake-carrier-api.js';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 300);
const SERVICE_MS = Number(process.env.BENCH_SERVICE_MS ?? 2);
const STATUSES = ['courier_assigned', 'delivering', 'delivered'] as const;
const UPDATES = ORDERS * STATUSES.length;
const TICKS = 100; // USER_HZ of /proc/<pid>/stat on Linux

/** A service that takes every update after `SERVICE_MS`, and counts them. */
function service(): CarrierApi & { sent: number } {
  const order = carrierOrder(1);
  const api = {
    sent: 0,
    async getOrder() {
      return order;
    },
    async updateDelivery() {
      await new Promise((resolve) => setTimeout(resolve, SERVICE_MS));
      api.sent += 1;
      return order;
    },
  };
  return api;
}

/** CPU seconds the server's processes used so far: the live ones, and the backends that ended (cutime). */
function serverCpuSeconds(server: TestPostgres): number {
  let ticks = 0;
  const [main, ...children] = server.pids();
  for (const pid of [main!, ...children]) {
    try {
      const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
      // utime, stime (fields 14, 15); cutime, cstime (16, 17) only for the postmaster, whose children they are.
      ticks += Number(fields[11]) + Number(fields[12]);
      if (pid === main) ticks += Number(fields[13]) + Number(fields[14]);
    } catch {
      // a backend that ended between the listing and the read: its time is in the postmaster's cutime
    }
  }
  return ticks / TICKS;
}

/** Queues every order's statuses spread over the outboxes, and waits until the service took them all. */
async function drive(outboxes: Outbox[], api: { sent: number }): Promise<number> {
  const started = performance.now();
  await Promise.all(
    Array.from({ length: ORDERS }, async (_, index) => {
      const outbox = outboxes[index % outboxes.length]!;
      for (const status of STATUSES) await outbox.enqueue(`order-${index}`, { status });
    }),
  );
  while (api.sent < UPDATES) await new Promise((resolve) => setTimeout(resolve, 5));
  return (performance.now() - started) / 1000;
}

interface Row {
  store: string;
  seconds: number;
  cpu: number | undefined;
}

async function fileRow(): Promise<Row> {
  const dir = mkdtempSync(path.join(tmpdir(), 'restoapi-bench-'));
  const api = service();
  const outbox = createOutbox({ api, store: createFileOutboxStore(path.join(dir, 'outbox.json')) });
  await outbox.start();
  const seconds = await drive([outbox], api);
  await outbox.stop();
  rmSync(dir, { recursive: true, force: true });
  return { store: 'file (1 process)', seconds, cpu: undefined };
}

async function postgresRow(server: TestPostgres, replicas: number): Promise<Row> {
  const url = await server.createDatabase(`bench_${replicas}_${Date.now()}`);
  await migrate({ connectionString: url });
  const api = service();
  const pools = Array.from({ length: replicas }, () => new pg.Pool({ connectionString: url, max: 10 }));
  const outboxes = pools.map((pool, index) =>
    createSharedOutbox({ api, store: createPostgresOutboxStore({ pool, owner: `replica-${index + 1}` }) }),
  );
  await Promise.all(outboxes.map((outbox) => outbox.start()));
  const before = serverCpuSeconds(server);
  const seconds = await drive(outboxes, api);
  const cpu = serverCpuSeconds(server) - before;
  await Promise.all(outboxes.map((outbox) => outbox.stop()));
  await Promise.all(pools.map((pool) => pool.end()));
  return { store: `PostgreSQL, ${replicas} replica${replicas > 1 ? 's' : ''}`, seconds, cpu };
}

const rows: Row[] = [await fileRow()];
const unavailable = postgresUnavailable();
if (unavailable) console.log(`PostgreSQL rows skipped: ${unavailable}`);
else {
  const server = await startPostgres();
  try {
    rows.push(await postgresRow(server, 1), await postgresRow(server, 3));
  } finally {
    await server.stop();
  }
}

const file = rows[0]!;
console.log(
  `\nOutbox throughput: ${ORDERS} orders × ${STATUSES.length} statuses = ${UPDATES} updates, service answers after ${SERVICE_MS} ms\n`,
);
console.log('| store | updates/s | vs file | database CPU | DB CPU ms per update |');
console.log('|---|---:|---:|---:|---:|');
for (const row of rows) {
  const rate = UPDATES / row.seconds;
  console.log(
    `| ${row.store} | ${rate.toFixed(0)} | ${(rate / (UPDATES / file.seconds)).toFixed(2)}× | ${
      row.cpu === undefined ? '–' : `${row.cpu.toFixed(2)} s`
    } | ${row.cpu === undefined ? '–' : ((row.cpu * 1000) / UPDATES).toFixed(2)} |`,
  );
}
