// The shared outbox over the PostgreSQL store (a real server): the outbox contract of one process
// (retries, refusals, position thinning) holds when the updates live in the database, and a replica
// that hangs hands its update to another once the lease runs out.
import pg from 'pg';
import { expect, test } from 'vitest';
import { createSharedOutbox, type SharedOutboxStore } from '@restoapi/carrier-kit';
import { createPostgresOutboxStore } from '@restoapi/carrier-kit/postgres';
import { carrierOrder, FakeCarrierApi } from '../support/fake-carrier-api.js';
import { postgresSuite } from '../support/postgres-suite.js';
import { eventually } from '../support/world.js';

const { run, pools, outboxes, database } = postgresSuite('carrier-kit shared outbox');

async function replica(
  api: FakeCarrierApi,
  url: string,
  options: { leaseMs?: number; minIntervalMs?: number; wrap?: (store: SharedOutboxStore) => SharedOutboxStore } = {},
) {
  const pool = new pg.Pool({ connectionString: url, max: 4 });
  pools.push(pool);
  const store = createPostgresOutboxStore({ pool, leaseMs: options.leaseMs ?? 30_000 });
  const outbox = createSharedOutbox({
    api,
    store: options.wrap ? options.wrap(store) : store,
    pollMs: 20,
    retry: { initialDelayMs: 50, maxDelayMs: 100 },
    positions: { minIntervalMs: options.minIntervalMs ?? 0, minDistanceM: 0 },
  });
  outboxes.push(outbox);
  await outbox.start();
  return outbox;
}

test.runIf(run)('a 503 is retried and holds the next update back; a 409 is refused and dropped', async () => {
  const api = new FakeCarrierApi();
  const order = api.add(carrierOrder(1));
  const outbox = await replica(api, await database());
  const events: string[] = [];
  outbox.on('retry', ({ entry }) => void events.push(`retry ${entry.patch.status}`));
  outbox.on('rejected', ({ entry }) => void events.push(`rejected ${entry.patch.status}`));
  api.fail({ status: 503 });
  await outbox.enqueue(order.secure_id, { status: 'courier_assigned', courier_name: 'Tom', courier_phone: '+49 1' });
  await outbox.enqueue(order.secure_id, { status: 'delivering' });
  // An illegal move (delivering → idle is not in the document's machine): the service refuses it for good.
  await outbox.enqueue(order.secure_id, { status: 'courier_assigned' });
  await eventually(() => outbox.pending().length === 0, 5000, 'the outbox to drain');
  expect(api.puts(order.secure_id).map((p) => p.status)).toEqual([
    'courier_assigned',
    'courier_assigned',
    'delivering',
    'courier_assigned',
  ]);
  expect(events).toEqual(['retry courier_assigned', 'rejected courier_assigned']);
  expect(outbox.stats).toMatchObject({ queued: 3, sent: 2, retried: 1, rejected: 1 });
});

/**
 * A store whose refusal is written, and then held until the replica has reconciled its pending updates with
 * the store (which now says the update is done), and 50 ms more: the window in which a caller reads pending().
 */
function reconcilingBeforeRefusalReturns(store: SharedOutboxStore): SharedOutboxStore {
  let reconciled: () => void = () => undefined;
  return {
    ...store,
    async stillPending(ids) {
      const still = await store.stillPending(ids);
      reconciled();
      return still;
    },
    async markRejected(id, error) {
      await store.markRejected(id, error);
      await new Promise<void>((resolve) => (reconciled = resolve));
      await new Promise((resolve) => setTimeout(resolve, 50));
    },
  };
}

test.runIf(run)(
  'a refused update leaves pending() only with its event, though the store said it was done first',
  async () => {
    const api = new FakeCarrierApi();
    const order = api.add(carrierOrder(5));
    const outbox = await replica(api, await database(), { wrap: reconcilingBeforeRefusalReturns });
    const events: string[] = [];
    outbox.on('rejected', ({ entry }) => void events.push(`rejected ${entry.patch.status}`));
    await outbox.enqueue(order.secure_id, { status: 'courier_assigned', courier_name: 'Tom', courier_phone: '+49 1' });
    await outbox.enqueue(order.secure_id, { status: 'delivering' });
    await outbox.enqueue(order.secure_id, { status: 'courier_assigned' });
    await eventually(() => outbox.pending().length === 0, 5000, 'the outbox to drain');
    expect(events).toEqual(['rejected courier_assigned']);
  },
);

