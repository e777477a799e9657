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

/**
 * carrier_outbox_enqueue as migration 3 made it (kept apart so migration 6 can widen what it counts as
 * in flight without restating it).
 */
const ENQUEUE_FUNCTION = `-- Queues an update in one call: $1 order, $2 order id, $3 kind, $4 patch, $5 final status, $6 replica, $7 ms
-- between positions, $8 wake the replicas. A status takes the order's row FOR KEY SHARE only (claims and
-- settles of the order go on meanwhile: their FOR NO KEY UPDATE does not conflict), queues its row, and
-- writes the order's due time only when the order needs a replica sooner and no claim or settle holds its
-- row (one that does re-checks the order before it leaves it idle: carrier_outbox_recheck). A position, or
-- a final status that takes the order's waiting position along, takes the row FOR UPDATE: it rewrites
-- rows a claim reads. Answers the outcome (queued, coalesced, dropped_terminal), whether a position was
-- folded, and the update queued.
CREATE FUNCTION carrier_outbox_enqueue(text, integer, text, jsonb, boolean, text, float8, boolean)
RETURNS TABLE (outcome text, folded boolean, woke boolean, id bigint, secure_id text, order_id integer, kind text, patch jsonb, attempts integer, last_error text, created_ms float8, not_before_ms float8) LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  made boolean;
  alone boolean;
  waiting bigint;
  taken jsonb;
  e carrier_outbox%ROWTYPE;
  sooner integer := 0;
BEGIN
  alone := $3 = 'position' OR ($5 AND NOT ($4 ? 'lat' OR $4 ? 'lon') AND EXISTS (
    SELECT 1 FROM carrier_outbox w JOIN carrier_outbox_orders o ON o.secure_id = w.secure_id
    WHERE w.secure_id = $1 AND w.state = 'pending' AND w.kind = 'position'
      AND NOT coalesce(o.lease_id = w.id AND o.lease_until >= now(), false)));
  -- The order's row: made when new (due at once), else locked, never written here. A row pruned between the
  -- two statements is made again.
  LOOP
    INSERT INTO carrier_outbox_orders (secure_id, order_id, due_at) VALUES ($1, $2, now())
    ON CONFLICT DO NOTHING RETURNING true INTO made;
    EXIT WHEN made;
    IF alone THEN
      PERFORM 1 FROM carrier_outbox_orders o WHERE o.secure_id = $1 FOR UPDATE;
    ELSE
      PERFORM 1 FROM carrier_outbox_orders o WHERE o.secure_id = $1 FOR KEY SHARE;
    END IF;
    EXIT WHEN FOUND;
  END LOOP;
  made := coalesce(made, false);
  IF alone AND NOT made THEN
    IF $3 = 'position' AND (
      EXISTS (SELECT 1 FROM carrier_outbox_orders o WHERE o.secure_id = $1 AND o.closed)
      OR EXISTS (SELECT 1 FROM carrier_outbox t WHERE t.secure_id = $1 AND t.state = 'pending' AND t.terminal)) THEN
      RETURN QUERY SELECT 'dropped_terminal'::text, false, false, NULL::bigint, NULL::text, NULL::integer, NULL::text,
        NULL::jsonb, NULL::integer, NULL::text, NULL::float8, NULL::float8;
      RETURN;
    END IF;
    SELECT w.id INTO waiting FROM carrier_outbox w JOIN carrier_outbox_orders o ON o.secure_id = w.secure_id
    WHERE w.secure_id = $1 AND w.state = 'pending' AND w.kind = 'position'
      AND NOT coalesce(o.lease_id = w.id AND o.lease_until >= now(), false)
    ORDER BY w.id DESC LIMIT 1;
    IF waiting IS NOT NULL AND $3 = 'position' THEN
      UPDATE carrier_outbox w SET patch = $4 WHERE w.id = waiting;
      RETURN QUERY SELECT 'coalesced'::text, false, false, NULL::bigint, NULL::text, NULL::integer, NULL::text,
        NULL::jsonb, NULL::integer, NULL::text, NULL::float8, NULL::float8;
      RETURN;
    ELSIF waiting IS NOT NULL AND NOT ($4 ? 'lat' OR $4 ? 'lon') THEN
      UPDATE carrier_outbox w SET state = 'coalesced' WHERE w.id = waiting AND w.state = 'pending'
      RETURNING jsonb_build_object('lat', w.patch -> 'lat', 'lon', w.patch -> 'lon') INTO taken;
    END IF;
  END IF;
  -- A position waits for the interval since the order's last position sent (by any replica); one in flight
  -- (its answer not written yet) counts as sent now.
  INSERT INTO carrier_outbox AS w (secure_id, order_id, kind, patch, enqueued_by, terminal, not_before)
  VALUES ($1, $2, $3, $4 || coalesce(taken, '{}'::jsonb), $6, $5,
    CASE WHEN $3 = 'position' THEN greatest(now(), (
      SELECT max(s.sent_at) FROM carrier_outbox s WHERE s.secure_id = $1 AND s.kind = 'position' AND s.state = 'sent'
    ) + $7 * interval '1 millisecond', (
      SELECT now() + $7 * interval '1 millisecond' FROM carrier_outbox f JOIN carrier_outbox_orders o ON o.lease_id = f.id
      WHERE o.secure_id = $1 AND f.kind = 'position' AND f.state = 'pending' AND o.lease_until >= now()
    )) ELSE now() END)
  RETURNING w.* INTO e;
  IF NOT made THEN
    -- Sooner only, and never into a lease: skipped while a claim or settle holds the row (it re-checks).
    UPDATE carrier_outbox_orders o SET due_at = least(o.due_at, e.not_before), order_id = coalesce(o.order_id, $2)
    WHERE o.secure_id = (SELECT l.secure_id FROM carrier_outbox_orders l WHERE l.secure_id = $1
      AND (l.due_at IS NULL OR (l.due_at > e.not_before AND NOT coalesce(l.lease_until >= now(), false)))
      FOR NO KEY UPDATE SKIP LOCKED);
    GET DIAGNOSTICS sooner = ROW_COUNT;
  END IF;
  IF $8 AND (made OR sooner > 0) THEN PERFORM pg_notify('carrier_outbox', ''); END IF;
  RETURN QUERY SELECT 'queued'::text, taken IS NOT NULL, made OR sooner > 0, e.id, e.secure_id, e.order_id, e.kind, e.patch, e.attempts,
    e.last_error, (extract(epoch FROM e.created_at) * 1000)::float8, (extract(epoch FROM e.not_before) * 1000)::float8;
END $fn$;`;

