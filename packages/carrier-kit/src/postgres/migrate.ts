import type pg from 'pg';
import { inTransaction, openPool, type PostgresConnectionOptions } from './connection.js';
import { MIGRATIONS, MIGRATION_SQL } from './sql.js';

/** What {@link migrate} did. */
export interface MigrationResult {
  /** Versions applied by this call, in order. */
  applied: number[];
  /** The schema version the database is at now. */
  version: number;
}

/**
 * Brings the database to the newest schema of the PostgreSQL stores: applies the migrations it lacks, in
 * one transaction, under an advisory lock so replicas starting together apply each migration once.
 * Safe to run at every start.
 * @example
 * await migrate({ connectionString: process.env.DATABASE_URL });
 */
export async function migrate(options: PostgresConnectionOptions | pg.Pool): Promise<MigrationResult> {
  const { pool, owned } = openPool('query' in options ? { pool: options } : options, 'migrate');
  try {
    return await inTransaction(pool, async (client) => {
      await client.query(MIGRATION_SQL.lock);
      await client.query(MIGRATION_SQL.createTable);
      const done = new Set(
        (await client.query<{ version: number }>(MIGRATION_SQL.applied)).rows.map((row) => row.version),
      );
      const applied: number[] = [];
      for (const migration of MIGRATIONS) {
        if (done.has(migration.version)) continue;
        await client.query(migration.sql);
        await client.query(MIGRATION_SQL.record, [migration.version, migration.name]);
        applied.push(migration.version);
      }
      return { applied, version: Math.max(0, ...done, ...applied) };
    });
  } finally {
    if (owned) await pool.end();
  }
}
