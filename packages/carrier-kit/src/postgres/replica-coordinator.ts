import type pg from 'pg';
import { inTransaction } from './connection.js';
import { REPLICA_SQL } from './sql.js';

/** Options of {@link createReplicaCoordinator}. */
export interface ReplicaCoordinatorOptions {
  pool: pg.Pool;
  /** This replica's name. */
  owner: string;
  /** How long a delivery stays with its replica after its last heartbeat (default 10 s). */
  leaseMs?: number;
}

/** How a replica got its carrier id. */
export interface Registration {
  carrierId: number;
  /** `true`: another replica had registered the callback URL and this one joined it. */
  joined: boolean;
}

/** Who drives which delivery among the replicas of a carrier, and who registered the carrier. */
export interface ReplicaCoordinator {
  /**
   * Takes the delivery of an order for this replica unless another live one has it; pass the transaction
   * of the callback that started it, so the claim commits with the callback's dedupe mark.
   */
  claimDelivery(secureId: string, orderId: number | undefined, transaction?: pg.PoolClient): Promise<boolean>;
  /** The delivery is over (delivered or cancelled): nobody takes it over. */
  finish(secureId: string): Promise<void>;
  /** Deliveries of replicas that stopped renewing their lease, now this replica's. */
  takeOver(limit: number): Promise<{ secureId: string; orderId: number | null }[]>;
  /** Gives one delivery of this replica up, so another replica (or this one) takes it over later. */
  release(secureId: string): Promise<void>;
  /** Renews the leases of this replica's deliveries. */
  heartbeat(): Promise<void>;
  /** Gives every delivery of this replica up at once (a clean stop). */
  releaseAll(): Promise<void>;
  /**
   * The carrier id registered for `callbackUrl`: the one another replica registered when the service
   * still knows it (`exists`), else a new registration made by `register`, recorded for the others.
   */
  register(
    callbackUrl: string,
    register: () => Promise<number>,
    exists: (carrierId: number) => Promise<boolean>,
  ): Promise<Registration>;
}

/** Creates the coordination of the simulator's replicas on PostgreSQL (tables of {@link migrate}). */
export function createReplicaCoordinator(options: ReplicaCoordinatorOptions): ReplicaCoordinator {
  const { pool, owner } = options;
  const leaseMs = options.leaseMs ?? 10_000;
  return {
    async claimDelivery(secureId, orderId, transaction) {
      const result = await (transaction ?? pool).query(REPLICA_SQL.claimDelivery, [
        secureId,
        orderId ?? null,
        owner,
        leaseMs,
      ]);
      return result.rowCount === 1;
    },
    async finish(secureId) {
      await pool.query(REPLICA_SQL.finish, [secureId, owner]);
    },
    async takeOver(limit) {
      const { rows } = await pool.query<{ secure_id: string; order_id: number | null }>(REPLICA_SQL.takeOver, [
        owner,
        leaseMs,
        limit,
      ]);
      return rows.map((row) => ({ secureId: row.secure_id, orderId: row.order_id }));
    },
    async heartbeat() {
      await pool.query(REPLICA_SQL.heartbeat, [owner, leaseMs]);
    },
    async release(secureId) {
      await pool.query(REPLICA_SQL.release, [secureId, owner]);
    },
    async releaseAll() {
      await pool.query(REPLICA_SQL.releaseAll, [owner]);
    },
    register(callbackUrl, register, exists) {
      return inTransaction(pool, async (client) => {
        await client.query(REPLICA_SQL.lockRegistration, [callbackUrl]);
        const [known] = (await client.query<{ carrier_id: number }>(REPLICA_SQL.registration, [callbackUrl])).rows;
        if (known && (await exists(known.carrier_id))) return { carrierId: known.carrier_id, joined: true };
        const carrierId = await register();
        await client.query(REPLICA_SQL.register, [callbackUrl, carrierId, owner]);
        return { carrierId, joined: false };
      });
    },
  };
}
