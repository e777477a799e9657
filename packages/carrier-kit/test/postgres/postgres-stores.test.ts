// The PostgreSQL stores against a real server (started by the test, never a fake of `pg`): migrations,
// skip-locked claims shared by replicas, leases that run out, order within an order, dedupe across replicas.
import pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import {
  createPostgresDedupeStore,
  createPostgresOutboxStore,
  migrate,
  MIGRATIONS,
} from '@restoapi/carrier-kit/postgres';
import { BIN_SOURCES, runCli } from '../../../../scripts/testing/run-cli.js';
import { postgresTestsRun, startPostgres, type TestPostgres } from '../../../../scripts/testing/postgres.js';

const run = postgresTestsRun('carrier-kit postgres stores');
let server: TestPostgres;
const pools: pg.Pool[] = [];

beforeAll(async () => {
  if (run) server = await startPostgres();
}, 30_000);
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.end()));
  await server?.stop();
});

async function database(): Promise<string> {
  const url = await server.createDatabase();
  await migrate({ connectionString: url });
  return url;
}

function poolOf(url: string): pg.Pool {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pools.push(pool);
  return pool;
}

const status = (secureId: string, value: 'courier_assigned' | 'delivering' | 'delivered') => ({
  secureId,
  kind: 'status' as const,
  patch: { status: value },
  terminal: value === 'delivered',
  minIntervalMs: 0,
});
const position = (secureId: string, lat: number, minIntervalMs = 0) => ({
  secureId,
  kind: 'position' as const,
  patch: { lat, lon: 13.4 },
  terminal: false,
  minIntervalMs,
});

test.runIf(run)('migrate applies each migration once, even when replicas start together', async () => {
  const url = await server.createDatabase();
  const results = await Promise.all([1, 2, 3].map(() => migrate({ connectionString: url })));
  expect(results.flatMap((r) => r.applied)).toEqual(MIGRATIONS.map((m) => m.version));
  expect(results.every((r) => r.version === MIGRATIONS.at(-1)!.version)).toBe(true);
  expect(await migrate({ connectionString: url })).toEqual({ applied: [], version: MIGRATIONS.at(-1)!.version });
  const { rows } = await poolOf(url).query('SELECT version, name FROM carrier_kit_migrations');
  expect(rows).toHaveLength(MIGRATIONS.length);
});

test.runIf(run)('a settle writes no index entry: the update of the sent row is HOT (migration 5)', async () => {
  const url = await database();
  const db = poolOf(url);
  const store = createPostgresOutboxStore({ pool: db, owner: 'r' });
  await store.enqueue(status('o1', 'courier_assigned'));
  await store.enqueue(status('o1', 'delivering'));
  const [first] = await store.claim(5);
  const client = await db.connect();
  try {
    await client.query('BEGIN');
    // The store's own settle statement, in a transaction of this session, so its counters can be read before commit.
    const { rows: next } = await client.query(
      `SELECT * FROM carrier_outbox_settle($1, ARRAY['sent'], ARRAY[0]::float8[], ARRAY[NULL]::text[], 'r', 30000, true)`,
      [[first!.id]],
    );
    expect(next.map((row: { patch: unknown }) => row.patch)).toEqual([{ status: 'delivering' }]);
    const { rows } = await client.query<{ updated: string; hot: string }>(
      `SELECT pg_stat_get_xact_tuples_updated('carrier_outbox'::regclass) AS updated,
              pg_stat_get_xact_tuples_hot_updated('carrier_outbox'::regclass) AS hot`,
    );
    expect(rows).toEqual([{ updated: '1', hot: '1' }]);
    await client.query('COMMIT');
  } finally {
    client.release();
  }
  await store.release!();
});

