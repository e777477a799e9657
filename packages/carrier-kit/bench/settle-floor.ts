/**
 * The floor under the drained case of bench/outbox-vs-graphile.ts: what the database and the pg client
 * spend per update, with no HTTP at all, for
 *   - the outbox's own drain: claims of 64 orders, each with its run of updates, then per 32 updates a
 *     step marking those in the middle of a run and a settle of those that end one (carrier_outbox_settle,
 *     each order moved on), as a replica drains ORDERS × 5 queued updates;
 *   - a sketch of leasing a whole order (its updates read at the claim, each only marked sent after);
 *   - the least any durable outbox writes per update: one batched UPDATE marking 32 updates sent, by id
 *     (no lease, no order row, no next update: less than per-order order needs);
 *   - an empty round trip per 32 updates (`SELECT 1`), the protocol's share alone.
 * CPU is read from /proc: the backend's (pg_backend_pid) and this process's (process.cpuUsage), one
 * connection, statements one after another, over the whole drain.
 *
 *   npx tsx bench/settle-floor.ts            (BENCH_ORDERS=2000 by default, BENCH_ROUNDS=3)
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { migrate } from '../src/postgres.js';
import { OUTBOX_SQL } from '../src/postgres/sql.js';
import { postgresUnavailable, startPostgres, type TestPostgres } from '../../../scripts/testing/postgres.js';

const ORDERS = Number(process.env.BENCH_ORDERS ?? 2000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const UPDATES = ORDERS * 5;
const TICKS = 100; // USER_HZ of /proc/<pid>/stat

const procCpuMs = (pid: number): number => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
};
const ownCpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

/** A fresh database with ORDERS × 5 updates queued as the bench's replicas queue them (enqueueStatuses). */
async function queued(server: TestPostgres): Promise<pg.Client> {
  const url = await server.createDatabase(`floor_${Date.now()}`);
  await migrate({ connectionString: url });
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  for (let step = 1; step <= 5; step += 1)
    for (let from = 0; from < ORDERS; from += 64) {
      const ids = Array.from({ length: Math.min(64, ORDERS - from) }, (_, i) => `order-${from + i}`);
      await client.query({
        name: 'enqueueStatuses',
        text: OUTBOX_SQL.enqueueStatuses,
        values: [
          ids,
          ids.map(() => null),
          ids.map(() => ({ status: 'delivering', courier_name: `update ${step}` })),
          ids.map(() => step === 5),
          'floor',
          false,
        ],
      });
    }
  await client.query('VACUUM ANALYZE');
  return client;
}

interface Cost {
  dbMs: number;
  clientMs: number;
  statements: number;
}

