// The order the shared PostgreSQL outbox keeps, on a real server: orders are served first in, first out;
// an order's updates go out in the order queued through retries (where graphile-worker's named queues let
// the next job run before the retried one) and through a replica killed while it holds claimed updates.
import pg from 'pg';
import { expect, test } from 'vitest';
import { createSharedOutbox, type CarrierApi, type DeliveryUpdate } from '@restoapi/carrier-kit';
import { createPostgresOutboxStore } from '@restoapi/carrier-kit/postgres';
import { postgresSuite } from '../support/postgres-suite.js';
import { eventually } from '../support/world.js';

const { run, pools, outboxes, database } = postgresSuite('carrier-kit outbox order');

const STEPS = ['courier_assigned', 'delivering', 'delivered'] as const;
/** Update `step` (1-based) of an order; the step rides in `courier_name`, so the service can tell them apart. */
const update = (step: number): DeliveryUpdate => ({ status: STEPS[step - 1], courier_name: `update ${step}` });
const stepOf = (patch: DeliveryUpdate): number => Number(patch.courier_name!.split(' ')[1]);

/** A service that records the updates it took, in the order they came, after `ms`; `refuse` scripts failures. */
function service(ms = 1, refuse: (secureId: string, step: number) => boolean = () => false) {
  const taken: { secureId: string; step: number }[] = [];
  const api: CarrierApi = {
    getOrder: () => Promise.reject(new Error('not used')),
    async updateDelivery(secureId, patch) {
      await new Promise((resolve) => setTimeout(resolve, ms));
      if (refuse(secureId, stepOf(patch)))
        throw Object.assign(new Error('503 Service Unavailable'), { status: 503, retryAfterMs: 30 });
      taken.push({ secureId, step: stepOf(patch) });
      return undefined;
    },
  };
  /** The steps each order's updates were taken in. */
  const byOrder = (): Map<string, number[]> => {
    const map = new Map<string, number[]>();
    for (const { secureId, step } of taken) map.set(secureId, [...(map.get(secureId) ?? []), step]);
    return map;
  };
  return { api, taken, byOrder };
}

function pool(url: string, name = 'test'): pg.Pool {
  const p = new pg.Pool({ connectionString: url, max: 4, application_name: name });
  p.on('error', () => undefined); // a replica "killed" below loses its connections
  pools.push(p);
  return p;
}

async function replica(
  api: CarrierApi,
  url: string,
  options: { name?: string; leaseMs?: number; batch?: number } = {},
) {
  const store = createPostgresOutboxStore({ pool: pool(url, options.name), leaseMs: options.leaseMs ?? 30_000 });
  const outbox = createSharedOutbox({
    api,
    store,
    pollMs: 20,
    batch: options.batch ?? 16,
    retry: { initialDelayMs: 20, maxDelayMs: 50 },
  });
  outboxes.push(outbox);
  await outbox.start();
  return { outbox, store };
}

/** Queues the three updates of each order, one after another, from a store that sends nothing. */
async function queueEvery(url: string, orders: string[]): Promise<void> {
  const queuer = createPostgresOutboxStore({ pool: pool(url) });
  for (const secureId of orders)
    for (let step = 1; step <= STEPS.length; step += 1)
      await queuer.enqueue({ secureId, kind: 'status', patch: update(step), terminal: step === 3, minIntervalMs: 0 });
}

/** "Kills" replica `name`: its database sessions end, and it neither answers nor gives anything back. */
async function kill(url: string, name: string): Promise<void> {
  await pool(url).query(
    `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1 AND pid <> pg_backend_pid()`,
    [name],
  );
}

/**
 * Runs `body` beside replica `name`, whose sends go to `api` (calls that hang die with it): the body kills it
 * (see {@link kill}); its sends are never waited for.
 */
async function besideDoomed(url: string, api: CarrierApi, name: string, body: () => Promise<void>): Promise<void> {
  const doomed = await replica(api, url, { name, leaseMs: 500, batch: 4 });
  outboxes.splice(outboxes.indexOf(doomed.outbox), 1);
  try {
    await body();
  } finally {
    void doomed.outbox.stop();
  }
}

/** Checks that each order's updates were taken once each, in the order queued. */
function expectInOrder(orders: string[], byOrder: () => Map<string, number[]>): void {
  for (const secureId of orders) expect([secureId, byOrder().get(secureId)]).toEqual([secureId, [1, 2, 3]]);
}

test.runIf(run)('orders are served first in, first out', async () => {
  const url = await database();
  // Queued before any replica runs, one after another: o1 first.
  const queuer = createPostgresOutboxStore({ pool: pool(url) });
  const orders = Array.from({ length: 20 }, (_, i) => `o${i + 1}`);
  for (const secureId of orders)
    await queuer.enqueue({ secureId, kind: 'status', patch: update(1), terminal: false, minIntervalMs: 0 });
  const { api, taken } = service();
  await replica(api, url, { batch: 1 });
  await eventually(() => taken.length === orders.length, 10_000, 'every order to be served');
  expect(taken.map((t) => t.secureId)).toEqual(orders);
});