test.runIf(run)('two replicas claim different updates, and an order sends one update at a time, in order', async () => {
  const url = await database();
  const a = createPostgresOutboxStore({ pool: poolOf(url), owner: 'a' });
  const b = createPostgresOutboxStore({ pool: poolOf(url), owner: 'b' });
  for (const id of ['o1', 'o2', 'o3', 'o4']) {
    await a.enqueue(status(id, 'courier_assigned'));
    await b.enqueue(status(id, 'delivering'));
  }
  const [fromA, fromB] = await Promise.all([a.claim(10), b.claim(10)]);
  const claimed = [...fromA, ...fromB];
  // Each order's first update, each taken by exactly one replica; the second waits for the first.
  expect(claimed.map((e) => e.secureId).sort()).toEqual(['o1', 'o2', 'o3', 'o4']);
  expect(claimed.every((e) => e.patch.status === 'courier_assigned')).toBe(true);
  expect(await b.claim(10)).toEqual([]);
  for (const entry of fromA) await a.markSent(entry.id);
  for (const entry of fromB) await b.markSent(entry.id);
  const next = [...(await b.claim(10)), ...(await a.claim(10))];
  expect(next.map((e) => [e.secureId, e.patch.status]).sort()).toEqual([
    ['o1', 'delivering'],
    ['o2', 'delivering'],
    ['o3', 'delivering'],
    ['o4', 'delivering'],
  ]);
});

test.runIf(run)('a settle moves its order on to the next update even when the local queue is full', async () => {
  const url = await database();
  const store = createPostgresOutboxStore({ pool: poolOf(url), owner: 'a', prefetch: 1 });
  const other = createPostgresOutboxStore({ pool: poolOf(url), owner: 'b' });
  await store.enqueue(status('o1', 'courier_assigned'));
  await store.enqueue(status('o1', 'delivering'));
  await store.enqueue(status('o2', 'courier_assigned'));
  const [first] = await store.claim(1);
  expect(first!.secureId).toBe('o1');
  expect(await store.claim(0)).toEqual([]); // fills the local queue (one update, o2's) and takes none of it
  await store.markSent(first!.id);
  // o1's next update came back with the settle: it stays leased to this replica, not left to a claim.
  expect(await other.claim(5)).toEqual([]);
  expect((await store.claim(5)).map((e) => [e.secureId, e.patch.status])).toEqual([
    ['o2', 'courier_assigned'],
    ['o1', 'delivering'],
  ]);
});

test.runIf(run)('the updates of a replica that died are sent by another once its lease runs out', async () => {
  const url = await database();
  const dead = createPostgresOutboxStore({ pool: poolOf(url), owner: 'dead', leaseMs: 300 });
  const alive = createPostgresOutboxStore({ pool: poolOf(url), owner: 'alive', leaseMs: 300 });
  await dead.enqueue(status('o1', 'courier_assigned'));
  const [taken] = await dead.claim(1);
  expect(taken?.patch).toEqual({ status: 'courier_assigned' });
  expect(await alive.claim(5)).toEqual([]);
  await new Promise((resolve) => setTimeout(resolve, 400));
  const [again] = await alive.claim(5);
  expect(again?.id).toBe(taken!.id);
  await alive.markSent(again!.id);
  // The dead replica's late answer changes nothing: the update was sent once it was marked.
  await dead.markRetry(taken!.id, 0, 'late');
  expect(await alive.pending()).toEqual([]);
});

test.runIf(run)(
  'a position never overtakes the status before it; a waiting position holds no status back',
  async () => {
    const url = await database();
    const store = createPostgresOutboxStore({ pool: poolOf(url), owner: 'r' });
    await store.enqueue(status('o1', 'courier_assigned'));
    await store.enqueue(position('o1', 52.1));
    const [first] = await store.claim(5);
    expect(first?.patch).toEqual({ status: 'courier_assigned' });
    expect(await store.claim(5)).toEqual([]);
    await store.markSent(first!.id);
    const [second] = await store.claim(5);
    expect(second?.kind).toBe('position');
    await store.markSent(second!.id);
    // The next position waits a minute for its interval; the status queued after it goes first.
    expect((await store.enqueue(position('o1', 52.2, 60_000))).outcome).toBe('queued');
    expect((await store.enqueue(position('o1', 52.3, 60_000))).outcome).toBe('coalesced');
    await store.enqueue(status('o1', 'delivering'));
    const [third] = await store.claim(5);
    expect(third?.patch).toEqual({ status: 'delivering' });
    await store.markSent(third!.id);
    // The final status takes the waiting position along and closes the order.
    const final = await store.enqueue(status('o1', 'delivered'));
    expect(final.foldedPosition).toBe(true);
    expect(final.entry?.patch).toEqual({ status: 'delivered', lat: 52.3, lon: 13.4 });
    expect((await store.enqueue(position('o1', 52.4))).outcome).toBe('dropped_terminal');
    expect((await store.pending('o1')).map((e) => e.patch.status)).toEqual(['delivered']);
  },
);

