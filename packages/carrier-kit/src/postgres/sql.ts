/**
 * Every SQL statement of the PostgreSQL stores, in one module (as pg-boss keeps its plans): the
 * migrations that make the schema, and the statements the outbox, dedupe and replica stores run.
 * Reviewing the concurrency of the kit on PostgreSQL means reading this file.
 */

/** One versioned schema change; applied once, in `version` order, recorded in `carrier_kit_migrations`. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/** The schema of the PostgreSQL stores, as versioned migrations (append only: never edit an applied one). */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'outbox, dedupe, deliveries and registrations',
    sql: `
CREATE TABLE carrier_outbox_orders (
  secure_id text PRIMARY KEY,
  order_id integer,
  closed boolean NOT NULL DEFAULT false
);
CREATE TABLE carrier_outbox (
  id bigserial PRIMARY KEY,
  secure_id text NOT NULL REFERENCES carrier_outbox_orders (secure_id),
  order_id integer,
  kind text NOT NULL CHECK (kind IN ('status', 'position')),
  patch jsonb NOT NULL,
  state text NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'sent', 'rejected', 'dropped', 'coalesced')),
  attempts integer NOT NULL DEFAULT 0,
  claims integer NOT NULL DEFAULT 0,
  not_before timestamptz NOT NULL DEFAULT now(),
  lease_owner text,
  lease_until timestamptz,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  enqueued_by text,
  sent_at timestamptz,
  sent_by text,
  sent_seq bigint
);
CREATE INDEX carrier_outbox_pending ON carrier_outbox (secure_id, id) WHERE state = 'pending';
CREATE INDEX carrier_outbox_sent_positions ON carrier_outbox (secure_id, sent_at) WHERE state = 'sent' AND kind = 'position';
CREATE INDEX carrier_outbox_done ON carrier_outbox (created_at) WHERE state <> 'pending';
CREATE SEQUENCE carrier_outbox_sent_seq;
CREATE TABLE carrier_callbacks (
  key text PRIMARY KEY,
  handled_by text NOT NULL,
  handled_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL
);
CREATE INDEX carrier_callbacks_expiry ON carrier_callbacks (expires_at);
CREATE TABLE carrier_deliveries (
  secure_id text PRIMARY KEY,
  order_id integer,
  owner text NOT NULL,
  owner_until timestamptz NOT NULL,
  owners integer NOT NULL DEFAULT 1,
  finished boolean NOT NULL DEFAULT false
);
CREATE TABLE carrier_registrations (
  callback_url text PRIMARY KEY,
  carrier_id integer NOT NULL,
  registered_by text NOT NULL,
  registered_at timestamptz NOT NULL DEFAULT now()
);`,
  },
];

/** Statements of {@link migrate}. */
export const MIGRATION_SQL = {
  /** Serialises concurrent migrations of one database (replicas starting together). */
  lock: `SELECT pg_advisory_xact_lock(hashtext('restoapi-carrier-kit:migrate'))`,
  createTable: `CREATE TABLE IF NOT EXISTS carrier_kit_migrations (
  version integer PRIMARY KEY,
  name text NOT NULL,
  applied_at timestamptz NOT NULL DEFAULT now()
)`,
  applied: `SELECT version FROM carrier_kit_migrations ORDER BY version`,
  record: `INSERT INTO carrier_kit_migrations (version, name) VALUES ($1, $2)`,
} as const;

/** The columns an outbox entry is read from, with an optional table alias. */
function entryColumns(alias = ''): string {
  const a = alias ? `${alias}.` : '';
  return `${a}id, ${a}secure_id, ${a}order_id, ${a}kind, ${a}patch, ${a}attempts, ${a}last_error,
  (extract(epoch FROM ${a}created_at) * 1000)::float8 AS created_ms,
  (extract(epoch FROM ${a}not_before) * 1000)::float8 AS not_before_ms`;
}
const ENTRY_COLUMNS = entryColumns();

