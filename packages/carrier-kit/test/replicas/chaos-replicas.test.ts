// Three replicas of `restoapi-carrier simulate` on one PostgreSQL database behind the round-robin
// balancer, against the mock with duplicated, delayed and reordered callbacks; one replica is killed with
// SIGKILL half-way and not restarted. The verdict is read from the database and the mock's control API.
import pg from 'pg';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { deliveryStateMachine } from '../../src/tracker/delivery-state-machine.js';
import { BIN_SOURCES, startCli, type RunningCli } from '../../../../scripts/testing/run-cli.js';
import { postgresTestsRun, sharedPostgres, type TestPostgres } from '../../../../scripts/testing/postgres.js';
import { advanceMock, callbacks, eventually, mainOrder, placeOrder, startWorld, type World } from '../support/world.js';

const run = postgresTestsRun('carrier-kit chaos run of replicas');
const ORDERS = 12;
let server: TestPostgres | undefined;
let world: World | undefined;
let cli: RunningCli | undefined;
let db: pg.Pool | undefined;
let ticking: ReturnType<typeof setInterval> | undefined;

beforeAll(async () => {
  if (run) server = await sharedPostgres();
}, 30_000);
afterAll(async () => {
  clearInterval(ticking);
  await cli?.stop('SIGTERM');
  await db?.end();
  await world?.close();
  await server?.stop();
});