/** carrier_outbox_enqueue_statuses as migration 3 made it (see {@link ENQUEUE_FUNCTION}). */
const ENQUEUE_STATUSES_FUNCTION = `-- Queues a batch of statuses in one transaction (the enqueues that came together on one replica): $1 orders,
-- $2 order ids, $3 patches, $4 final, $5 replica, $6 wake the replicas. The orders' rows are made or taken FOR
-- KEY SHARE all at once, in one order (no deadlock with a re-check, which takes them FOR UPDATE in the same
-- order); then, in a fresh snapshot, the orders that need a replica sooner are made due (skipping those a
-- claim or settle holds: it re-checks them); then the updates are queued in the order given. A final status
-- of an order with a waiting position is answered 'deferred', not queued: it is queued by
-- carrier_outbox_enqueue, which takes the position along.
CREATE FUNCTION carrier_outbox_enqueue_statuses(text[], integer[], jsonb[], boolean[], text, boolean)
RETURNS TABLE (ord integer, outcome text, woke boolean, id bigint, secure_id text, order_id integer, kind text, patch jsonb, attempts integer, last_error text, created_ms float8, not_before_ms float8) LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE
  deferred integer[];
  orders text[];
  made text[] := '{}';
  more text[];
  held integer;
  sooner text[];
  e carrier_outbox%ROWTYPE;
BEGIN
  deferred := ARRAY(SELECT u.i FROM unnest($1, $3, $4) WITH ORDINALITY AS u(sid, p, fin, i)
    WHERE u.fin AND NOT (u.p ? 'lat' OR u.p ? 'lon') AND EXISTS (
      SELECT 1 FROM carrier_outbox w JOIN carrier_outbox_orders o ON o.secure_id = w.secure_id
      WHERE w.secure_id = u.sid AND w.state = 'pending' AND w.kind = 'position'
        AND NOT coalesce(o.lease_id = w.id AND o.lease_until >= now(), false)));
  orders := ARRAY(SELECT DISTINCT u.sid FROM unnest($1) WITH ORDINALITY AS u(sid, i) WHERE u.i <> ALL(deferred) ORDER BY 1);
  LOOP
    WITH ins AS (
      INSERT INTO carrier_outbox_orders (secure_id, order_id, due_at)
      SELECT DISTINCT ON (u.sid) u.sid, u.oid, now() FROM unnest($1, $2) AS u(sid, oid)
      WHERE u.sid = ANY(orders) AND u.sid <> ALL(made) ORDER BY u.sid, u.oid
      ON CONFLICT DO NOTHING RETURNING secure_id
    ) SELECT coalesce(array_agg(ins.secure_id), '{}') INTO more FROM ins;
    made := made || more;
    SELECT count(*) INTO held FROM (
      SELECT 1 FROM carrier_outbox_orders o WHERE o.secure_id = ANY(orders) AND o.secure_id <> ALL(made)
      ORDER BY o.secure_id FOR KEY SHARE) l;
    EXIT WHEN held + cardinality(made) = cardinality(orders);
  END LOOP;
  WITH need AS (
    SELECT l.secure_id FROM carrier_outbox_orders l
    WHERE l.secure_id = ANY(orders) AND l.secure_id <> ALL(made)
      AND (l.due_at IS NULL OR (l.due_at > now() AND NOT coalesce(l.lease_until >= now(), false)))
    ORDER BY l.secure_id FOR NO KEY UPDATE SKIP LOCKED
  ), moved AS (
    UPDATE carrier_outbox_orders o SET due_at = least(o.due_at, now()) FROM need WHERE o.secure_id = need.secure_id
    RETURNING o.secure_id
  ) SELECT coalesce(array_agg(moved.secure_id), '{}') INTO sooner FROM moved;
  IF $6 AND cardinality(made) + cardinality(sooner) > 0 THEN PERFORM pg_notify('carrier_outbox', ''); END IF;
  FOR i IN 1 .. cardinality($1) LOOP
    ord := i;
    IF i = ANY(deferred) THEN
      outcome := 'deferred'; woke := false; id := NULL; secure_id := NULL; order_id := NULL; kind := NULL;
      patch := NULL; attempts := NULL; last_error := NULL; created_ms := NULL; not_before_ms := NULL;
    ELSE
      INSERT INTO carrier_outbox AS w (secure_id, order_id, kind, patch, enqueued_by, terminal)
      VALUES ($1[i], $2[i], 'status', $3[i], $5, $4[i]) RETURNING w.* INTO e;
      outcome := 'queued'; woke := $1[i] = ANY(made) OR $1[i] = ANY(sooner);
      id := e.id; secure_id := e.secure_id; order_id := e.order_id; kind := e.kind; patch := e.patch;
      attempts := e.attempts; last_error := e.last_error;
      created_ms := (extract(epoch FROM e.created_at) * 1000)::float8;
      not_before_ms := (extract(epoch FROM e.not_before) * 1000)::float8;
    END IF;
    RETURN NEXT;
  END LOOP;
END $fn$;`;