// Update 1 heads its order's run when claimed; update 2 is in the middle of it (a retry ends the run there).
for (const [failing, held] of [
  [1, 'updates 2 and 3'],
  [2, 'update 3'],
] as const)
  test.runIf(run)(
    `a 503 on each order's update ${failing} holds ${held} back until ${failing} went through, with two replicas`,
    async () => {
      const url = await database();
      const failedOnce = new Set<string>();
      const { api, taken, byOrder } = service(1, (secureId, step) => {
        if (step !== failing || failedOnce.has(secureId)) return false;
        failedOnce.add(secureId);
        return true;
      });
      const [a, b] = [await replica(api, url), await replica(api, url)];
      const orders = Array.from({ length: 30 }, (_, i) => `r${i + 1}`);
      await Promise.all(
        orders.map(async (secureId, i) => {
          const outbox = (i % 2 ? a : b).outbox;
          for (let step = 1; step <= STEPS.length; step += 1) await outbox.enqueue(secureId, update(step));
        }),
      );
      await eventually(() => taken.length === orders.length * STEPS.length, 15_000, 'every update to go through');
      expect(failedOnce.size).toBe(orders.length);
      expectInOrder(orders, byOrder);
    },
    30_000,
  );

test.runIf(run)(
  'a replica killed while it holds claimed updates: another sends them once the leases run out, each order in order',
  async () => {
    const url = await database();
    const { api, taken, byOrder } = service();
    // The doomed replica's calls never come back: they die with it.
    const hanging: CarrierApi = { ...api, updateDelivery: () => new Promise(() => undefined) };
    const orders = Array.from({ length: 12 }, (_, i) => `k${i + 1}`);
    await queueEvery(url, orders);
    let calls = 0;
    const counted: CarrierApi = { ...hanging, updateDelivery: (...args) => (calls++, hanging.updateDelivery(...args)) };
    await besideDoomed(url, counted, 'doomed', async () => {
      // Its first claim takes every order: 4 calls in flight, the other orders in its local queue. Then it dies.
      await eventually(() => calls === 4, 5000, 'the doomed replica to have 4 calls in flight');
      const leased = await pool(url).query(`SELECT 1 FROM carrier_outbox_orders WHERE lease_owner IS NOT NULL`);
      expect(leased.rowCount).toBe(orders.length);
      await kill(url, 'doomed');
      const survivor = await replica(api, url, { name: 'survivor', leaseMs: 500 });
      await eventually(() => taken.length === orders.length * STEPS.length, 15_000, 'the survivor to send everything');
      expectInOrder(orders, byOrder);
      // Each update was taken once: what the doomed replica had claimed went out once, from the survivor.
      expect(taken).toHaveLength(orders.length * STEPS.length);
      await eventually(() => survivor.outbox.stats.sent === orders.length * STEPS.length, 5000, 'the answers written');
    });
  },
  30_000,
);

test.runIf(run)(
  'a replica killed mid-order (update 1 sent, update 2 in flight): another sends 2 and 3 after its lease, each once',
  async () => {
    const url = await database();
    const { api, taken, byOrder } = service();
    // The doomed replica's service takes update 1 and never answers update 2: the replica dies with it in flight.
    let hung = 0;
    const midOrder: CarrierApi = {
      ...api,
      updateDelivery: (secureId, patch) =>
        stepOf(patch) === 1 ? api.updateDelivery(secureId, patch) : (hung++, new Promise(() => undefined)),
    };
    const orders = Array.from({ length: 4 }, (_, i) => `m${i + 1}`); // one per call the doomed replica has
    await queueEvery(url, orders);
    await besideDoomed(url, midOrder, 'doomed-mid', async () => {
      await eventually(() => hung === orders.length, 5000, 'every order to have update 2 in flight');
      expect(taken.map((t) => t.step)).toEqual(orders.map(() => 1));
      await kill(url, 'doomed-mid');
      await replica(api, url, { name: 'survivor-mid', leaseMs: 500 });
      await eventually(() => taken.length === orders.length * STEPS.length, 15_000, 'the survivor to send 2 and 3');
      // Update 1 is not sent again (its answer was committed before update 2 went out), and 2 comes before 3.
      expectInOrder(orders, byOrder);
    });
  },
  30_000,
);

test.runIf(run)(
  "updates queued by one replica while another holds the order's update in flight go out after it, in order, once",
  async () => {
    const url = await database();
    const { api, taken, byOrder } = service();
    // Replica a's calls wait for a gate, opened once b queued the rest: each order's first update is in flight meanwhile.
    let open!: () => void;
    const gate = new Promise<void>((resolve) => (open = resolve));
    let held = 0;
    const gated: CarrierApi = {
      ...api,
      updateDelivery: async (secureId, patch) => {
        held += 1;
        await gate;
        return api.updateDelivery(secureId, patch);
      },
    };
    const a = await replica(gated, url, { name: 'holder' });
    const orders = Array.from({ length: 8 }, (_, i) => `h${i + 1}`);
    for (const secureId of orders) await a.outbox.enqueue(secureId, update(1));
    await eventually(() => held === orders.length, 5000, 'a to hold every order');
    const b = await replica(api, url, { name: 'queuer' });
    for (const secureId of orders) {
      await b.outbox.enqueue(secureId, update(2));
      await b.outbox.enqueue(secureId, update(3));
    }
    await new Promise((resolve) => setTimeout(resolve, 100)); // b's polls had time to take what they could
    expect(taken).toHaveLength(0); // nothing of an order went out while its first update was in flight
    open();
    await eventually(() => taken.length === orders.length * STEPS.length, 15_000, 'every update to go through');
    expectInOrder(orders, byOrder);
  },
  30_000,
);
