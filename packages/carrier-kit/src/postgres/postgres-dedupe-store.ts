import type pg from 'pg';
import type { ClaimResult, DedupeStore } from '../dedupe/dedupe-store.js';
import { openPool, replicaName, type PostgresConnectionOptions } from './connection.js';
import { DEDUPE_SQL } from './sql.js';

/** Options of {@link createPostgresDedupeStore}. */
export interface PostgresDedupeStoreOptions extends PostgresConnectionOptions {
  /** This replica's name, kept with each key it handled (default: host, pid and a random part). */
  owner?: string;
}

/** A dedupe store on PostgreSQL whose claims are open transactions. */
export interface PostgresDedupeStore extends DedupeStore {
  /**
   * The open transaction of a claimed key: the work a callback starts can write through it, so that work
   * and the key's mark commit together (or not at all, when the replica dies half-way).
   */
  transaction(key: string): pg.PoolClient | undefined;
  /** Releases the store's connections when it made them. */
  close(): Promise<void>;
}

/**
 * Creates the PostgreSQL dedupe store: a callback is handled once across every replica. A claim opens a
 * transaction and inserts the callback's key into a table where it is unique; `complete` commits it,
 * `release` rolls it back. A duplicate that reaches another replica meanwhile waits on the unique key: it
 * is `done` once the first commits, and it is handled after all when the first replica dies (its
 * connection drops and its transaction rolls back), so a crash half-way never loses a callback.
 * @example
 * createCarrierAgent({ baseUrl, receiver: { dedupe: { store: createPostgresDedupeStore({ pool }) }, ack: 'after-processing' } });
 */
export function createPostgresDedupeStore(options: PostgresDedupeStoreOptions): PostgresDedupeStore {
  const { pool, owned } = openPool(options, 'createPostgresDedupeStore');
  const owner = options.owner ?? replicaName();
  const open = new Map<string, pg.PoolClient>();
  const guarded = new WeakSet<pg.PoolClient>();
  let prunedAt = 0;
  const finish = async (key: string, statement: 'COMMIT' | 'ROLLBACK', before?: () => Promise<unknown>) => {
    const client = open.get(key);
    if (!client) return;
    open.delete(key);
    try {
      await before?.();
      await client.query(statement);
      client.release();
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      // A client whose transaction failed is not given back to the pool in an unknown state.
      client.release(error instanceof Error ? error : true);
      if (statement === 'COMMIT') throw error;
    }
  };
  return {
    transactional: true,
    async claim(key, leaseMs): Promise<ClaimResult> {
      if (open.has(key)) return 'in_flight';
      // Keys past their TTL are forgotten in batches, about once a minute per replica.
      if (Date.now() - prunedAt > 60_000) {
        prunedAt = Date.now();
        await pool.query(DEDUPE_SQL.prune);
      }
      const client = await pool.connect();
      // A connection lost while its transaction is open (the server restarted) must not crash the process:
      // the transaction is gone, and the next statement on it fails and is handled there.
      if (!guarded.has(client)) {
        guarded.add(client);
        client.on('error', () => undefined);
      }
      try {
        await client.query('BEGIN');
        // A duplicate waits at most a lease for the replica that handles the same callback.
        await client.query(DEDUPE_SQL.lockTimeout, [`${Math.max(1, Math.round(leaseMs))}ms`]);
        await client.query(DEDUPE_SQL.forgetExpired, [key]);
        const inserted = await client.query(DEDUPE_SQL.claim, [key, owner, leaseMs]);
        if (inserted.rowCount === 1) {
          open.set(key, client);
          return 'claimed';
        }
        await client.query('ROLLBACK');
        client.release();
        return 'done';
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        client.release();
        if ((error as { code?: string }).code === '55P03') return 'in_flight';
        throw error;
      }
    },
    complete(key, ttlMs) {
      const client = open.get(key);
      return finish(key, 'COMMIT', () => client!.query(DEDUPE_SQL.complete, [key, ttlMs]));
    },
    release(key) {
      return finish(key, 'ROLLBACK');
    },
    transaction(key) {
      return open.get(key);
    },
    async close() {
      for (const key of [...open.keys()]) await finish(key, 'ROLLBACK');
      if (owned) await pool.end();
    },
  };
}