/** carrier_outbox_settle as migration 5 made it (see {@link ENQUEUE_FUNCTION}). */
const SETTLE_FUNCTION = `CREATE OR REPLACE FUNCTION carrier_outbox_settle(bigint[], text[], float8[], text[], text, float8, boolean)
RETURNS TABLE (id bigint, secure_id text, order_id integer, kind text, patch jsonb, attempts integer, last_error text, created_ms float8, not_before_ms float8) LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE orders text[];
BEGIN
  orders := ARRAY(SELECT DISTINCT e.secure_id FROM carrier_outbox e WHERE e.id = ANY($1::bigint[]));
  PERFORM o.secure_id FROM carrier_outbox_orders o WHERE o.secure_id = ANY(orders)
  ORDER BY o.secure_id FOR NO KEY UPDATE OF o;
  RETURN QUERY WITH s AS (
    SELECT * FROM unnest($1::bigint[], $2::text[], $3::float8[], $4::text[]) AS s(id, outcome, delay_ms, error)
  ), done AS (
    UPDATE carrier_outbox e SET
      state = CASE WHEN s.outcome = 'retry' THEN 'pending' ELSE s.outcome END,
      attempts = e.attempts + CASE WHEN s.outcome = 'retry' THEN 1 ELSE 0 END,
      not_before = CASE WHEN s.outcome = 'retry' THEN now() + s.delay_ms * interval '1 millisecond' ELSE e.not_before END,
      last_error = coalesce(s.error, e.last_error),
      sent_at = CASE WHEN s.outcome = 'sent' THEN clock_timestamp() ELSE e.sent_at END,
      sent_by = CASE WHEN s.outcome = 'sent' THEN $5 ELSE e.sent_by END,
      sent_seq = CASE WHEN s.outcome = 'sent' THEN nextval('carrier_outbox_sent_seq') ELSE e.sent_seq END
    FROM s
    WHERE e.id = ANY($1::bigint[]) AND e.id = s.id AND e.state = 'pending'
      AND (s.outcome <> 'retry' OR EXISTS (SELECT 1 FROM carrier_outbox_orders o
                                           WHERE o.secure_id = e.secure_id AND o.lease_owner = $5 AND o.lease_id = e.id))
    RETURNING e.id, e.secure_id, e.kind, e.attempts, e.not_before, e.state, e.terminal
  ), d AS (
    -- Per order: the updates settled; ends: its final status was settled; retried: one is pending again.
    SELECT done.secure_id, array_agg(done.id) AS ids, bool_or(done.terminal AND done.state <> 'pending') AS ends,
      bool_or(done.state = 'pending') AS retried
    FROM done GROUP BY done.secure_id
  ), n AS (
    -- mine: the order's lease is for one of these updates, or has run out. A statement does not see its own
    -- writes, so the updates left pending are the order's other pending rows and those retried here.
    SELECT o.secure_id, l.mine, d.ends, h.head_id, h.head_due, h.first_due,
      coalesce(l.mine AND $7::boolean AND h.head_due <= now() AND h.head_id <> ALL(d.ids), false) AS take
    FROM d JOIN carrier_outbox_orders o ON o.secure_id = d.secure_id
    CROSS JOIN LATERAL (SELECT coalesce(o.lease_id = ANY(d.ids), false) OR o.lease_until IS NULL OR o.lease_until < now() AS mine) l
    CROSS JOIN LATERAL (
      SELECT (array_agg(r.id ORDER BY r.id) FILTER (WHERE r.eligible))[1] AS head_id,
        (array_agg(r.not_before ORDER BY r.id) FILTER (WHERE r.eligible))[1] AS head_due,
        min(r.not_before) AS first_due
      FROM (
        SELECT r.id, r.not_before, NOT (r.kind = 'position' AND r.attempts = 0 AND r.not_before > now()) AS eligible
        FROM (
          SELECT e.id, e.kind, e.attempts, e.not_before FROM carrier_outbox e
          WHERE e.secure_id = d.secure_id AND e.state = 'pending' AND e.id <> ALL(d.ids)
          UNION ALL
          SELECT x.id, x.kind, x.attempts, x.not_before FROM done x
          WHERE d.retried AND x.secure_id = d.secure_id AND x.state = 'pending'
        ) r
      ) r
    ) h
    WHERE l.mine OR d.ends
  ), moved AS (
    UPDATE carrier_outbox_orders o SET
      lease_owner = CASE WHEN NOT n.mine THEN o.lease_owner WHEN n.take THEN $5 END,
      lease_until = CASE WHEN NOT n.mine THEN o.lease_until WHEN n.take THEN now() + $6 * interval '1 millisecond' END,
      lease_id = CASE WHEN NOT n.mine THEN o.lease_id WHEN n.take THEN n.head_id END,
      due_at = CASE WHEN NOT n.mine THEN o.due_at
                    WHEN n.take AND o.due_at > now() THEN o.due_at
                    WHEN n.take THEN now() + $6 * interval '1 millisecond'
                    ELSE coalesce(n.head_due, n.first_due) END,
      closed = o.closed OR n.ends
    FROM n WHERE o.secure_id = n.secure_id
  )
  SELECT e.id, e.secure_id, e.order_id, e.kind, e.patch, e.attempts, e.last_error,
    (extract(epoch FROM e.created_at) * 1000)::float8 AS created_ms,
    (extract(epoch FROM e.not_before) * 1000)::float8 AS not_before_ms
  FROM n CROSS JOIN LATERAL (SELECT * FROM carrier_outbox e WHERE e.id = n.head_id) e
  WHERE n.take
  ORDER BY e.not_before, e.id;
  PERFORM carrier_outbox_recheck(orders);
END $fn$;`;

/** Whether the update `id` is in the range its order `o` has leased (the lease may have run out). */
const IN_LEASED_RANGE = (id: string): string => `${id} BETWEEN coalesce(o.lease_from, o.lease_id) AND o.lease_id`;

/**
 * `sql` with each `[from, to]` edit applied to every place `from` occurs; throws when one occurs nowhere,
 * so a change to the text a later migration rewrites cannot quietly leave that migration unchanged.
 */
function rewrite(sql: string, ...edits: [from: string, to: string][]): string {
  return edits.reduce(
    (text, [from, to]) => {
      if (!text.includes(from)) throw new Error(`migration text to rewrite not found: ${from}`);
      return text.replaceAll(from, to);
    },
    sql.replace(/^(-- .*\n)*CREATE (OR REPLACE )?FUNCTION/, 'CREATE OR REPLACE FUNCTION'),
  );
}

