import type pg from 'pg';
import type { DeliveryUpdate } from '../carrier-api/carrier-api.js';
import type { OutboxEntry, SharedEnqueueResult, SharedOutboxStore } from '../outbox/outbox-store.js';
import { inTransaction, openPool, replicaName, type PostgresConnectionOptions } from './connection.js';
import { OUTBOX_SQL } from './sql.js';

/** Options of {@link createPostgresOutboxStore}. */
export interface PostgresOutboxStoreOptions extends PostgresConnectionOptions {
  /** This replica's name in leases (default: host, pid and a random part). */
  owner?: string;
  /** How long a claimed update stays with this replica before another may send it (default 30 s). */
  leaseMs?: number;
  /** How long settled updates (sent, refused, dropped) stay in the table, for audits (default 24 h). */
  keepMs?: number;
}

interface EntryRow {
  id: string;
  secure_id: string;
  order_id: number | null;
  kind: 'status' | 'position';
  patch: DeliveryUpdate;
  attempts: number;
  last_error: string | null;
  created_ms: number;
  not_before_ms: number;
}

function toEntry(row: EntryRow): OutboxEntry {
  return {
    id: Number(row.id),
    secureId: row.secure_id,
    ...(row.order_id !== null ? { orderId: row.order_id } : {}),
    kind: row.kind,
    patch: row.patch,
    createdAt: row.created_ms,
    attempts: row.attempts,
    notBefore: row.not_before_ms,
    ...(row.last_error !== null ? { lastError: row.last_error } : {}),
  };
}

/**
 * Creates the PostgreSQL outbox store, shared by every replica of a carrier service: one row per
 * delivery update, claimed with `FOR UPDATE SKIP LOCKED` under a lease, so each update is sent by one
 * replica at a time, an order's updates go out in order, and a dead replica's updates are taken over
 * when its lease runs out. Apply the schema first with `migrate`.
 * @example
 * const agent = createCarrierAgent({ baseUrl, outboxStore: createPostgresOutboxStore({ pool }) });
 */
export function createPostgresOutboxStore(options: PostgresOutboxStoreOptions): SharedOutboxStore {
  const { pool, owned } = openPool(options, 'createPostgresOutboxStore');
  const owner = options.owner ?? replicaName();
  const leaseMs = options.leaseMs ?? 30_000;
  const keepMs = options.keepMs ?? 24 * 60 * 60 * 1000;
  let prunedAt = 0;
  const query = async <R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<R[]> =>
    (await pool.query<R>(text, values)).rows;
  return {
    shared: true,
    owner,
    leaseMs,
    async enqueue(update) {
      if (update.kind === 'status' && !update.terminal) {
        const [row] = await query<EntryRow>(OUTBOX_SQL.insertStatus, [
          update.secureId,
          update.orderId ?? null,
          update.patch,
          owner,
        ]);
        return { outcome: 'queued', entry: toEntry(row!) };
      }
      return inTransaction(pool, async (client): Promise<SharedEnqueueResult> => {
        const orderId = update.orderId ?? null;
        const [order] = (await client.query<{ closed: boolean }>(OUTBOX_SQL.lockOrder, [update.secureId, orderId]))
          .rows;
        const patch = { ...update.patch };
        if (update.kind === 'position' && order?.closed) return { outcome: 'dropped_terminal' };
        // Only a position or the final status deals with the waiting position.
        const [waiting] =
          update.kind === 'position' || update.terminal
            ? (await client.query<{ id: string; patch: DeliveryUpdate }>(OUTBOX_SQL.waitingPosition, [update.secureId]))
                .rows
            : [];
        let foldedPosition = false;
        if (update.kind === 'position' && waiting) {
          await client.query(OUTBOX_SQL.replacePatch, [waiting.id, patch]);
          return { outcome: 'coalesced' };
        }
        if (update.terminal) {
          await client.query(OUTBOX_SQL.close, [update.secureId]);
          // The last position reported before the end rides along with the final status, in one call.
          if (waiting && patch.lat === undefined && patch.lon === undefined) {
            patch.lat = waiting.patch.lat;
            patch.lon = waiting.patch.lon;
            await client.query(OUTBOX_SQL.markCoalesced, [waiting.id]);
            foldedPosition = true;
          }
        }
        const [row] = (
          await client.query<EntryRow>(OUTBOX_SQL.insert, [
            update.secureId,
            orderId,
            update.kind,
            patch,
            owner,
            update.minIntervalMs,
          ])
        ).rows;
        return { outcome: 'queued', entry: toEntry(row!), foldedPosition };
      });
    },
    async claim(limit) {
      // Each replica trims the settled rows about once a minute, a batch at a time.
      if (Date.now() - prunedAt > 60_000) {
        prunedAt = Date.now();
        await query(OUTBOX_SQL.prune, [keepMs]);
      }
      return (await query<EntryRow>(OUTBOX_SQL.claim, [owner, leaseMs, limit])).map(toEntry);
    },
    async markSent(id) {
      await query(OUTBOX_SQL.sent, [id, owner]);
    },
    async markRetry(id, delayMs, error) {
      await query(OUTBOX_SQL.retry, [id, owner, delayMs, error]);
    },
    async markRejected(id, error) {
      await query(OUTBOX_SQL.rejected, [id, error]);
    },
    discard(secureId) {
      return inTransaction(pool, async (client) => {
        await client.query(OUTBOX_SQL.lockOrder, [secureId, null]);
        await client.query(OUTBOX_SQL.close, [secureId]);
        return (await client.query<EntryRow>(OUTBOX_SQL.discard, [secureId])).rows.map(toEntry);
      });
    },
    async stillPending(ids) {
      if (ids.length === 0) return new Set();
      return new Set((await query<{ id: string }>(OUTBOX_SQL.stillPending, [ids])).map((row) => Number(row.id)));
    },
    async pending(secureId) {
      return (await query<EntryRow>(OUTBOX_SQL.pending, [secureId ?? null])).map(toEntry);
    },
    async close() {
      if (owned) await pool.end();
    },
  };
}