/** Statements of the PostgreSQL outbox store. */
export const OUTBOX_SQL = {
  /**
   * Makes sure the order has its row and locks it for the rest of the transaction: enqueues and
   * claims of one order take turns on this row, so a claim never sees half an enqueue.
   */
  lockOrder: `INSERT INTO carrier_outbox_orders (secure_id, order_id) VALUES ($1, $2)
ON CONFLICT (secure_id) DO UPDATE SET order_id = coalesce(EXCLUDED.order_id, carrier_outbox_orders.order_id)
RETURNING closed`,
  close: `UPDATE carrier_outbox_orders SET closed = true WHERE secure_id = $1`,
  /** The position of the order still waiting to be sent (not in flight), to fold into a newer one. */
  waitingPosition: `SELECT id, patch FROM carrier_outbox
WHERE secure_id = $1 AND state = 'pending' AND kind = 'position'
  AND (lease_until IS NULL OR lease_until < now())
ORDER BY id DESC LIMIT 1`,
  replacePatch: `UPDATE carrier_outbox SET patch = $2 WHERE id = $1`,
  markCoalesced: `UPDATE carrier_outbox SET state = 'coalesced' WHERE id = $1`,
  /** A position waits for the interval since the order's last position sent (by any replica). */
  insert: `INSERT INTO carrier_outbox (secure_id, order_id, kind, patch, enqueued_by, not_before)
VALUES ($1, $2, $3, $4, $5,
  CASE WHEN $3 = 'position' THEN greatest(now(), (
    SELECT max(sent_at) FROM carrier_outbox WHERE secure_id = $1 AND kind = 'position' AND state = 'sent'
  ) + $6 * interval '1 millisecond') ELSE now() END)
RETURNING ${ENTRY_COLUMNS}`,
  /** A status that does not end the delivery, queued in one statement (the order's row is locked by its upsert). */
  insertStatus: `WITH ensured AS (
  INSERT INTO carrier_outbox_orders (secure_id, order_id) VALUES ($1, $2)
  ON CONFLICT (secure_id) DO UPDATE SET order_id = coalesce(EXCLUDED.order_id, carrier_outbox_orders.order_id)
  RETURNING secure_id
)
INSERT INTO carrier_outbox (secure_id, order_id, kind, patch, enqueued_by)
SELECT secure_id, $2, 'status', $3, $4 FROM ensured
RETURNING ${ENTRY_COLUMNS}`,
  /**
   * Claims the next update of up to $3 orders for replica $1, leased for $2 ms. Per order only its
   * first pending update can be taken (a position waiting for its interval does not hold back the
   * statuses after it; a retry does), and none while another update of the order is in flight under a
   * live lease. Orders are locked with SKIP LOCKED, so replicas claim different orders side by side.
   * The last conditions are checked again on the newest row version (READ COMMITTED re-evaluates an
   * UPDATE's WHERE on a row changed meanwhile), so a claim that raced a commit takes nothing.
   */
  claim: `WITH orders AS (
  SELECT o.secure_id FROM carrier_outbox_orders o
  WHERE o.secure_id IN (SELECT e.secure_id FROM carrier_outbox e WHERE e.state = 'pending' AND e.not_before <= now())
    AND NOT EXISTS (SELECT 1 FROM carrier_outbox e
                    WHERE e.secure_id = o.secure_id AND e.state = 'pending' AND e.lease_until >= now())
  LIMIT $3
  FOR UPDATE OF o SKIP LOCKED
), heads AS (
  SELECT DISTINCT ON (e.secure_id) e.id, e.not_before FROM carrier_outbox e JOIN orders USING (secure_id)
  WHERE e.state = 'pending' AND NOT (e.kind = 'position' AND e.attempts = 0 AND e.not_before > now())
  ORDER BY e.secure_id, e.id
)
UPDATE carrier_outbox e
SET lease_owner = $1, lease_until = now() + $2 * interval '1 millisecond', claims = e.claims + 1
FROM heads
WHERE e.id = heads.id AND heads.not_before <= now()
  AND e.state = 'pending' AND (e.lease_until IS NULL OR e.lease_until < now())
RETURNING ${entryColumns('e')}`,
  sent: `UPDATE carrier_outbox
SET state = 'sent', sent_at = clock_timestamp(), sent_by = $2, sent_seq = nextval('carrier_outbox_sent_seq'),
    lease_owner = NULL, lease_until = NULL
WHERE id = $1 AND state = 'pending'`,
  retry: `UPDATE carrier_outbox
SET attempts = attempts + 1, not_before = now() + $3 * interval '1 millisecond', last_error = $4,
    lease_owner = NULL, lease_until = NULL
WHERE id = $1 AND lease_owner = $2 AND state = 'pending'`,
  rejected: `UPDATE carrier_outbox SET state = 'rejected', last_error = $2, lease_owner = NULL, lease_until = NULL
WHERE id = $1 AND state = 'pending'`,
  /** Drops the pending updates of an order that are not in flight. */
  discard: `UPDATE carrier_outbox SET state = 'dropped'
WHERE secure_id = $1 AND state = 'pending' AND (lease_until IS NULL OR lease_until < now())
RETURNING ${ENTRY_COLUMNS}`,
  /** Forgets up to 1000 updates that were settled (sent, refused, dropped) more than $1 ms ago. */
  prune: `DELETE FROM carrier_outbox WHERE id IN (
  SELECT id FROM carrier_outbox WHERE state <> 'pending' AND created_at < now() - $1 * interval '1 millisecond'
  LIMIT 1000
)`,
  /** Which of the given updates are still pending. */
  stillPending: `SELECT id FROM carrier_outbox WHERE id = ANY($1::bigint[]) AND state = 'pending'`,
  /** Pending updates, oldest first (of one order when $1 is not null). */
  pending: `SELECT ${ENTRY_COLUMNS} FROM carrier_outbox
WHERE state = 'pending' AND ($1::text IS NULL OR secure_id = $1) ORDER BY id`,
  closedOrders: `SELECT secure_id FROM carrier_outbox_orders WHERE closed AND secure_id = ANY($1::text[])`,
  /** Milliseconds until the next pending update is due (negative: due now), or null when none waits. */
  nextDue: `SELECT (extract(epoch FROM min(not_before) - now()) * 1000)::float8 AS ms
FROM carrier_outbox WHERE state = 'pending'`,
} as const;

