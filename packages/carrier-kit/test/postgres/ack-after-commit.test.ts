// Durable before acknowledged on PostgreSQL, on a real server: a receiver on the PostgreSQL dedupe store answers,
// by default, only once the callback's row has committed with the work it started; a failure commits nothing and
// is answered 500, so the service sends the callback again.
import pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createCallbackReceiver } from '@restoapi/carrier-kit';
import { createPostgresDedupeStore, migrate, type PostgresDedupeStore } from '@restoapi/carrier-kit/postgres';
import { postgresTestsRun, sharedPostgres, type TestPostgres } from '../../../../scripts/testing/postgres.js';

const run = postgresTestsRun('carrier-kit ack after commit');
let server: TestPostgres;
let pool: pg.Pool;
let store: PostgresDedupeStore;

beforeAll(async () => {
  if (!run) return;
  server = await sharedPostgres();
  const url = await server.createDatabase();
  await migrate({ connectionString: url });
  pool = new pg.Pool({ connectionString: url, max: 4 });
  store = createPostgresDedupeStore({ pool });
}, 30_000);
afterAll(async () => {
  await store?.close();
  await pool?.end();
  await server?.stop();
});

const SECURE = 'c9f3b2a4e1d84f0b9a7c6e5d4f3a2b1c';
const post = (orderId: number): Request =>
  new Request(`http://carrier.test/callbacks?type=order_created&order_id=${orderId}&order_secure_id=${SECURE}`, {
    method: 'POST',
  });
const committed = async (orderId: number): Promise<boolean> =>
  (await pool.query('SELECT 1 FROM carrier_callbacks WHERE key LIKE $1', [`${orderId}|%`])).rowCount === 1;

test.runIf(run)('the answer waits for the commit of the callback and of the work it started', async () => {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const receiver = createCallbackReceiver({
    dedupe: { store },
    handlers: {
      order_created: async (event, { key }) => {
        // The work writes through the claim's transaction, as the simulator claims its delivery.
        await store.transaction(key)!.query(`SELECT pg_notify('work', $1)`, [String(event.order_id)]);
        await gate;
      },
    },
  });
  expect(receiver.ack).toBe('after-processing');
  let answered = false;
  const answer = receiver.handle(post(7001)).then((response) => ((answered = true), response));
  await new Promise((resolve) => setTimeout(resolve, 100));
  // Not answered while the work runs, and nothing committed yet: a crash now leaves the service to send it again.
  expect(answered).toBe(false);
  expect(await committed(7001)).toBe(false);
  release();
  const response = await answer;
  expect(response.status).toBe(200);
  expect(await committed(7001)).toBe(true);
});

test.runIf(run)('a failure commits nothing and is answered 500, so the callback comes again', async () => {
  const receiver = createCallbackReceiver({
    dedupe: { store },
    handlers: {
      order_created: () => {
        throw new Error('the order could not be loaded');
      },
    },
  });
  expect((await receiver.handle(post(7002))).status).toBe(500);
  expect(await committed(7002)).toBe(false);
});