test.runIf(run)('an update queued while the replica asks the store about its pending ones stays pending', async () => {
  const api = new FakeCarrierApi();
  const order = api.add(carrierOrder(6));
  // The first reconciliation after `asking` is armed is held for 100 ms between its query and its answer.
  let asking: (() => void) | undefined;
  let answered: (() => void) | undefined;
  const slowReconciliation = (store: SharedOutboxStore): SharedOutboxStore => ({
    ...store,
    async stillPending(ids) {
      const still = await store.stillPending(ids);
      if (!asking) return still;
      const [started, done] = [asking, answered!];
      asking = undefined;
      started();
      await new Promise((resolve) => setTimeout(resolve, 100));
      setTimeout(done, 0);
      return still;
    },
  });
  const outbox = await replica(api, await database(), { wrap: slowReconciliation });
  // The first update keeps failing, so it stays pending and the replica keeps reconciling.
  api.fail({ status: 503 }, 1000);
  await outbox.enqueue(order.secure_id, { status: 'courier_assigned', courier_name: 'Tom', courier_phone: '+49 1' });
  const finished = new Promise<void>((resolve) => (answered = resolve));
  await new Promise<void>((resolve) => (asking = resolve));
  await outbox.enqueue(order.secure_id, { status: 'delivering' });
  await finished;
  expect(outbox.pending().map((entry) => entry.patch.status)).toEqual(['courier_assigned', 'delivering']);
  api.recover();
  await eventually(() => outbox.pending().length === 0, 5000, 'the outbox to drain');
  expect(
    api
      .puts(order.secure_id)
      .slice(-2)
      .map((put) => put.status),
  ).toEqual(['courier_assigned', 'delivering']);
});

test.runIf(run)(
  'positions wait for their interval, the latest wins, and the last one rides with delivered',
  async () => {
    const api = new FakeCarrierApi();
    const order = api.add(carrierOrder(2, { order_status: 'delivering' }));
    const outbox = await replica(api, await database(), { minIntervalMs: 60_000 });
    await outbox.enqueue(order.secure_id, { status: 'courier_assigned', courier_name: 'Tom', courier_phone: '+49 1' });
    await outbox.enqueue(order.secure_id, { status: 'delivering' });
    expect(await outbox.enqueuePosition(order.secure_id, { lat: 52.1, lon: 13.4 })).toBe('queued');
    await eventually(() => api.puts(order.secure_id).length === 3, 5000, 'the first position to go out');
    expect(await outbox.enqueuePosition(order.secure_id, { lat: 52.2, lon: 13.4 })).toBe('queued');
    expect(await outbox.enqueuePosition(order.secure_id, { lat: 52.3, lon: 13.4 })).toBe('coalesced');
    await outbox.enqueue(order.secure_id, { status: 'delivered' });
    expect(await outbox.enqueuePosition(order.secure_id, { lat: 52.4, lon: 13.4 })).toBe('dropped_terminal');
    await eventually(() => outbox.pending().length === 0, 5000, 'the outbox to drain');
    expect(api.puts(order.secure_id).slice(2)).toEqual([
      { lat: 52.1, lon: 13.4 },
      { status: 'delivered', lat: 52.3, lon: 13.4 },
    ]);
  },
);

test.runIf(run)('the update of a replica that hangs is sent by another once the lease runs out', async () => {
  const url = await database();
  const hanging = new FakeCarrierApi();
  hanging.gate = new Promise(() => undefined);
  const alive = new FakeCarrierApi();
  const order = carrierOrder(3);
  hanging.add(order);
  alive.add(order);
  const first = await replica(hanging, url, { leaseMs: 300 });
  outboxes.splice(outboxes.indexOf(first), 1); // its send never ends: the test does not wait for it
  await first.enqueue(order.secure_id, { status: 'courier_assigned', courier_name: 'Tom', courier_phone: '+49 1' });
  await eventually(() => hanging.calls.length === 1, 5000, 'the first replica to take the update');
  const second = await replica(alive, url, { leaseMs: 300 });
  await eventually(() => second.stats.sent === 1, 5000, 'the second replica to send it');
  expect(alive.puts(order.secure_id)).toEqual([
    { status: 'courier_assigned', courier_name: 'Tom', courier_phone: '+49 1' },
  ]);
  // The first replica's outbox learns that its update went out, from the database.
  await eventually(() => first.pending().length === 0, 5000, 'the first replica to see it sent');
  void first.stop(); // stops its polling; its hanging send is never awaited
});

test.runIf(run)(
  'an update answered without the order (a 204) counts as sent; a bug while sending is failed, not retried',
  async () => {
    const api = new FakeCarrierApi();
    const order = api.add(carrierOrder(4));
    const url = await database();
    const outbox = await replica(api, url);
    const sent: unknown[] = [];
    const failed: unknown[] = [];
    outbox.on('sent', ({ order }) => void sent.push(order));
    outbox.on('failed', ({ error }) => void failed.push(error));
    api.answersWithOrder = false;
    await outbox.enqueue(order.secure_id, { status: 'courier_assigned', courier_name: 'Tom', courier_phone: '+49 1' });
    await eventually(() => sent.length === 1, 5000, 'the 204 update to count as sent');
    expect(sent).toEqual([undefined]);
    api.fail('bug');
    await outbox.enqueue(order.secure_id, { status: 'delivering' });
    await eventually(() => failed.length === 1, 5000, 'the bug to surface');
    await new Promise((resolve) => setTimeout(resolve, 300)); // several poll rounds: nothing is sent again
    expect(failed[0]).toBeInstanceOf(TypeError);
    expect(api.puts(order.secure_id).map((p) => p.status)).toEqual(['courier_assigned', 'delivering']);
    expect(outbox.stats).toMatchObject({ sent: 1, retried: 0, rejected: 0, failed: 1 });
    const pool = new pg.Pool({ connectionString: url, max: 1 });
    pools.push(pool);
    const { rows } = await pool.query<{ state: string }>('SELECT state FROM carrier_outbox ORDER BY id');
    expect(rows.map((r) => r.state)).not.toContain('pending');
  },
);