test.runIf(run)('a callback that reaches two replicas is handled once, and again when its replica dies', async () => {
  const url = await database();
  const a = createPostgresDedupeStore({ pool: poolOf(url), owner: 'a' });
  const b = createPostgresDedupeStore({ pool: poolOf(url), owner: 'b' });
  expect(await a.claim('5007|order_created|', 5000)).toBe('claimed');
  // The duplicate on b waits for a's transaction: done once a commits.
  const duplicate = b.claim('5007|order_created|', 5000);
  await a
    .transaction('5007|order_created|')!
    .query(`INSERT INTO carrier_deliveries (secure_id, owner, owner_until) VALUES ('s1', 'a', now())`);
  await a.complete('5007|order_created|', 60_000);
  expect(await duplicate).toBe('done');

  expect(await a.claim('5008|order_created|', 5000)).toBe('claimed');
  const second = b.claim('5008|order_created|', 5000);
  // a dies half-way: its connection drops, the transaction rolls back, and b handles the callback. Only a's
  // backend: b's claim is idle in its own transaction between two statements too, on a busy machine long enough
  // for a query of pg_stat_activity to see it.
  const { rows } = await a.transaction('5008|order_created|')!.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
  expect(rows).toHaveLength(1);
  await poolOf(url).query('SELECT pg_terminate_backend($1)', [rows[0]!.pid]);
  expect(await second).toBe('claimed');
  await b.complete('5008|order_created|', 60_000);
  const handled = await poolOf(url).query('SELECT key, handled_by FROM carrier_callbacks ORDER BY key');
  expect(handled.rows).toEqual([
    { key: '5007|order_created|', handled_by: 'a' },
    { key: '5008|order_created|', handled_by: 'b' },
  ]);
  // The work the first callback started committed with its key.
  expect((await poolOf(url).query('SELECT owner FROM carrier_deliveries')).rows).toEqual([{ owner: 'a' }]);
  await a.release('5008|order_created|');
});

test.runIf(run)(
  'restoapi-carrier migrate --store applies the schema once and says so',
  async () => {
    const url = await server.createDatabase();
    const first = await runCli([BIN_SOURCES['restoapi-carrier']!, 'migrate', '--store', url]);
    expect(first.stdout.trim()).toBe(`applied migrations 1, 2, 3, 4, 5, 6; the database is at schema version 6`);
    const [second, bad, down, both] = await Promise.all([
      ...[url, 'mysql://db/carrier', 'postgres://u:secret@127.0.0.1:9/x'].map((store) =>
        runCli([BIN_SOURCES['restoapi-carrier']!, 'migrate', '--store', store]),
      ),
      runCli([
        BIN_SOURCES['restoapi-carrier']!,
        'simulate',
        '--base-url',
        'http://127.0.0.1:9',
        '--store',
        url,
        '--outbox',
        'o.json',
      ]),
    ]);
    expect([both!.status, both!.stderr.trim()]).toEqual([
      2,
      'restoapi-carrier: --outbox and --store exclude each other: with --store the outbox is in the database',
    ]);
    expect([second!.status, second!.stdout.trim()]).toEqual([
      0,
      'nothing to apply; the database is at schema version 6',
    ]);
    expect([bad!.status, bad!.stderr]).toEqual([
      2,
      expect.stringContaining('expected a postgres:// connection string'),
    ]);
    expect(down!.status).toBe(3);
    expect(down!.stderr).toContain('cannot reach postgres://u@127.0.0.1:9/x (ECONNREFUSED)');
    expect(down!.stderr).not.toContain('secret');
  },
  30_000,
);

