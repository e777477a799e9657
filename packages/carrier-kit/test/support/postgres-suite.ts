import type pg from 'pg';
import { afterAll, afterEach, beforeAll } from 'vitest';
import type { Outbox } from '../../src/outbox/outbox.js';
import { migrate } from '../../src/postgres/migrate.js';
import { postgresTestsRun, sharedPostgres, type TestPostgres } from '../../../../scripts/testing/postgres.js';

/** A test file's PostgreSQL server, and the pools and outboxes its tests open, closed after each test or the file. */
export interface PostgresSuite {
  /** Whether the file's tests run (a server can be started here). */
  run: boolean;
  /** Pools to end after the file. */
  pools: pg.Pool[];
  /** Outboxes to stop after each test. */
  outboxes: Outbox[];
  /** The running server. */
  server(): TestPostgres;
  /** A fresh database with the stores' schema. */
  database(): Promise<string>;
}

/** Sets up the hooks of a test file of the PostgreSQL stores: one server for the file, stopped at its end. */
export function postgresSuite(name: string): PostgresSuite {
  const run = postgresTestsRun(name);
  let server: TestPostgres | undefined;
  const suite: PostgresSuite = {
    run,
    pools: [],
    outboxes: [],
    server: () => server!,
    async database() {
      const url = await server!.createDatabase();
      await migrate({ connectionString: url });
      return url;
    },
  };
  beforeAll(async () => {
    if (run) server = await sharedPostgres();
  }, 30_000);
  afterEach(async () => {
    await Promise.all(suite.outboxes.splice(0).map((outbox) => outbox.stop()));
  });
  afterAll(async () => {
    await Promise.all(suite.pools.map((pool) => pool.end()));
    await server?.stop();
  });
  return suite;
}
