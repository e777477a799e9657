// An order's run on the shared PostgreSQL outbox (migration 6), on a real server: a claim leases an order
// with its due updates, which go out one after another, each once the answer of the one before is written,
// without writing the order's row; a retry, a discard, a stop or a lease that ran out ends the run.
import pg from 'pg';
import { expect, test } from 'vitest';
import type { OutboxEntry } from '@restoapi/carrier-kit';
import { createPostgresOutboxStore } from '@restoapi/carrier-kit/postgres';
import { postgresSuite } from '../support/postgres-suite.js';

const { run, pools, database } = postgresSuite('carrier-kit order runs');

function poolOf(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pools.push(pool);
  return pool;
}

/** A replica's store: its own pool, named `owner`. */
const replica = (url: string, owner: string, leaseMs = 30_000) =>
  createPostgresOutboxStore({ pool: poolOf(url), owner, leaseMs });

/** A fresh database where order `o1` has updates 1 to `count` queued. */
async function queuedOrder(count: number): Promise<string> {
  const url = await database();
  await queue(url, 'o1', count);
  return url;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Update `n` of an order: a status whose number rides in `courier_name`. */
const update = (secureId: string, n: number) => ({
  secureId,
  kind: 'status' as const,
  patch: { status: 'delivering' as const, courier_name: `update ${n}` },
  terminal: false,
  minIntervalMs: 0,
});
const numbers = (entries: OutboxEntry[]): string[] => entries.map((e) => e.patch.courier_name ?? `${e.patch.lat}`);

/** Queues updates 1 to `count` of `secureId` from a store that sends nothing. */
async function queue(url: string, secureId: string, count: number): Promise<void> {
  const queuer = replica(url, 'queuer');
  for (let n = 1; n <= count; n += 1) await queuer.enqueue(update(secureId, n));
}

/** The order's row: its lease, and `xmin`, which changes whenever the row is written. */
async function orderRow(url: string, secureId: string) {
  const { rows } = await poolOf(url).query<{ xmin: string; lease_owner: string | null; run: number | null }>(
    `SELECT xmin::text, lease_owner, (SELECT count(*)::int FROM carrier_outbox e WHERE e.secure_id = o.secure_id
       AND e.id BETWEEN o.lease_from AND o.lease_id) AS run
     FROM carrier_outbox_orders o WHERE secure_id = $1`,
    [secureId],
  );
  return rows[0]!;
}

test.runIf(run)(
  "a claim leases an order with its whole run; each update goes out once the one before is marked, without writing the order's row",
  async () => {
    const url = await queuedOrder(3);
    const a = replica(url, 'a');
    const b = replica(url, 'b');
    const [first] = await a.claim(5);
    expect(numbers([first!])).toEqual(['update 1']);
    const leased = await orderRow(url, 'o1');
    expect(leased).toMatchObject({ lease_owner: 'a', run: 3 });
    expect(await b.claim(5)).toEqual([]);
    expect(await a.claim(5)).toEqual([]); // update 2 waits for update 1's answer
    await a.markSent(first!.id);
    const [second] = await a.claim(5);
    expect(numbers([second!])).toEqual(['update 2']);
    await a.markSent(second!.id);
    expect((await orderRow(url, 'o1')).xmin).toBe(leased.xmin);
    const [third] = await a.claim(5);
    expect(numbers([third!])).toEqual(['update 3']);
    expect(await b.claim(5)).toEqual([]);
    await a.markSent(third!.id);
    // The last update of the run is settled: the lease ends.
    expect(await orderRow(url, 'o1')).toMatchObject({ lease_owner: null });
    expect(await a.pending()).toEqual([]);
  },
);

test.runIf(run)(
  'a retry in the middle of a run holds the rest back and gives the order back until the retry is due',
  async () => {
    const url = await queuedOrder(3);
    const a = replica(url, 'a');
    const b = replica(url, 'b');
    const [first] = await a.claim(5);
    await a.markSent(first!.id);
    const [second] = await a.claim(5);
    await a.markRetry(second!.id, 300, '503 Service Unavailable');
    expect(await orderRow(url, 'o1')).toMatchObject({ lease_owner: null });
    // Update 3 does not overtake update 2, on this replica or another.
    expect(await a.claim(5)).toEqual([]);
    expect(await b.claim(5)).toEqual([]);
    await sleep(400);
    const [again] = await b.claim(5);
    expect([numbers([again!]), again!.attempts]).toEqual([['update 2'], 1]);
    await b.markSent(again!.id);
    expect(numbers(await b.claim(5))).toEqual(['update 3']);
  },
);

test.runIf(run)('a run whose lease is a quarter gone is renewed before its next update goes out', async () => {
  const url = await queuedOrder(2);
  const a = replica(url, 'a', 1000);
  const b = replica(url, 'b', 1000);
  const claimedAt = Date.now();
  const [first] = await a.claim(5);
  await sleep(600);
  await a.markSent(first!.id);
  const [second] = await a.claim(5);
  expect(numbers([second!])).toEqual(['update 2']);
  // Past the end of the lease the claim took: still a's, renewed.
  await sleep(claimedAt + 1200 - Date.now());
  expect(await b.claim(5)).toEqual([]);
  expect(await orderRow(url, 'o1')).toMatchObject({ lease_owner: 'a' });
  await a.markSent(second!.id);
  expect(await a.pending()).toEqual([]);
});

test.runIf(run)(
  "a replica whose run's lease ran out does not go on with it: the replica that took the order over sends the rest",
  async () => {
    const url = await queuedOrder(3);
    const slow = replica(url, 'slow', 300);
    const other = replica(url, 'other', 30_000);
    const [late] = await slow.claim(5);
    await sleep(400);
    const [taken] = await other.claim(5);
    expect(taken!.id).toBe(late!.id);
    // The slow replica's answer comes late: it is written (the update went out), but its run stops there.
    await slow.markSent(late!.id);
    await sleep(150); // past the slow replica's idle wait, so its next claim asks the database
    expect(await slow.claim(5)).toEqual([]);
    await other.markSent(taken!.id);
    expect(numbers(await other.claim(5))).toEqual(['update 2']);
  },
);

test.runIf(run)(
  'a discard in the middle of a run drops the rest; the update in flight is answered and the order given back',
  async () => {
    const url = await queuedOrder(3);
    const a = replica(url, 'a');
    const [first] = await a.claim(5);
    expect(numbers(await a.discard('o1'))).toEqual(['update 2', 'update 3']);
    await a.markSent(first!.id);
    expect(await a.claim(5)).toEqual([]);
    expect(await orderRow(url, 'o1')).toMatchObject({ lease_owner: null });
    expect(await a.pending()).toEqual([]);
  },
);

test.runIf(run)('a replica that stops mid-run gives the rest back once the update in flight is answered', async () => {
  const url = await queuedOrder(3);
  const a = replica(url, 'a');
  const b = replica(url, 'b');
  const [first] = await a.claim(5);
  const stopped = a.release!();
  await a.markSent(first!.id);
  await stopped;
  expect(await orderRow(url, 'o1')).toMatchObject({ lease_owner: null });
  expect(numbers(await b.claim(5))).toEqual(['update 2']);
});

test.runIf(run)('a position in a run is in flight: a newer one is queued after it, not folded into it', async () => {
  const url = await database();
  const a = replica(url, 'a');
  await a.enqueue(update('o1', 1));
  await a.enqueue({
    secureId: 'o1',
    kind: 'position',
    patch: { lat: 52.1, lon: 13.4 },
    terminal: false,
    minIntervalMs: 0,
  });
  const [first] = await a.claim(5);
  expect(await orderRow(url, 'o1')).toMatchObject({ run: 2 });
  const newer = await a.enqueue({
    secureId: 'o1',
    kind: 'position',
    patch: { lat: 52.2, lon: 13.4 },
    terminal: false,
    minIntervalMs: 0,
  });
  expect(newer.outcome).toBe('queued');
  await a.markSent(first!.id);
  expect(numbers(await a.claim(5))).toEqual(['52.1']);
});