test.runIf(run)(
  'three replicas deliver every order in order, each callback handled once, though one is killed half-way',
  async () => {
    const started = Date.now();
    const url = await server!.createDatabase();
    db = new pg.Pool({ connectionString: url, max: 2 });
    world = await startWorld();
    // Chaos delays and reorders callbacks on the mock's virtual clock, and retries wait on it too: let it run.
    ticking = setInterval(() => void advanceMock(world!, 500).catch(() => undefined), 50);
    cli = startCli([
      BIN_SOURCES['restoapi-carrier']!,
      'simulate',
      '--base-url',
      world.url,
      '--store',
      url,
      '--replicas',
      '3',
      '--port',
      '0',
      '--speed',
      '2000',
      '--tick',
      '50',
      '--min-interval',
      '0',
      '--lease',
      '1500',
      '--chaos',
      '--seed',
      '7',
    ]);
    const pids = await Promise.all(
      [1, 2, 3].map(async (n) => Number((await cli!.waitFor(new RegExp(`^replica ${n}: pid (\\d+)`), 10_000))[1])),
    );
    await eventually(() => cli!.lines.filter((l) => /waiting for orders/.test(l)).length === 3, 30_000, 'replicas up');
    const carriers = (await world.control.GET('/__mock/carriers')).data!.carriers;
    // Registered once for the balancer's address; the two later replicas joined it.
    expect(carriers).toHaveLength(1);
    expect(cli.lines.filter((l) => / joined at /.test(l))).toHaveLength(2);

    const orders: Awaited<ReturnType<typeof placeOrder>>[] = [];
    for (let i = 0; i < ORDERS / 2; i++) orders.push(await placeOrder(world, i));
    // Half-way: kill a replica that drives a delivery right now.
    const victim = await (async () => {
      let pid: number | undefined;
      await eventually(
        async () => {
          const { rows } = await db!.query<{ owner: string }>(
            'SELECT owner FROM carrier_deliveries WHERE NOT finished',
          );
          pid = rows.map((r) => Number(r.owner.split(':')[1])).find((p) => pids.includes(p));
          return pid !== undefined;
        },
        20_000,
        'a replica driving a delivery',
      );
      return pid!;
    })();
    process.kill(victim, 'SIGKILL');
    await cli.waitFor(new RegExp(`\\(pid ${victim}\\) ended: SIGKILL`), 5000);
    for (let i = ORDERS / 2; i < ORDERS; i++) orders.push(await placeOrder(world, i));

    await eventually(
      async () =>
        (await Promise.all(orders.map((o) => mainOrder(world!, o.id)))).every((o) => o.order.status === 'complete'),
      60_000,
      'every order to be delivered',
    );
    // The last callbacks (`complete`) may still wait for their chaos delay.
    await eventually(
      async () => (await callbacks(world!)).every((c) => c.state !== 'pending'),
      15_000,
      'every callback to be answered',
    );
    const seconds = (Date.now() - started) / 1000;

    // The mock: every order complete with its delivery delivered; every callback answered.
    const finals = await Promise.all(orders.map((o) => mainOrder(world!, o.id)));
    expect(finals.map((o) => o.order.status)).toEqual(orders.map(() => 'complete'));
    const sent = await callbacks(world);
    const duplicates = sent.filter((c) => c.duplicate_of !== null);
    expect(duplicates.length).toBeGreaterThan(0);
    expect(sent.filter((c) => c.state !== 'delivered')).toEqual([]);
    // Each callback handled once: of all deliveries of one event (chaos duplicates, retries after the kill),
    // at most one was answered "processed"; the others were acknowledged as duplicates.
    const processed = new Map<string, number>();
    for (const callback of sent) {
      const key = `${callback.order_id}|${callback.type}|${String(callback.query.status ?? '')}`;
      const answers = callback.attempts.filter((a) => a.outcome === 'delivered').map((a) => a.response_body ?? '');
      processed.set(key, (processed.get(key) ?? 0) + answers.filter((body) => body.includes('processed')).length);
    }
    const keys = await db.query<{ key: string; handled_by: string }>('SELECT key, handled_by FROM carrier_callbacks');
    const handledBy = new Map(keys.rows.map((row) => [row.key, Number(row.handled_by.split(':')[1])]));
    // The database holds each event's key once. An event with no "processed" answer was handled by the
    // killed replica, which committed its work but died before its answer left.
    expect([...handledBy.keys()].sort()).toEqual([...processed.keys()].sort());
    const unexpected = [...processed].filter(
      ([key, count]) => count > 1 || (count === 0 && handledBy.get(key) !== victim),
    );
    expect(
      unexpected,
      JSON.stringify(sent.filter((c) => unexpected.some(([k]) => k.startsWith(`${c.order_id}|${c.type}`)))),
    ).toEqual([]);

    // The database: each event's key once, every update sent (none lost), an order's updates in order.
    const updates = await db.query<{
      secure_id: string;
      id: string;
      kind: string;
      state: string;
      status: string | null;
    }>(
      `SELECT secure_id, id, kind, state, patch->>'status' AS status FROM carrier_outbox ORDER BY secure_id, sent_seq`,
    );
    expect(updates.rows.filter((u) => u.state !== 'sent' && u.state !== 'coalesced')).toEqual([]);
    const machine = deliveryStateMachine();
    for (const order of orders) {
      const secureId = (
        await db.query<{ secure_id: string }>('SELECT secure_id FROM carrier_deliveries WHERE order_id = $1', [
          order.id,
        ])
      ).rows[0]!.secure_id;
      const own = updates.rows.filter((u) => u.secure_id === secureId && u.state === 'sent');
      // Sent in the order queued (positions wait for no interval here, so nothing may overtake anything)...
      const ids = own.map((u) => Number(u.id));
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      // ...and the statuses walk the document's state machine to delivered.
      const statuses = own.map((u) => u.status).filter((s): s is string => s !== null);
      expect(statuses.at(-1)).toBe('delivered');
      let from = machine.initial as string;
      for (const status of statuses) {
        expect(status === from || machine.canMove(from as never, status as never), `${from} → ${status}`).toBe(true);
        from = status;
      }
    }
    const deliveries = await db.query<{ finished: boolean; owners: number }>(
      'SELECT finished, owners FROM carrier_deliveries',
    );
    expect(deliveries.rows).toHaveLength(ORDERS);
    expect(deliveries.rows.every((d) => d.finished)).toBe(true);
    const takenOver = deliveries.rows.filter((d) => d.owners > 1).length;
    expect(takenOver).toBeGreaterThan(0);
    const failedAttempts = sent.flatMap((c) => c.attempts).filter((a) => a.outcome !== 'delivered').length;
    const resent = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM carrier_outbox WHERE claims > 1`);
    console.log(
      `[chaos run] ${ORDERS} orders, ${updates.rows.filter((u) => u.state === 'sent').length} updates sent in order, ` +
        `${sent.length} callbacks (${duplicates.length} chaos duplicates) for ${processed.size} events, each handled once (${failedAttempts} attempts failed and were retried); ` +
        `replica pid ${victim} killed half-way, ${takenOver} deliveries taken over, ${resent.rows[0]!.n} updates claimed again after its lease ran out; ${seconds.toFixed(1)} s`,
    );
  },
  120_000,
);
