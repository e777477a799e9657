/**
 * @restoapi/carrier-kit/postgres: stores for a carrier service that runs as several replicas on one
 * PostgreSQL database: the shared outbox (skip-locked claims under leases), the callback dedupe (a unique
 * key in the transaction of the work it starts), the schema migrations, and the replica coordination of
 * the simulator. Needs the `pg` package (a peer dependency).
 */
export { migrate, type MigrationResult } from './postgres/migrate.js';
export { MIGRATIONS, type Migration } from './postgres/sql.js';
export { replicaName, type PostgresConnectionOptions } from './postgres/connection.js';
export { createPostgresOutboxStore, type PostgresOutboxStoreOptions } from './postgres/postgres-outbox-store.js';
export {
  createPostgresDedupeStore,
  type PostgresDedupeStore,
  type PostgresDedupeStoreOptions,
} from './postgres/postgres-dedupe-store.js';
export {
  createReplicaCoordinator,
  type Registration,
  type ReplicaCoordinator,
  type ReplicaCoordinatorOptions,
} from './postgres/replica-coordinator.js';