/** An enqueue function of migration 3 where "in flight" is the order's leased range (migration 6). */
function widenEnqueue(sql: string, ...edits: [from: string, to: string][]): string {
  return rewrite(
    sql,
    ['o.lease_id = w.id AND o.lease_until >= now()', `${IN_LEASED_RANGE('w.id')} AND o.lease_until >= now()`],
    ...edits,
  );
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
  {
    version: 2,
    name: 'outbox: due time and lease on the order row, claim and settle functions, index for pruning',
    // Additive, for a database in use: new nullable columns (no rewrite), orders with pending updates made
    // due (after any lease the old claim still holds), two indexes and two functions (one round trip each
    // for a claim and a settle; a change to them is a new migration with CREATE OR REPLACE). Stop the replicas of the previous
    // version first: they lease rows, not orders, and would not see the new leases.
    sql: `
ALTER TABLE carrier_outbox_orders
  ADD COLUMN due_at timestamptz,
  ADD COLUMN lease_owner text,
  ADD COLUMN lease_until timestamptz,
  ADD COLUMN lease_id bigint;
UPDATE carrier_outbox_orders o
SET due_at = greatest(now(), (SELECT max(e.lease_until) FROM carrier_outbox e
                              WHERE e.secure_id = o.secure_id AND e.state = 'pending'))
WHERE EXISTS (SELECT 1 FROM carrier_outbox e WHERE e.secure_id = o.secure_id AND e.state = 'pending');
CREATE INDEX carrier_outbox_orders_due ON carrier_outbox_orders (due_at) WHERE due_at IS NOT NULL;
-- Room on each page for the next version of an order's row (a HOT update: no new index entries).
ALTER TABLE carrier_outbox_orders SET (fillfactor = 70);
CREATE INDEX carrier_outbox_order ON carrier_outbox (secure_id);
-- A claim in one call, in two statements: the first locks up to $3 due orders, the longest waiting first,
-- skipping those another replica is claiming or settling; the second (a fresh snapshot: it sees every update
-- committed before those locks) leases each order's head update to replica $1 for $2 ms when it is due and
-- nothing of the order is in flight, and answers those heads. Per order only the first pending update can be
-- taken: a retry holds back the updates after it; a fresh position waiting for its interval holds nothing
-- back. An order with nothing due gets its exact due time (or none). Only the orders' rows are written.
CREATE FUNCTION carrier_outbox_claim(text, float8, integer)
RETURNS TABLE (id bigint, secure_id text, order_id integer, kind text, patch jsonb, attempts integer, last_error text, created_ms float8, not_before_ms float8) LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE locked text[];
BEGIN
  locked := ARRAY(SELECT secure_id FROM carrier_outbox_orders WHERE due_at <= now()
  ORDER BY due_at LIMIT $3 FOR NO KEY UPDATE SKIP LOCKED);
  IF cardinality(locked) = 0 THEN RETURN; END IF;
  RETURN QUERY WITH n AS (
    SELECT o.secure_id, h.id AS head_id, h.not_before AS head_due,
      coalesce(o.lease_until >= now(), false) AS held,
      (SELECT min(p.not_before) FROM carrier_outbox p WHERE p.secure_id = o.secure_id AND p.state = 'pending') AS first_due
    FROM carrier_outbox_orders o
    LEFT JOIN LATERAL (
      SELECT e.id, e.not_before FROM carrier_outbox e
      WHERE e.secure_id = o.secure_id AND e.state = 'pending' AND NOT (e.kind = 'position' AND e.attempts = 0 AND e.not_before > now())
      ORDER BY e.id LIMIT 1
    ) h ON true
    WHERE o.secure_id = ANY(locked)
  ), leased AS (
    UPDATE carrier_outbox_orders o SET
      lease_owner = CASE WHEN n.held THEN o.lease_owner WHEN n.head_due <= now() THEN $1 END,
      lease_until = CASE WHEN n.held THEN o.lease_until WHEN n.head_due <= now() THEN now() + $2 * interval '1 millisecond' END,
      lease_id = CASE WHEN n.held THEN o.lease_id WHEN n.head_due <= now() THEN n.head_id END,
      due_at = CASE WHEN n.held THEN o.lease_until WHEN n.head_due <= now() THEN now() + $2 * interval '1 millisecond'
                    ELSE coalesce(n.head_due, n.first_due) END
    FROM n WHERE o.secure_id = n.secure_id
  )
  SELECT e.id, e.secure_id, e.order_id, e.kind, e.patch, e.attempts, e.last_error,
    (extract(epoch FROM e.created_at) * 1000)::float8 AS created_ms,
    (extract(epoch FROM e.not_before) * 1000)::float8 AS not_before_ms
  FROM n CROSS JOIN LATERAL (SELECT * FROM carrier_outbox e WHERE e.id = n.head_id) e
  WHERE NOT n.held AND n.head_due <= now()
  ORDER BY e.not_before, e.id;
END $fn$;
-- A settle in one call: locks the orders of the updates $1 (in one order: no deadlock between replicas),
-- then, in a fresh snapshot, writes their final status ($2: sent, rejected or retry; $3 retry delays in ms;
-- $4 errors) by replica $5, and moves each order on: its lease ends, and its next update, when due and $7,
-- is leased to $5 for $6 ms and answered, so an order's updates follow one another without a claim. A retry
-- counts only while the replica still holds the order's lease for that update. A statement does not see its
-- own writes, so the orders' next updates are computed from the rows left pending ("rest").
CREATE FUNCTION carrier_outbox_settle(bigint[], text[], float8[], text[], text, float8, boolean)
RETURNS TABLE (id bigint, secure_id text, order_id integer, kind text, patch jsonb, attempts integer, last_error text, created_ms float8, not_before_ms float8) LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
BEGIN
  PERFORM o.secure_id FROM carrier_outbox_orders o
  WHERE o.secure_id = ANY(ARRAY(SELECT e.secure_id FROM carrier_outbox e WHERE e.id = ANY($1::bigint[])))
  ORDER BY o.secure_id FOR NO KEY UPDATE OF o;
  RETURN QUERY WITH s AS (
    SELECT * FROM unnest($1::bigint[], $2::text[], $3::float8[], $4::text[]) AS s(id, outcome, delay_ms, error)
  ), done AS (
    UPDATE carrier_outbox e SET
      state = CASE WHEN s.outcome = 'retry' THEN 'pending' ELSE s.outcome END,
      attempts = e.attempts + CASE WHEN s.outcome = 'retry' THEN 1 ELSE 0 END,
      not_before = CASE WHEN s.outcome = 'retry' THEN now() + s.delay_ms * interval '1 millisecond' ELSE e.not_before END,
      last_error = coalesce(s.error, e.last_error),
      sent_at = CASE WHEN s.outcome = 'sent' THEN clock_timestamp() ELSE e.sent_at END,
      sent_by = CASE WHEN s.outcome = 'sent' THEN $5 ELSE e.sent_by END,
      sent_seq = CASE WHEN s.outcome = 'sent' THEN nextval('carrier_outbox_sent_seq') ELSE e.sent_seq END
    FROM s
    WHERE e.id = ANY($1::bigint[]) AND e.id = s.id AND e.state = 'pending'
      AND (s.outcome <> 'retry' OR EXISTS (SELECT 1 FROM carrier_outbox_orders o
                                           WHERE o.secure_id = e.secure_id AND o.lease_owner = $5 AND o.lease_id = e.id))
    RETURNING e.id, e.secure_id, e.kind, e.attempts, e.not_before, e.state
  ), rest AS (
    -- Per order, through the index of pending updates: the cost follows the batch, not the table.
    SELECT e.secure_id, e.id, e.kind, e.attempts, e.not_before
    FROM (SELECT DISTINCT secure_id FROM done) d
    CROSS JOIN LATERAL (
      SELECT e.secure_id, e.id, e.kind, e.attempts, e.not_before FROM carrier_outbox e
      WHERE e.secure_id = d.secure_id AND e.state = 'pending' AND e.id NOT IN (SELECT id FROM done)
    ) e
    UNION ALL
    SELECT secure_id, id, kind, attempts, not_before FROM done WHERE state = 'pending'
  ), heads AS (
    SELECT DISTINCT ON (r.secure_id) r.secure_id, r.id, r.not_before FROM rest r
    WHERE NOT (r.kind = 'position' AND r.attempts = 0 AND r.not_before > now()) ORDER BY r.secure_id, r.id
  ), firsts AS (
    SELECT r.secure_id, min(r.not_before) AS first_due FROM rest r GROUP BY r.secure_id
  ), n AS (
    SELECT o.secure_id, h.id AS head_id, h.not_before AS head_due, f.first_due,
      coalesce($7::boolean AND h.not_before <= now() AND h.id NOT IN (SELECT id FROM done), false) AS take
    FROM carrier_outbox_orders o
    LEFT JOIN heads h ON h.secure_id = o.secure_id
    LEFT JOIN firsts f ON f.secure_id = o.secure_id
    WHERE o.secure_id IN (SELECT secure_id FROM done)
      AND (o.lease_id IN (SELECT id FROM done) OR o.lease_until IS NULL OR o.lease_until < now())
  ), moved AS (
    UPDATE carrier_outbox_orders o SET
      lease_owner = CASE WHEN n.take THEN $5 END,
      lease_until = CASE WHEN n.take THEN now() + $6 * interval '1 millisecond' END,
      lease_id = CASE WHEN n.take THEN n.head_id END,
      -- While the order stays leased, its due time stays (early: a claim then finds the lease live and moves it
      -- to the lease's end), so the row's indexed columns do not change and the update can be HOT.
      due_at = CASE WHEN n.take AND o.due_at > now() THEN o.due_at
                    WHEN n.take THEN now() + $6 * interval '1 millisecond'
                    ELSE coalesce(n.head_due, n.first_due) END
    FROM n WHERE o.secure_id = n.secure_id
  )
  SELECT e.id, e.secure_id, e.order_id, e.kind, e.patch, e.attempts, e.last_error,
    (extract(epoch FROM e.created_at) * 1000)::float8 AS created_ms,
    (extract(epoch FROM e.not_before) * 1000)::float8 AS not_before_ms
  FROM n CROSS JOIN LATERAL (SELECT * FROM carrier_outbox e WHERE e.id = n.head_id) e
  WHERE n.take
  ORDER BY e.not_before, e.id;
END $fn$;`,
  },
  {
    version: 3,
    name: 'outbox: an update is queued without waiting for the order row; claims and settles re-check the orders they leave idle',
    // Additive: a column with a constant default (no rewrite), three functions, and the claim and settle
    // replaced (CREATE OR REPLACE: same arguments and results). Replicas of version 2 may run beside it:
    // their enqueues lock the order's row as before, which these functions wait for.
    sql: `
-- A pending final status closes its order (a position queued after it is dropped) without writing the order's row.
ALTER TABLE carrier_outbox ADD COLUMN terminal boolean NOT NULL DEFAULT false;
-- The orders $1, locked by the caller (a claim, settle or discard, FOR NO KEY UPDATE) and left with no lease and
-- nothing due now, get their due time again from the updates pending, in a fresh snapshot taken once every
-- enqueue holding their rows has committed: FOR UPDATE waits for the FOR KEY SHARE lock an enqueue holds from
-- before it reads the order's due time until it commits. So an update is never left behind an order marked
-- idle: either its enqueue sees the idle order and makes it due, or this re-check sees its update. Wakes the
-- replicas when an order is due again.
CREATE FUNCTION carrier_outbox_recheck(text[]) RETURNS void LANGUAGE plpgsql AS $fn$
DECLARE idle text[];
BEGIN
  idle := ARRAY(SELECT o.secure_id FROM carrier_outbox_orders o
    WHERE o.secure_id = ANY($1) AND NOT coalesce(o.lease_until >= now(), false) AND (o.due_at IS NULL OR o.due_at > now())
    ORDER BY o.secure_id);
  IF cardinality(idle) = 0 THEN RETURN; END IF;
  PERFORM 1 FROM carrier_outbox_orders o WHERE o.secure_id = ANY(idle) ORDER BY o.secure_id FOR UPDATE;
  WITH n AS (
    SELECT o.secure_id, coalesce(
      (SELECT h.not_before FROM carrier_outbox h
       WHERE h.secure_id = o.secure_id AND h.state = 'pending' AND NOT (h.kind = 'position' AND h.attempts = 0 AND h.not_before > now())
       ORDER BY h.id LIMIT 1),
      (SELECT min(p.not_before) FROM carrier_outbox p WHERE p.secure_id = o.secure_id AND p.state = 'pending')) AS due
    FROM carrier_outbox_orders o WHERE o.secure_id = ANY(idle)
  )
  UPDATE carrier_outbox_orders o SET due_at = n.due FROM n
  WHERE o.secure_id = n.secure_id AND n.due IS NOT NULL AND (o.due_at IS NULL OR n.due < o.due_at);
  IF FOUND THEN PERFORM pg_notify('carrier_outbox', ''); END IF;
END $fn$;
CREATE OR REPLACE FUNCTION carrier_outbox_claim(text, float8, integer)
RETURNS TABLE (id bigint, secure_id text, order_id integer, kind text, patch jsonb, attempts integer, last_error text, created_ms float8, not_before_ms float8) LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE locked text[];
BEGIN
  -- An order in flight keeps an early due time (its settles then update its row HOT): it is passed over, not
  -- locked, while its lease is live, so replicas do not take turns on each other's orders in flight.
  locked := ARRAY(SELECT secure_id FROM carrier_outbox_orders WHERE due_at <= now()
    AND NOT coalesce(lease_until >= now(), false)
  ORDER BY due_at LIMIT $3 FOR NO KEY UPDATE SKIP LOCKED);
  IF cardinality(locked) = 0 THEN RETURN; END IF;
  RETURN QUERY WITH n AS (
    SELECT o.secure_id, h.id AS head_id, h.not_before AS head_due,
      coalesce(o.lease_until >= now(), false) AS held,
      (SELECT min(p.not_before) FROM carrier_outbox p WHERE p.secure_id = o.secure_id AND p.state = 'pending') AS first_due
    FROM carrier_outbox_orders o
    LEFT JOIN LATERAL (
      SELECT e.id, e.not_before FROM carrier_outbox e
      WHERE e.secure_id = o.secure_id AND e.state = 'pending' AND NOT (e.kind = 'position' AND e.attempts = 0 AND e.not_before > now())
      ORDER BY e.id LIMIT 1
    ) h ON true
    WHERE o.secure_id = ANY(locked)
  ), leased AS (
    UPDATE carrier_outbox_orders o SET
      lease_owner = CASE WHEN n.held THEN o.lease_owner WHEN n.head_due <= now() THEN $1 END,
      lease_until = CASE WHEN n.held THEN o.lease_until WHEN n.head_due <= now() THEN now() + $2 * interval '1 millisecond' END,
      lease_id = CASE WHEN n.held THEN o.lease_id WHEN n.head_due <= now() THEN n.head_id END,
      due_at = CASE WHEN n.held THEN o.lease_until WHEN n.head_due <= now() THEN now() + $2 * interval '1 millisecond'
                    ELSE coalesce(n.head_due, n.first_due) END
    FROM n WHERE o.secure_id = n.secure_id
  )
  SELECT e.id, e.secure_id, e.order_id, e.kind, e.patch, e.attempts, e.last_error,
    (extract(epoch FROM e.created_at) * 1000)::float8 AS created_ms,
    (extract(epoch FROM e.not_before) * 1000)::float8 AS not_before_ms
  FROM n CROSS JOIN LATERAL (SELECT * FROM carrier_outbox e WHERE e.id = n.head_id) e
  WHERE NOT n.held AND n.head_due <= now()
  ORDER BY e.not_before, e.id;
  PERFORM carrier_outbox_recheck(locked);
END $fn$;
CREATE OR REPLACE FUNCTION carrier_outbox_settle(bigint[], text[], float8[], text[], text, float8, boolean)
RETURNS TABLE (id bigint, secure_id text, order_id integer, kind text, patch jsonb, attempts integer, last_error text, created_ms float8, not_before_ms float8) LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE orders text[];
BEGIN
  orders := ARRAY(SELECT DISTINCT e.secure_id FROM carrier_outbox e WHERE e.id = ANY($1::bigint[]));
  PERFORM o.secure_id FROM carrier_outbox_orders o WHERE o.secure_id = ANY(orders)
  ORDER BY o.secure_id FOR NO KEY UPDATE OF o;
  RETURN QUERY WITH s AS (
    SELECT * FROM unnest($1::bigint[], $2::text[], $3::float8[], $4::text[]) AS s(id, outcome, delay_ms, error)
  ), done AS (
    UPDATE carrier_outbox e SET
      state = CASE WHEN s.outcome = 'retry' THEN 'pending' ELSE s.outcome END,
      attempts = e.attempts + CASE WHEN s.outcome = 'retry' THEN 1 ELSE 0 END,
      not_before = CASE WHEN s.outcome = 'retry' THEN now() + s.delay_ms * interval '1 millisecond' ELSE e.not_before END,
      last_error = coalesce(s.error, e.last_error),
      sent_at = CASE WHEN s.outcome = 'sent' THEN clock_timestamp() ELSE e.sent_at END,
      sent_by = CASE WHEN s.outcome = 'sent' THEN $5 ELSE e.sent_by END,
      sent_seq = CASE WHEN s.outcome = 'sent' THEN nextval('carrier_outbox_sent_seq') ELSE e.sent_seq END
    FROM s
    WHERE e.id = ANY($1::bigint[]) AND e.id = s.id AND e.state = 'pending'
      AND (s.outcome <> 'retry' OR EXISTS (SELECT 1 FROM carrier_outbox_orders o
                                           WHERE o.secure_id = e.secure_id AND o.lease_owner = $5 AND o.lease_id = e.id))
    RETURNING e.id, e.secure_id, e.kind, e.attempts, e.not_before, e.state, e.terminal
  ), rest AS (
    -- Per order, through the index of pending updates: the cost follows the batch, not the table.
    SELECT e.secure_id, e.id, e.kind, e.attempts, e.not_before
    FROM (SELECT DISTINCT secure_id FROM done) d
    CROSS JOIN LATERAL (
      SELECT e.secure_id, e.id, e.kind, e.attempts, e.not_before FROM carrier_outbox e
      WHERE e.secure_id = d.secure_id AND e.state = 'pending' AND e.id NOT IN (SELECT id FROM done)
    ) e
    UNION ALL
    SELECT secure_id, id, kind, attempts, not_before FROM done WHERE state = 'pending'
  ), heads AS (
    SELECT DISTINCT ON (r.secure_id) r.secure_id, r.id, r.not_before FROM rest r
    WHERE NOT (r.kind = 'position' AND r.attempts = 0 AND r.not_before > now()) ORDER BY r.secure_id, r.id
  ), firsts AS (
    SELECT r.secure_id, min(r.not_before) AS first_due FROM rest r GROUP BY r.secure_id
  ), m AS (
    -- mine: the order's lease is for one of these updates, or has run out; ends: its final status was settled.
    SELECT o.secure_id, o.lease_id IN (SELECT id FROM done) OR o.lease_until IS NULL OR o.lease_until < now() AS mine,
      EXISTS (SELECT 1 FROM done d WHERE d.secure_id = o.secure_id AND d.terminal AND d.state <> 'pending') AS ends
    FROM carrier_outbox_orders o WHERE o.secure_id IN (SELECT secure_id FROM done)
  ), n AS (
    SELECT m.secure_id, m.mine, m.ends, h.id AS head_id, h.not_before AS head_due, f.first_due,
      coalesce(m.mine AND $7::boolean AND h.not_before <= now() AND h.id NOT IN (SELECT id FROM done), false) AS take
    FROM m
    LEFT JOIN heads h ON h.secure_id = m.secure_id
    LEFT JOIN firsts f ON f.secure_id = m.secure_id
    WHERE m.mine OR m.ends
  ), moved AS (
    UPDATE carrier_outbox_orders o SET
      lease_owner = CASE WHEN NOT n.mine THEN o.lease_owner WHEN n.take THEN $5 END,
      lease_until = CASE WHEN NOT n.mine THEN o.lease_until WHEN n.take THEN now() + $6 * interval '1 millisecond' END,
      lease_id = CASE WHEN NOT n.mine THEN o.lease_id WHEN n.take THEN n.head_id END,
      -- While the order stays leased, its due time stays (early: a claim then finds the lease live and moves it
      -- to the lease's end), so the row's indexed columns do not change and the update can be HOT.
      due_at = CASE WHEN NOT n.mine THEN o.due_at
                    WHEN n.take AND o.due_at > now() THEN o.due_at
                    WHEN n.take THEN now() + $6 * interval '1 millisecond'
                    ELSE coalesce(n.head_due, n.first_due) END,
      -- A final status settled closes its order (while it was pending, its row said so: see enqueue).
      closed = o.closed OR n.ends
    FROM n WHERE o.secure_id = n.secure_id
  )
  SELECT e.id, e.secure_id, e.order_id, e.kind, e.patch, e.attempts, e.last_error,
    (extract(epoch FROM e.created_at) * 1000)::float8 AS created_ms,
    (extract(epoch FROM e.not_before) * 1000)::float8 AS not_before_ms
  FROM n CROSS JOIN LATERAL (SELECT * FROM carrier_outbox e WHERE e.id = n.head_id) e
  WHERE n.take
  ORDER BY e.not_before, e.id;
  PERFORM carrier_outbox_recheck(orders);
END $fn$;
${ENQUEUE_FUNCTION}
${ENQUEUE_STATUSES_FUNCTION}`,
  },
  {
    version: 4,
    name: 'outbox: a settle writes one index entry fewer (settled updates are pruned in id order)',
    // A settle changes `state`, which partial indexes name, so its update cannot be HOT and writes an entry
    // in every index of the table. The index on the settled rows' age served only pruning, which now walks
    // the primary key, oldest id first, and stops at the first update younger than keepMs. Replicas of
    // version 3 beside it prune with a scan of the table, once a minute.
    sql: `DROP INDEX IF EXISTS carrier_outbox_done;`,
  },
  {
    version: 5,
    name: 'outbox: a settle is a HOT update (no index names a column it writes), and finds each next update in one walk',
    // A settle writes `state`, `sent_at` and the counters. The partial indexes named `state` (pending rows)
    // and `sent_at` (sent positions), so each settle wrote a new entry in every index of the table and left a
    // dead one behind. Now the one index by order, (secure_id, id), names only columns that never change, and
    // the table keeps room on each page for the settled version of its rows (fillfactor 50, for pages written
    // from now on): a settle writes no index entry. An order's pending updates are found by walking its own
    // rows in id order (its kept history included, so the walk grows with that order's settled updates, not
    // with the table). The index is built in the migration's transaction, which holds writes on the table
    // while it builds: migrate at a quiet time when the table is large. Replicas of version 4 may run beside it.
    sql: `
CREATE INDEX carrier_outbox_order_updates ON carrier_outbox (secure_id, id);
DROP INDEX IF EXISTS carrier_outbox_pending;
DROP INDEX IF EXISTS carrier_outbox_sent_positions;
DROP INDEX IF EXISTS carrier_outbox_order;
ALTER TABLE carrier_outbox SET (fillfactor = 50);
-- The settle of migration 3, with each order's next update found in one walk of that order's rows (through
-- the index above) rather than by sorting every update left pending in the batch once per order.
${SETTLE_FUNCTION}`,
  },
  {
    version: 6,
    name: 'outbox: a claim leases an order with its run of due updates, sent one after another without a settle each',
    // Additive: one nullable column (no rewrite) and the functions replaced (same arguments and results). The
    // order's lease now covers a range of its updates, lease_from through lease_id (lease_from null: lease_id
    // alone, as before). A claim leases each order's run: its head and the due updates after it, up to the first
    // that is not due and through the first final status, at most 32. The replica sends them one after another;
    // an update in the middle of the run is marked sent or refused by OUTBOX_SQL.step (one UPDATE by id, no
    // order row written, no walk), and only the last one, or a retry, is settled by carrier_outbox_settle, which
    // ends the lease or moves the order on. Stop the replicas of version 5 first: they take the end of a range
    // for the only update in flight, so they could fold or drop an update of a run another replica is sending.
    sql: `
ALTER TABLE carrier_outbox_orders ADD COLUMN lease_from bigint;
-- The claim of migration 3, leasing each order's run rather than its head alone; answers every update of the
-- runs, each order's in id order, the orders by their heads' due times (first in, first out).
CREATE OR REPLACE FUNCTION carrier_outbox_claim(text, float8, integer)
RETURNS TABLE (id bigint, secure_id text, order_id integer, kind text, patch jsonb, attempts integer, last_error text, created_ms float8, not_before_ms float8) LANGUAGE plpgsql AS $fn$
#variable_conflict use_column
DECLARE locked text[];
BEGIN
  locked := ARRAY(SELECT secure_id FROM carrier_outbox_orders WHERE due_at <= now()
    AND NOT coalesce(lease_until >= now(), false)
  ORDER BY due_at LIMIT $3 FOR NO KEY UPDATE SKIP LOCKED);
  IF cardinality(locked) = 0 THEN RETURN; END IF;
  RETURN QUERY WITH n AS (
    -- first_due only for an order with no update to take (the CASE runs the subquery only then).
    SELECT o.secure_id, h.id AS head_id, h.not_before AS head_due,
      coalesce(o.lease_until >= now(), false) AS held,
      CASE WHEN h.id IS NULL THEN
        (SELECT min(p.not_before) FROM carrier_outbox p WHERE p.secure_id = o.secure_id AND p.state = 'pending') END AS first_due
    FROM carrier_outbox_orders o
    LEFT JOIN LATERAL (
      SELECT e.id, e.not_before FROM carrier_outbox e
      WHERE e.secure_id = o.secure_id AND e.state = 'pending' AND NOT (e.kind = 'position' AND e.attempts = 0 AND e.not_before > now())
      ORDER BY e.id LIMIT 1
    ) h ON true
    WHERE o.secure_id = ANY(locked)
  ), run AS (
    -- The head and the pending updates after it, while each is due and none before it in the run is final;
    -- read once, answered from here.
    SELECT n.head_due, n.head_id, q.id, q.secure_id, q.order_id, q.kind, q.patch, q.attempts, q.last_error,
      q.created_at, q.not_before
    FROM n CROSS JOIN LATERAL (
      SELECT q.* FROM (
        SELECT e.*, bool_and(e.not_before <= now()) OVER w AS due,
          coalesce(bool_or(e.terminal) OVER (w ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), false) AS after_final
        FROM carrier_outbox e WHERE e.secure_id = n.secure_id AND e.id >= n.head_id AND e.state = 'pending'
        WINDOW w AS (ORDER BY e.id)
        ORDER BY e.id LIMIT 32
      ) q WHERE q.due AND NOT q.after_final
    ) q
    WHERE NOT n.held AND n.head_due <= now()
  ), ends AS (
    SELECT run.secure_id, max(run.id) AS last_id FROM run GROUP BY run.secure_id
  ), leased AS (
    UPDATE carrier_outbox_orders o SET
      lease_owner = CASE WHEN n.held THEN o.lease_owner WHEN n.head_due <= now() THEN $1 END,
      lease_until = CASE WHEN n.held THEN o.lease_until WHEN n.head_due <= now() THEN now() + $2 * interval '1 millisecond' END,
      lease_from = CASE WHEN n.held THEN o.lease_from WHEN n.head_due <= now() THEN n.head_id END,
      lease_id = CASE WHEN n.held THEN o.lease_id WHEN n.head_due <= now() THEN ends.last_id END,
      due_at = CASE WHEN n.held THEN o.lease_until WHEN n.head_due <= now() THEN now() + $2 * interval '1 millisecond'
                    ELSE coalesce(n.head_due, n.first_due) END
    FROM n LEFT JOIN ends ON ends.secure_id = n.secure_id WHERE o.secure_id = n.secure_id
  )
  SELECT r.id, r.secure_id, r.order_id, r.kind, r.patch, r.attempts, r.last_error,
    (extract(epoch FROM r.created_at) * 1000)::float8 AS created_ms,
    (extract(epoch FROM r.not_before) * 1000)::float8 AS not_before_ms
  FROM run r
  ORDER BY r.head_due, r.head_id, r.id;
  PERFORM carrier_outbox_recheck(locked);
END $fn$;
-- The settle of migration 5 for a leased range: a retry counts while the replica's lease covers the update, and
-- a settle of any update of the range ends the lease (the rest of a run after a retry goes back to the order's
-- due time) or moves the order on to its next head, leased alone.
${rewrite(
  SETTLE_FUNCTION,
  ['o.lease_owner = $5 AND o.lease_id = e.id))', `o.lease_owner = $5 AND ${IN_LEASED_RANGE('e.id')}))`],
  [
    'coalesce(o.lease_id = ANY(d.ids), false)',
    `coalesce(EXISTS (SELECT 1 FROM unnest(d.ids) AS x(id) WHERE ${IN_LEASED_RANGE('x.id')}), false)`,
  ],
  [
    '      lease_id = CASE WHEN NOT n.mine THEN o.lease_id WHEN n.take THEN n.head_id END,\n',
    '      lease_id = CASE WHEN NOT n.mine THEN o.lease_id WHEN n.take THEN n.head_id END,\n' +
      '      lease_from = CASE WHEN NOT n.mine THEN o.lease_from END,\n',
  ],
)}
-- The enqueues of migration 3, where an update of a leased run counts as in flight: a position in it is not
-- folded into, nor taken along by a final status, and a new position waits its interval after it.
${widenEnqueue(
  ENQUEUE_FUNCTION,
  ['JOIN carrier_outbox_orders o ON o.lease_id = f.id', `JOIN carrier_outbox_orders o ON ${IN_LEASED_RANGE('f.id')}`],
  [
    "f.state = 'pending' AND o.lease_until >= now()\n",
    "f.state = 'pending' AND o.lease_until >= now()\n      LIMIT 1\n",
  ],
)}
${widenEnqueue(ENQUEUE_STATUSES_FUNCTION)}`,
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