/** Statements of the PostgreSQL dedupe store. */
export const DEDUPE_SQL = {
  /** A processed key whose TTL ran out is forgotten, so the callback counts as new. */
  forgetExpired: `DELETE FROM carrier_callbacks WHERE key = $1 AND expires_at < now()`,
  /**
   * Claims the key inside the caller's transaction. A unique key that another open transaction has just
   * inserted makes this insert wait for it: if that one commits, the key is taken (`done`); if it rolls
   * back (its replica died and the connection dropped), this one gets it.
   */
  claim: `INSERT INTO carrier_callbacks (key, handled_by, expires_at) VALUES ($1, $2, now() + $3 * interval '1 millisecond')
ON CONFLICT (key) DO NOTHING RETURNING key`,
  /** Forgets up to 1000 keys whose TTL ran out. */
  prune: `DELETE FROM carrier_callbacks WHERE key IN (
  SELECT key FROM carrier_callbacks WHERE expires_at < now() LIMIT 1000 FOR UPDATE SKIP LOCKED
)`,
  complete: `UPDATE carrier_callbacks SET expires_at = now() + $2 * interval '1 millisecond' WHERE key = $1`,
  lockTimeout: `SELECT set_config('lock_timeout', $1, true)`,
} as const;

/** Statements of the replica coordination of the simulator: who drives which delivery, who registered. */
export const REPLICA_SQL = {
  /** Takes the delivery of an order unless another replica holds it under a live lease. */
  claimDelivery: `INSERT INTO carrier_deliveries (secure_id, order_id, owner, owner_until)
VALUES ($1, $2, $3, now() + $4 * interval '1 millisecond')
ON CONFLICT (secure_id) DO UPDATE
SET owner = EXCLUDED.owner, owner_until = EXCLUDED.owner_until,
    owners = carrier_deliveries.owners + (CASE WHEN carrier_deliveries.owner = EXCLUDED.owner THEN 0 ELSE 1 END)
WHERE NOT carrier_deliveries.finished
  AND (carrier_deliveries.owner = EXCLUDED.owner OR carrier_deliveries.owner_until < now())
RETURNING secure_id`,
  /** Keeps this replica's deliveries leased while it lives. */
  heartbeat: `UPDATE carrier_deliveries SET owner_until = now() + $2 * interval '1 millisecond'
WHERE owner = $1 AND NOT finished`,
  finish: `UPDATE carrier_deliveries SET finished = true WHERE secure_id = $1 AND owner = $2`,
  /** Gives one delivery up (taking it over failed), so a replica takes it over again later. */
  release: `UPDATE carrier_deliveries SET owner_until = now() - interval '1 second' WHERE secure_id = $1 AND owner = $2`,
  /** Gives this replica's deliveries up (a clean stop), so the others take them over at once. */
  releaseAll: `UPDATE carrier_deliveries SET owner_until = now() - interval '1 second' WHERE owner = $1 AND NOT finished`,
  /**
   * Takes over up to $3 deliveries whose replica stopped renewing its lease (it died). Only orders whose
   * updates have all gone out: the service then shows where the delivery stands.
   */
  takeOver: `UPDATE carrier_deliveries d
SET owner = $1, owner_until = now() + $2 * interval '1 millisecond', owners = d.owners + 1
WHERE d.secure_id IN (
  SELECT o.secure_id FROM carrier_deliveries o
  WHERE NOT o.finished AND o.owner_until < now()
    AND NOT EXISTS (SELECT 1 FROM carrier_outbox e WHERE e.secure_id = o.secure_id AND e.state = 'pending')
  LIMIT $3
  FOR UPDATE SKIP LOCKED
) AND d.owner_until < now()
RETURNING d.secure_id, d.order_id`,
  /** Serialises the registration of one callback URL among replicas starting together. */
  lockRegistration: `SELECT pg_advisory_xact_lock(hashtext('restoapi-carrier-kit:register:' || $1))`,
  registration: `SELECT carrier_id FROM carrier_registrations WHERE callback_url = $1`,
  register: `INSERT INTO carrier_registrations (callback_url, carrier_id, registered_by) VALUES ($1, $2, $3)
ON CONFLICT (callback_url) DO UPDATE SET carrier_id = EXCLUDED.carrier_id, registered_by = EXCLUDED.registered_by,
  registered_at = now()`,
} as const;
