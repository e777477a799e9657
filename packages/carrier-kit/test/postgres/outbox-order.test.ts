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

test.runIf(run)(
  "a 503 on each order's first update holds updates 2 and 3 back until 1 went through, with two replicas",
  async () => {
    const url = await database();
    const failedOnce = new Set<string>();
    const { api, taken, byOrder } = service(1, (secureId, step) => {
      if (step !== 1 || failedOnce.has(secureId)) return false;
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
    for (const secureId of orders) expect([secureId, byOrder().get(secureId)]).toEqual([secureId, [1, 2, 3]]);
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
    const queuer = createPostgresOutboxStore({ pool: pool(url) });
    for (const secureId of orders)
      for (let step = 1; step <= STEPS.length; step += 1)
        await queuer.enqueue({ secureId, kind: 'status', patch: update(step), terminal: step === 3, minIntervalMs: 0 });
    let calls = 0;
    const counted: CarrierApi = { ...hanging, updateDelivery: (...args) => (calls++, hanging.updateDelivery(...args)) };
    const doomed = await replica(counted, url, { name: 'doomed', leaseMs: 500, batch: 4 });
    outboxes.splice(outboxes.indexOf(doomed.outbox), 1); // its sends never end: nothing waits for them
    try {
      // Its first claim takes every order: 4 calls in flight, the other orders in its local queue. Then it dies:
      // its database sessions end, and it neither answers nor gives anything back.
      await eventually(() => calls === 4, 5000, 'the doomed replica to have 4 calls in flight');
      const admin = pool(url);
      const leased = await admin.query(`SELECT 1 FROM carrier_outbox_orders WHERE lease_owner IS NOT NULL`);
      expect(leased.rowCount).toBe(orders.length);
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = 'doomed' AND pid <> pg_backend_pid()`,
      );
      const survivor = await replica(api, url, { name: 'survivor', leaseMs: 500 });
      await eventually(() => taken.length === orders.length * STEPS.length, 15_000, 'the survivor to send everything');
      for (const secureId of orders) expect([secureId, byOrder().get(secureId)]).toEqual([secureId, [1, 2, 3]]);
      // Each update was taken once: what the doomed replica had claimed went out once, from the survivor.
      expect(taken).toHaveLength(orders.length * STEPS.length);
      await eventually(() => survivor.outbox.stats.sent === orders.length * STEPS.length, 5000, 'the answers written');
    } finally {
      void doomed.outbox.stop();
    }
  },
  30_000,
);