/**
 * Whether outbox row `e` is in flight: its order `o` has a live lease on a range holding it, and it is the
 * first pending update of that range (the replica sends a run one update after another, and marks each sent
 * before it takes the next, so the rest of the run has not gone out yet).
 */
const IN_FLIGHT = `coalesce(o.lease_until >= now() AND e.id = (
  SELECT min(f.id) FROM carrier_outbox f
  WHERE f.secure_id = o.secure_id AND f.state = 'pending' AND ${IN_LEASED_RANGE('f.id')}), false)`;
/** The NOTIFY channel that wakes the replicas when an idle order gets an update. */
export const OUTBOX_CHANNEL = 'carrier_outbox';

/**
 * Statements of the PostgreSQL outbox store. The order's row (`carrier_outbox_orders`) carries the
 * order's lease (`lease_owner`, `lease_until`, and the run of updates it covers, `lease_from` through
 * `lease_id`: sent one after another, the first pending one in flight) and `due_at`, the next
 * time the order needs a replica: its head update's due time, the end of its lease while one is in
 * flight, or null when nothing is pending. A claim reads the partial index on `due_at`, so what it costs
 * depends on the orders due, not on the history kept. `due_at` may be early (a claim then corrects it),
 * never late.
 */
export const OUTBOX_SQL = {
  /**
   * Makes sure the order has its row and locks it for the rest of the transaction (a discard): claims,
   * settles and the enqueues that rewrite rows of the order wait for it.
   */
  lockOrder: `INSERT INTO carrier_outbox_orders (secure_id, order_id) VALUES ($1, $2)
ON CONFLICT (secure_id) DO UPDATE SET order_id = coalesce(EXCLUDED.order_id, carrier_outbox_orders.order_id)
RETURNING closed, due_at IS NULL AS idle`,
  /**
   * Queues an update in one call (carrier_outbox_enqueue, migration 3): a status waits for no claim or
   * settle of its order; a position (folded into the waiting one, or after the interval since the last
   * one sent, or dropped once the order is closed) and a final status that takes the waiting position along
   * lock the order's row. Wakes the replicas ($8) when the order needs one sooner.
   */
  enqueue: `SELECT * FROM carrier_outbox_enqueue($1, $2, $3, $4, $5, $6, $7, $8)`,
  /**
   * Queues the statuses that came together on one replica in one transaction, in the order given
   * (carrier_outbox_enqueue_statuses, migration 3); a final status that takes a waiting position along is
   * answered `deferred`, for {@link OUTBOX_SQL.enqueue}.
   */
  enqueueStatuses: `SELECT * FROM carrier_outbox_enqueue_statuses($1, $2, $3, $4, $5, $6)`,
  /**
   * Claims up to $3 due orders (carrier_outbox_claim, migrations 2, 3 and 6): the longest waiting orders
   * first, skipping those another replica is claiming or settling; per order its run (its head update and
   * the due ones after it), leased to replica $1 for $2 ms when nothing of the order is in flight.
   */
  claim: `SELECT * FROM carrier_outbox_claim($1, $2, $3)`,
  /**
   * Writes the final status of a batch of updates and moves each order on to its next update: see
   * carrier_outbox_settle (migrations 2, 3, 5 and 6).
   */
  settle: `SELECT * FROM carrier_outbox_settle($1, $2, $3, $4, $5, $6, $7)`,
  /**
   * Marks updates in the middle of their order's leased run sent or refused ($1 ids, $2 outcomes, $3 errors,
   * by replica $4), and answers which of the updates that follow them ($5) this replica may send now: still
   * pending, and in its live lease of an open order. One UPDATE by id: the order's row is not written (its
   * lease covers the run) and its updates are not walked. Only an update whose successor is known goes
   * through here; the last of a run and a retry go through {@link OUTBOX_SQL.settle}.
   */
  step: `WITH s AS (
  SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[]) AS s(id, outcome, error)
), done AS (
  UPDATE carrier_outbox e SET
    state = s.outcome,
    last_error = coalesce(s.error, e.last_error),
    sent_at = CASE WHEN s.outcome = 'sent' THEN clock_timestamp() ELSE e.sent_at END,
    sent_by = CASE WHEN s.outcome = 'sent' THEN $4 ELSE e.sent_by END,
    sent_seq = CASE WHEN s.outcome = 'sent' THEN nextval('carrier_outbox_sent_seq') ELSE e.sent_seq END
  FROM s WHERE e.id = s.id AND e.state = 'pending'
  RETURNING e.id
)
-- The order of each update through its primary key, per update (a join may be planned from the orders' side,
-- reading every order, when the statistics saw no lease).
SELECT n.id FROM carrier_outbox n
WHERE n.id = ANY($5::bigint[]) AND n.state = 'pending' AND (
  SELECT NOT o.closed AND o.lease_owner = $4 AND o.lease_until >= now() AND ${IN_LEASED_RANGE('n.id')}
  FROM carrier_outbox_orders o WHERE o.secure_id = n.secure_id)`,
  /**
   * Renews this replica's ($1) leases for $2 ms on the runs ending at $3, when they are still its own and
   * live; answers the runs renewed. A run whose lease is a quarter gone is renewed before its next update goes out.
   */
  renew: `UPDATE carrier_outbox_orders o SET lease_until = now() + $2 * interval '1 millisecond'
WHERE o.lease_owner = $1 AND o.lease_id = ANY($3::bigint[]) AND o.lease_until >= now()
RETURNING o.lease_id`,
  /**
   * Gives back this replica's ($1) leases on the runs ending at $2 whose updates it has not sent: their
   * orders are due again.
   */
  release: `UPDATE carrier_outbox_orders o
SET lease_owner = NULL, lease_until = NULL, lease_id = NULL, lease_from = NULL,
    due_at = now()
WHERE o.lease_owner = $1 AND o.lease_id = ANY($2::bigint[])`,
  /** Drops the pending updates of an order that are not in flight (its row is locked by lockOrder). */
  discard: `UPDATE carrier_outbox e SET state = 'dropped'
FROM carrier_outbox_orders o
WHERE e.secure_id = $1 AND o.secure_id = $1 AND e.state = 'pending' AND NOT ${IN_FLIGHT}
RETURNING ${entryColumns('e')}`,
  /** Closes an order (positions are no longer sent); after a discard only an update in flight is left. */
  close: `UPDATE carrier_outbox_orders SET closed = true,
  due_at = CASE WHEN lease_until >= now() THEN due_at END
WHERE secure_id = $1`,
  /**
   * After {@link OUTBOX_SQL.close}: a status queued meanwhile (an enqueue does not wait for the discard's
   * lock) makes the order due again (carrier_outbox_recheck, migration 3).
   */
  recheck: `SELECT carrier_outbox_recheck(ARRAY[$1::text])`,
  /**
   * Forgets up to $2 updates settled (sent, refused, dropped, folded) more than $1 ms ago, and the
   * orders left with no update and nothing due. Replicas pruning at once take different rows.
   */
  prune: `WITH gone AS (
  DELETE FROM carrier_outbox WHERE id IN (
    -- Ids follow the order of queueing, so the settled updates older than keepMs come before the first
    -- update younger than that: the walk of the primary key stops there (a straggler goes next round).
    SELECT id FROM carrier_outbox WHERE state <> 'pending' AND created_at < now() - $1 * interval '1 millisecond'
      AND id < coalesce((SELECT y.id FROM carrier_outbox y WHERE y.created_at >= now() - $1 * interval '1 millisecond'
                         ORDER BY y.id LIMIT 1), 9223372036854775807)
    ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED
  )
  RETURNING id, secure_id
), orders AS (
  DELETE FROM carrier_outbox_orders o
  WHERE o.secure_id IN (SELECT secure_id FROM gone) AND o.due_at IS NULL
    AND NOT EXISTS (SELECT 1 FROM carrier_outbox e WHERE e.secure_id = o.secure_id AND e.id NOT IN (SELECT id FROM gone))
  RETURNING 1
)
SELECT (SELECT count(*) FROM gone)::int AS updates, (SELECT count(*) FROM orders)::int AS orders`,
  /** Which of the given updates are still pending. */
  stillPending: `SELECT id FROM carrier_outbox WHERE id = ANY($1::bigint[]) AND state = 'pending'`,
  /** Pending updates, oldest first (of one order when $1 is not null). */
  pending: `SELECT ${ENTRY_COLUMNS} FROM carrier_outbox
WHERE state = 'pending' AND ($1::text IS NULL OR secure_id = $1) ORDER BY id`,
  listen: `LISTEN ${OUTBOX_CHANNEL}`,
  unlisten: `UNLISTEN ${OUTBOX_CHANNEL}`,
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
