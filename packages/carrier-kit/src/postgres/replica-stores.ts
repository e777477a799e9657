import type pg from 'pg';
import { openPool, replicaName } from './connection.js';
import { migrate } from './migrate.js';
import { createPostgresDedupeStore, type PostgresDedupeStore } from './postgres-dedupe-store.js';
import { createPostgresOutboxStore } from './postgres-outbox-store.js';
import { createReplicaCoordinator, type ReplicaCoordinator } from './replica-coordinator.js';
import type { SharedOutboxStore } from '../outbox/outbox-store.js';

/** Everything one replica of a carrier service keeps on the shared database. */
export interface ReplicaStores {
  pool: pg.Pool;
  /** This replica's name in leases and marks. */
  owner: string;
  outboxStore: SharedOutboxStore;
  dedupe: PostgresDedupeStore;
  coordinator: ReplicaCoordinator;
  close(): Promise<void>;
}

/**
 * Connects a replica to the shared database: migrates it to the newest schema (every replica may; the
 * migrations take turns), then opens the outbox, dedupe and coordination stores on one pool.
 * @example
 * const stores = await openReplicaStores('postgres://carrier@127.0.0.1/carrier', 10_000);
 */
export async function openReplicaStores(connectionString: string, leaseMs: number): Promise<ReplicaStores> {
  const { pool } = openPool({ connectionString }, 'openReplicaStores');
  // A callback holds a client for its transaction while its work takes another: room for both.
  pool.options.max = 20;
  try {
    await migrate(pool);
  } catch (error) {
    await pool.end();
    throw error;
  }
  const owner = replicaName();
  return {
    pool,
    owner,
    outboxStore: createPostgresOutboxStore({ pool, owner, leaseMs }),
    dedupe: createPostgresDedupeStore({ pool, owner }),
    coordinator: createReplicaCoordinator({ pool, owner, leaseMs }),
    async close() {
      await pool.end();
    },
  };
}
