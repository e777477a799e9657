import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import pg from 'pg';

/** Where a PostgreSQL store connects: a pool of yours, or a connection string (the store then owns its pool). */
export interface PostgresConnectionOptions {
  /** A `pg` pool to use (it stays yours: `close()` leaves it open). */
  pool?: pg.Pool;
  /** A connection string, e.g. `postgres://carrier@db:5432/carrier`, when no pool is given. */
  connectionString?: string;
}

/** A pool and whether the store made it (and so ends it on close). */
export interface OwnedPool {
  pool: pg.Pool;
  owned: boolean;
}

/** Opens the pool a store works with. */
export function openPool(options: PostgresConnectionOptions, what: string): OwnedPool {
  if (options.pool) return { pool: options.pool, owned: false };
  if (!options.connectionString) throw new TypeError(`${what} needs a pool or a connectionString`);
  const pool = new pg.Pool({ connectionString: options.connectionString, max: 10 });
  // An idle client that loses its server (a restart) must not crash the process.
  pool.on('error', () => undefined);
  return { pool, owned: true };
}

/** A name for this replica that no other replica shares: host, process and a random part. */
export function replicaName(): string {
  return `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`;
}

/** Runs `work` in a transaction on one client of the pool; rolls back when it throws. */
export async function inTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