/** Runs `drain` on a fresh backlog and returns the CPU it took per update. */
async function measure(server: TestPostgres, drain: (client: pg.Client) => Promise<number>): Promise<Cost> {
  const client = await queued(server);
  try {
    const [{ pid }] = (await client.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows as [{ pid: number }];
    const db = procCpuMs(pid);
    const own = ownCpuMs();
    const statements = await drain(client);
    return {
      dbMs: (procCpuMs(pid) - db) / UPDATES,
      clientMs: (ownCpuMs() - own) / UPDATES,
      statements: statements / UPDATES,
    };
  } finally {
    await client.end();
  }
}

/**
 * The outbox's drain as a replica runs it: claims of up to 64 orders (each with its run) when fewer than 32
 * wait; then, per batch of 32 updates handed out, the ones in the middle of a run marked by one step and the
 * last ones settled (carrier_outbox_settle, each order moved on), each run's next update handed out after.
 */
async function outboxDrain(client: pg.Client): Promise<number> {
  let queue: string[] = [];
  const next = new Map<string, string[]>(); // an update handed out → the rest of its run
  let sent = 0;
  let statements = 0;
  while (sent < UPDATES) {
    if (queue.length < 32) {
      const { rows } = await client.query<{ id: string; secure_id: string }>({
        name: 'claim',
        text: OUTBOX_SQL.claim,
        values: ['floor', 30_000, 64 - queue.length],
      });
      statements += 1;
      const claimed = new Map<string, string[]>(); // each order's run, in id order
      for (const row of rows) claimed.set(row.secure_id, [...(claimed.get(row.secure_id) ?? []), row.id]);
      for (const [head, ...rest] of claimed.values()) {
        queue.push(head!);
        if (rest.length > 0) next.set(head!, rest);
      }
    }
    const batch = queue.splice(0, 32);
    if (batch.length === 0) throw new Error(`nothing claimed with ${UPDATES - sent} updates left`);
    const steps = batch.filter((id) => next.has(id));
    const ends = batch.filter((id) => !next.has(id));
    if (steps.length > 0) {
      const { rows } = await client.query<{ id: string }>({
        name: 'step',
        text: OUTBOX_SQL.step,
        values: [steps, steps.map(() => 'sent'), steps.map(() => null), 'floor', steps.map((id) => next.get(id)![0])],
      });
      statements += 1;
      const allowed = new Set(rows.map((row) => row.id));
      for (const id of steps) {
        const [following, ...rest] = next.get(id)!;
        next.delete(id);
        if (!allowed.has(following!)) continue;
        queue.push(following!);
        if (rest.length > 0) next.set(following!, rest);
      }
    }
    if (ends.length > 0) {
      const { rows } = await client.query<{ id: string }>({
        name: 'settle',
        text: OUTBOX_SQL.settle,
        values: [ends, ends.map(() => 'sent'), ends.map(() => 0), ends.map(() => null), 'floor', 30_000, true],
      });
      statements += 1;
      queue = [...queue, ...rows.map((row) => row.id)];
    }
    sent += batch.length;
  }
  return statements;
}

/** The least a durable outbox writes: 32 updates marked sent by id per statement, nothing else. */
async function markOnly(client: pg.Client): Promise<number> {
  const { rows } = await client.query<{ id: string }>('SELECT id FROM carrier_outbox ORDER BY id');
  let statements = 0;
  for (let from = 0; from < rows.length; from += 32) {
    await client.query({
      name: 'mark',
      text: `UPDATE carrier_outbox SET state = 'sent', sent_at = clock_timestamp(), sent_by = $2,
        sent_seq = nextval('carrier_outbox_sent_seq') WHERE id = ANY($1::bigint[]) AND state = 'pending'`,
      values: [rows.slice(from, from + 32).map((row) => row.id), 'floor'],
    });
    statements += 1;
  }
  return statements;
}

/**
 * A sketch of the cheapest per-order design, not a working one: a claim leases 64 orders (carrier_outbox_claim)
 * and reads all their pending updates at once; each update is then only marked sent (32 a statement), and an
 * order's row is written once more, when its last update is settled. No lease renewal, no re-check, no retry:
 * what an outbox that leases a whole order instead of one update at a time could not go below.
 */
async function chainSketch(client: pg.Client): Promise<number> {
  let statements = 0;
  let sent = 0;
  while (sent < UPDATES) {
    const { rows: heads } = await client.query<{ secure_id: string }>({
      name: 'claim',
      text: OUTBOX_SQL.claim,
      values: ['floor', 30_000, 64],
    });
    const { rows } = await client.query<{ id: string; secure_id: string; terminal: boolean }>({
      name: 'chain',
      text: `SELECT id, secure_id, terminal FROM carrier_outbox WHERE secure_id = ANY($1::text[]) AND state = 'pending'
        ORDER BY secure_id, id`,
      values: [heads.map((head) => head.secure_id)],
    });
    statements += 2;
    if (rows.length === 0) throw new Error(`nothing claimed with ${UPDATES - sent} updates left`);
    for (let from = 0; from < rows.length; from += 32) {
      const batch = rows.slice(from, from + 32);
      await client.query({
        name: 'mark',
        text: `UPDATE carrier_outbox SET state = 'sent', sent_at = clock_timestamp(), sent_by = $2,
          sent_seq = nextval('carrier_outbox_sent_seq') WHERE id = ANY($1::bigint[]) AND state = 'pending'`,
        values: [batch.map((row) => row.id), 'floor'],
      });
      const ended = batch.filter((row) => row.terminal).map((row) => row.secure_id);
      if (ended.length > 0)
        await client.query({
          name: 'end',
          text: `UPDATE carrier_outbox_orders SET lease_owner = NULL, lease_until = NULL, lease_id = NULL, due_at = NULL,
            closed = true WHERE secure_id = ANY($1::text[])`,
          values: [ended],
        });
      statements += ended.length > 0 ? 2 : 1;
      sent += batch.length;
    }
  }
  return statements;
}

/** One empty round trip per 32 updates: the protocol and a transaction, no work. */
async function roundTrips(client: pg.Client): Promise<number> {
  let statements = 0;
  for (let from = 0; from < UPDATES; from += 32) {
    await client.query({ name: 'one', text: 'SELECT 1', values: [] });
    statements += 1;
  }
  return statements;
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

const skip = postgresUnavailable();
if (skip) {
  console.log(`skipped: ${skip}`);
} else {
  const server = await startPostgres();
  try {
    const runs: Record<string, Cost[]> = {
      outbox: [],
      'whole-order lease (sketch)': [],
      'mark only': [],
      'round trip': [],
    };
    for (let round = 1; round <= ROUNDS; round += 1) {
      runs.outbox!.push(await measure(server, outboxDrain));
      runs['whole-order lease (sketch)']!.push(await measure(server, chainSketch));
      runs['mark only']!.push(await measure(server, markOnly));
      runs['round trip']!.push(await measure(server, roundTrips));
    }
    console.log(`${ORDERS} orders × 5 updates, one connection, ${ROUNDS} rounds (median):\n`);
    console.log('| drain | statements per update | DB CPU ms/update | client CPU ms/update | both |');
    console.log('|---|---:|---:|---:|---:|');
    for (const [name, costs] of Object.entries(runs)) {
      const db = median(costs.map((c) => c.dbMs));
      const client = median(costs.map((c) => c.clientMs));
      console.log(
        `| ${name} | ${median(costs.map((c) => c.statements)).toFixed(3)} | ${db.toFixed(3)} | ${client.toFixed(3)} | ${(db + client).toFixed(3)} |`,
      );
    }
  } finally {
    await server.stop();
  }
}