test.runIf(run)('settled updates and finished orders are pruned on their own once older than keepMs', async () => {
  const url = await database();
  const store = createPostgresOutboxStore({ pool: poolOf(url), owner: 'r', keepMs: 0 });
  await store.enqueue(status('o1', 'courier_assigned'));
  await store.enqueue(status('o1', 'delivering'));
  await store.enqueue(status('o2', 'courier_assigned'));
  const claimed = await store.claim(5);
  expect(claimed.map((e) => e.secureId)).toEqual(['o1', 'o2']);
  await Promise.all(claimed.map((e) => store.markSent(e.id)));
  // Settling o1's first update leased its next one to this replica, in the same statement.
  const [next] = await store.claim(5);
  expect(next?.patch).toEqual({ status: 'delivering' });
  // A store prunes at its first claim, in the background; release() waits for it.
  const other = createPostgresOutboxStore({ pool: poolOf(url), owner: 's', keepMs: 0 });
  expect(await other.claim(5)).toEqual([]);
  await other.release!();
  const db = poolOf(url);
  expect((await db.query('SELECT state FROM carrier_outbox')).rows).toEqual([{ state: 'pending' }]);
  // o2 is done and forgotten; o1 still has its update in flight.
  expect((await db.query('SELECT secure_id FROM carrier_outbox_orders')).rows).toEqual([{ secure_id: 'o1' }]);
});

test.runIf(run)(
  'a pruning round forgets the settled updates older than keepMs and keeps the younger ones',
  async () => {
    const url = await database();
    const db = poolOf(url);
    const store = createPostgresOutboxStore({ pool: db, owner: 'r', keepMs: 60_000 });
    for (const order of ['old', 'young']) await store.enqueue(status(order, 'courier_assigned'));
    await Promise.all((await store.claim(5)).map((e) => store.markSent(e.id)));
    await db.query(`UPDATE carrier_outbox SET created_at = now() - interval '1 hour' WHERE secure_id = 'old'`);
    await store.enqueue(status('young', 'delivering'));
    const other = createPostgresOutboxStore({ pool: db, owner: 's', keepMs: 60_000 });
    await other.claim(1);
    await other.release!();
    expect((await db.query('SELECT secure_id, state FROM carrier_outbox ORDER BY id')).rows).toEqual([
      { secure_id: 'young', state: 'sent' },
      { secure_id: 'young', state: 'pending' },
    ]);
    expect((await db.query('SELECT secure_id FROM carrier_outbox_orders')).rows).toEqual([{ secure_id: 'young' }]);
    await store.release!();
  },
);

test.runIf(run)('migration 2 takes over the updates a deployment at version 1 left pending', async () => {
  const url = await server.createDatabase();
  const db = poolOf(url);
  // A database the previous version made and used: schema 1, one order with an update pending, one sent.
  await db.query(MIGRATIONS[0]!.sql);
  await db.query(`CREATE TABLE carrier_kit_migrations (version integer PRIMARY KEY, name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now())`);
  await db.query(`INSERT INTO carrier_kit_migrations (version, name) VALUES (1, 'old')`);
  await db.query(`INSERT INTO carrier_outbox_orders (secure_id) VALUES ('o1'), ('o2')`);
  await db.query(`INSERT INTO carrier_outbox (secure_id, kind, patch, state) VALUES
    ('o1', 'status', '{"status":"courier_assigned"}', 'sent'),
    ('o1', 'status', '{"status":"delivering"}', 'pending'),
    ('o2', 'status', '{"status":"courier_assigned"}', 'sent')`);
  expect(await migrate({ pool: db })).toEqual({ applied: [2, 3, 4, 5, 6], version: 6 });
  const store = createPostgresOutboxStore({ pool: db, owner: 'new' });
  expect((await store.claim(5)).map((e) => [e.secureId, e.patch])).toEqual([['o1', { status: 'delivering' }]]);
  await store.release!();
});

test.runIf(run)(
  'migration 3 upgrades a database version 2 used: its closed orders and pending updates carry on',
  async () => {
    const url = await server.createDatabase();
    const db = poolOf(url);
    // Schema 2 as the previous version left it: o1 closed by its final status (still pending), o2 in flight.
    await db.query(MIGRATIONS[0]!.sql);
    await db.query(MIGRATIONS[1]!.sql);
    await db.query(`CREATE TABLE carrier_kit_migrations (version integer PRIMARY KEY, name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now())`);
    await db.query(`INSERT INTO carrier_kit_migrations (version, name) VALUES (1, 'old'), (2, 'old')`);
    await db.query(`INSERT INTO carrier_outbox_orders (secure_id, closed, due_at) VALUES ('o1', true, now())`);
    await db.query(
      `INSERT INTO carrier_outbox (secure_id, kind, patch) VALUES ('o1', 'status', '{"status":"delivered"}')`,
    );
    await db.query(`INSERT INTO carrier_outbox_orders (secure_id, due_at, lease_owner, lease_until)
    VALUES ('o2', now() - interval '1 minute', 'gone', now() - interval '1 minute')`);
    const [{ id }] = (
      await db.query<{ id: string }>(
        `INSERT INTO carrier_outbox (secure_id, kind, patch) VALUES ('o2', 'status', '{"status":"courier_assigned"}') RETURNING id`,
      )
    ).rows as [{ id: string }];
    await db.query(`UPDATE carrier_outbox_orders SET lease_id = $1 WHERE secure_id = 'o2'`, [id]);
    expect(await migrate({ pool: db })).toEqual({ applied: [3, 4, 5, 6], version: 6 });
    const store = createPostgresOutboxStore({ pool: db, owner: 'new' });
    expect((await store.enqueue(position('o1', 52.5))).outcome).toBe('dropped_terminal');
    await store.enqueue(status('o2', 'delivering'));
    const claimed = await store.claim(5);
    expect(claimed.map((e) => [e.secureId, e.patch])).toEqual([
      ['o1', { status: 'delivered' }],
      ['o2', { status: 'courier_assigned' }],
    ]);
    await Promise.all(claimed.map((e) => store.markSent(e.id)));
    // The settle of o2's first update leased its next one, queued after the upgrade.
    expect((await store.claim(5)).map((e) => e.patch)).toEqual([{ status: 'delivering' }]);
    await store.release!();
  },
);

/** Waits until a backend of the server waits for a row lock (`what`), for at most 5 s. */
async function untilLockWait(db: pg.Pool, what: string): Promise<void> {
  const until = Date.now() + 5_000;
  while (Date.now() < until) {
    const { rows } = await db.query(`SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock'`);
    if (rows.length > 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${what} did not wait`);
}

test.runIf(run)(
  'a status is queued while a claim or settle holds its order, and a settle never leaves it idle',
  async () => {
    const url = await database();
    const db = poolOf(url);
    const store = createPostgresOutboxStore({ pool: poolOf(url), owner: 'r' });
    await store.enqueue(status('o1', 'courier_assigned'));
    const [first] = await store.claim(5);
    // A claim or settle of o1 under way holds its row (FOR NO KEY UPDATE): the enqueue does not wait for it.
    const holder = await db.connect();
    try {
      await holder.query('BEGIN');
      await holder.query(`SELECT 1 FROM carrier_outbox_orders WHERE secure_id = 'o1' FOR NO KEY UPDATE`);
      const queued = await Promise.race([
        store.enqueue(status('o1', 'delivering')).then(() => 'queued'),
        new Promise((resolve) => setTimeout(() => resolve('waited for the row lock'), 5_000)),
      ]);
      expect(queued).toBe('queued');
    } finally {
      await holder.query('ROLLBACK');
      holder.release();
    }
    await store.markSent(first!.id);
    const [second] = await store.claim(5);
    expect(second?.patch).toEqual({ status: 'delivering' });
    // An enqueue not yet committed when the settle of the order's last update would leave the order idle: the
    // settle waits for it and sees its update, so the order stays due.
    const enqueuer = await db.connect();
    try {
      await enqueuer.query('BEGIN');
      await enqueuer.query(
        `SELECT * FROM carrier_outbox_enqueue('o1', NULL, 'status', '{"status":"delivered"}', true, 'x', 0, false)`,
      );
      const settled = store.markSent(second!.id);
      await untilLockWait(db, 'the settle that leaves the order idle, for the enqueue under way,');
      await enqueuer.query('COMMIT');
      await settled;
    } finally {
      enqueuer.release();
    }
    // A replica claiming now (this one waits idleMs after a claim that found less than it asked for) takes it.
    const other = createPostgresOutboxStore({ pool: poolOf(url), owner: 's' });
    expect((await other.claim(5)).map((e) => e.patch)).toEqual([{ status: 'delivered' }]);
    await other.release!();
    await store.release!();
  },
);
