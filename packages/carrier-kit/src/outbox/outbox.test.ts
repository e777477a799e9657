import { describe, expect, test } from 'vitest';
import { FakeCarrierApi, carrierOrder } from '../../test/support/fake-carrier-api.js';
import { createManualScheduler } from '../time/scheduler.js';
import { createOutbox } from './outbox.js';
import { createMemoryOutboxStore } from './outbox-store.js';
import { silentLogger } from '../observability/logger.js';

function setup(options: { minIntervalMs?: number; minDistanceM?: number } = {}) {
  const clock = createManualScheduler();
  const api = new FakeCarrierApi();
  api.now = clock.now;
  const order = api.add(carrierOrder(5001));
  const store = createMemoryOutboxStore();
  const outbox = createOutbox({ api, store, scheduler: clock, random: () => 0.5, positions: options });
  return { clock, api, order, store, outbox };
}

describe('outbox', () => {
  test('an update is in the store before enqueue resolves', async () => {
    const { outbox, store, order, api } = setup();
    api.gate = new Promise(() => undefined); // the service never answers
    await outbox.start();
    await outbox.enqueue(order.secure_id, {
      status: 'courier_assigned',
      courier_name: 'Tom Richter',
      courier_phone: '+49 160 9876543',
    });
    expect(store.snapshot?.entries.map((e) => e.patch.status)).toEqual(['courier_assigned']);
  });

  test('retries connection errors and 5xx with exponential backoff until the update gets through', async () => {
    const { outbox, api, order, clock } = setup();
    const start = clock.now();
    api.fail({ status: 503 }, 2);
    api.fail('connection');
    await outbox.start();
    await outbox.enqueue(order.secure_id, { status: 'courier_assigned', courier_name: 'Tom', courier_phone: '+49 1' });
    for (let i = 0; i < 4; i++) {
      await outbox.idle();
      clock.runNext();
    }
    await outbox.idle();
    const times = api.calls.filter((c) => c.method === 'PUT').map((c) => c.at - start);
    // 1 s, 2 s, 4 s between attempts (jitter pinned to the middle).
    expect(times).toEqual([0, 1000, 3000, 7000]);
    expect(outbox.pending()).toEqual([]);
    expect(api.orders.get(order.secure_id)!.delivery.status).toBe('courier_assigned');
    expect(outbox.stats).toMatchObject({ sent: 1, retried: 3, rejected: 0 });
  });

  test('honours Retry-After when it asks for a longer pause', async () => {
    const { outbox, api, order, clock } = setup();
    api.fail({ status: 429, retryAfterMs: 30_000 });
    await outbox.start();
    await outbox.enqueue(order.secure_id, { status: 'courier_assigned', courier_name: 'Tom', courier_phone: '+49 1' });
    await outbox.idle();
    clock.advance(29_000);
    await outbox.idle();
    expect(api.puts()).toHaveLength(1);
    clock.advance(1000);
    await outbox.idle();
    expect(api.puts()).toHaveLength(2);
  });

  test('an update answered without the order (a 204) counts as sent', async () => {
    const { outbox, api, order } = setup();
    api.answersWithOrder = false;
    const sent: unknown[] = [];
    outbox.on('sent', ({ order }) => void sent.push(order));
    await outbox.start();
    await outbox.enqueue(order.secure_id, { status: 'courier_assigned', courier_name: 'Tom', courier_phone: '+49 1' });
    await outbox.idle();
    expect(sent).toEqual([undefined]);
    expect(outbox.pending()).toEqual([]);
    expect(outbox.stats).toMatchObject({ sent: 1, retried: 0, rejected: 0, failed: 0 });
    expect(api.orders.get(order.secure_id)!.delivery.status).toBe('courier_assigned');
  });

  test('a bug (TypeError) while sending is logged with the update, surfaces as failed and is never retried', async () => {
    const clock = createManualScheduler();
    const api = new FakeCarrierApi();
    const order = api.add(carrierOrder(5001));
    const errors: { message: string; details?: Record<string, unknown> }[] = [];
    const logger = {
      ...silentLogger,
      error: (message: string, details?: Record<string, unknown>) => void errors.push({ message, details }),
    };
    const outbox = createOutbox({ api, scheduler: clock, random: () => 0.5, logger });
    const failed: unknown[] = [];
    outbox.on('failed', ({ error }) => void failed.push(error));
    api.fail('bug');
    await outbox.start();
    await outbox.enqueue(order.secure_id, { status: 'courier_assigned', courier_name: 'Tom', courier_phone: '+49 1' });
    await outbox.idle();
    clock.advance(600_000);
    await outbox.idle();
    expect(api.puts()).toHaveLength(1);
    expect(failed).toHaveLength(1);
    expect(failed[0]).toBeInstanceOf(TypeError);
    expect(outbox.stats).toMatchObject({ sent: 0, retried: 0, rejected: 0, failed: 1 });
    expect(outbox.pending()).toEqual([]);
    expect(errors).toEqual([
      {
        message: 'delivery update failed with an error in the code, not retried',
        details: expect.objectContaining({
          secure_id: order.secure_id,
          patch: { status: 'courier_assigned', courier_name: 'Tom', courier_phone: '+49 1' },
          error: expect.stringContaining("TypeError: Cannot destructure property 'order'"),
        }),
      },
    ]);
  });

  test("fetch's own TypeError ('fetch failed': no answer) is a transport failure and is retried", async () => {
    const { outbox, api, order, clock } = setup();
    api.fail('fetch failed');
    await outbox.start();
    await outbox.enqueue(order.secure_id, { status: 'courier_assigned', courier_name: 'Tom', courier_phone: '+49 1' });
    await outbox.idle();
    clock.runNext();
    await outbox.idle();
    expect(api.puts()).toHaveLength(2);
    expect(outbox.stats).toMatchObject({ sent: 1, retried: 1, failed: 0 });
  });

  test('drops an update the service refuses (4xx) and goes on with the next one', async () => {
    const { outbox, api, order } = setup();
    const rejected: string[] = [];
    outbox.on('rejected', ({ entry }) => void rejected.push(String(entry.patch.status)));
    await outbox.start();
    await outbox.enqueue(order.secure_id, { status: 'delivered' }); // idle → delivered: 409
    await outbox.enqueue(order.secure_id, { status: 'courier_assigned', courier_name: 'Tom', courier_phone: '+49 1' });
    await outbox.idle();
    expect(rejected).toEqual(['delivered']);
    expect(api.orders.get(order.secure_id)!.delivery.status).toBe('courier_assigned');
  });

  test('sends the updates of one order one at a time, in order, while other orders go on', async () => {
    const { outbox, api, order } = setup();
    const other = api.add(carrierOrder(5002));
    let inFlight = 0;
    let most = 0;
    const update = api.updateDelivery.bind(api);
    api.updateDelivery = async (secureId, patch) => {
      inFlight += secureId === order.secure_id ? 1 : 0;
      most = Math.max(most, inFlight);
      await new Promise((resolve) => setTimeout(resolve, 5));
      try {
        return await update(secureId, patch);
      } finally {
        inFlight -= secureId === order.secure_id ? 1 : 0;
      }
    };
    await outbox.start();
    const queued = [
      outbox.enqueue(order.secure_id, { status: 'courier_assigned', courier_name: 'Tom', courier_phone: '+49 1' }),
      outbox.enqueue(other.secure_id, { status: 'courier_assigned', courier_name: 'Ana', courier_phone: '+49 2' }),
      outbox.enqueue(order.secure_id, { status: 'delivering' }),
      outbox.enqueue(order.secure_id, { status: 'delivered' }),
    ];
    await Promise.all(queued);
    await outbox.drained();
    expect(most).toBe(1);
    expect(api.puts(order.secure_id).map((p) => p.status)).toEqual(['courier_assigned', 'delivering', 'delivered']);
    expect(api.orders.get(order.secure_id)!.order_status).toBe('complete');
    // The other order did not wait for the first one's three updates.
    const firstOther = api.calls.findIndex((c) => c.secureId === other.secure_id);
    expect(firstOther).toBeLessThan(3);
  });

  test('a courier reporting every second does not flood the service: latest wins, one per 10 s', async () => {
    const { outbox, api, order, clock } = setup();
    await outbox.start();
    const reported: { lat: number; lon: number }[] = [];
    for (let second = 0; second < 120; second++) {
      // About 8 m/s northwards.
      const position = { lat: 52.49 + second * 0.000075, lon: 13.43 };
      reported.push(position);
      await outbox.enqueuePosition(order.secure_id, position);
      await outbox.idle();
      clock.advance(1000);
    }
    clock.advance(10_000);
    await outbox.idle();
    const puts = api.calls.filter((c) => c.method === 'PUT');
    console.log(`positions reported: ${reported.length}, position updates sent: ${puts.length}`);
    expect(puts.length).toBeLessThanOrEqual(13);
    for (let i = 1; i < puts.length; i++) expect(puts[i]!.at - puts[i - 1]!.at).toBeGreaterThanOrEqual(10_000);
    // The last report reached the service: the latest position wins.
    expect(puts.at(-1)!.patch).toEqual(reported.at(-1));
    expect(outbox.stats.coalesced).toBeGreaterThan(90);
  });

  test('a position within the minimum distance of the last one sent is not sent', async () => {
    const { outbox, api, order, clock } = setup({ minDistanceM: 25 });
    await outbox.start();
    expect(await outbox.enqueuePosition(order.secure_id, { lat: 52.49, lon: 13.43 })).toBe('queued');
    await outbox.idle();
    clock.advance(10_000);
    expect(await outbox.enqueuePosition(order.secure_id, { lat: 52.4901, lon: 13.43 })).toBe('skipped_nearby'); // 11 m
    expect(await outbox.enqueuePosition(order.secure_id, { lat: 52.491, lon: 13.43 })).toBe('queued'); // 111 m
    await outbox.idle();
    expect(api.puts()).toHaveLength(2);
  });

  test('a position waiting for its interval does not hold back a status update', async () => {
    const { outbox, api, order, clock } = setup();
    await outbox.start();
    await outbox.enqueue(order.secure_id, { status: 'courier_assigned', courier_name: 'Tom', courier_phone: '+49 1' });
    await outbox.enqueuePosition(order.secure_id, { lat: 52.49, lon: 13.43 });
    await outbox.idle();
    await outbox.enqueuePosition(order.secure_id, { lat: 52.5, lon: 13.43 }); // waits 10 s
    await outbox.enqueue(order.secure_id, { status: 'delivering' });
    await outbox.idle();
    expect(api.puts().map((p) => p.status ?? 'position')).toEqual(['courier_assigned', 'position', 'delivering']);
    clock.advance(10_000);
    await outbox.idle();
    expect(api.puts()).toHaveLength(4);
  });

  test('positions stop at a terminal status: the last pending one rides along with it, later ones are refused', async () => {
    const { outbox, api, order, clock } = setup();
    await outbox.start();
    await outbox.enqueue(order.secure_id, { status: 'courier_assigned', courier_name: 'Tom', courier_phone: '+49 1' });
    await outbox.enqueue(order.secure_id, { status: 'delivering' });
    await outbox.enqueuePosition(order.secure_id, { lat: 52.49, lon: 13.43 });
    await outbox.idle();
    await outbox.enqueuePosition(order.secure_id, { lat: 52.5, lon: 13.43 }); // waiting for its interval
    await outbox.enqueue(order.secure_id, { status: 'delivered' });
    expect(await outbox.enqueuePosition(order.secure_id, { lat: 52.51, lon: 13.43 })).toBe('dropped_terminal');
    clock.advance(60_000);
    await outbox.idle();
    expect(api.puts()).toEqual([
      { status: 'courier_assigned', courier_name: 'Tom', courier_phone: '+49 1' },
      { status: 'delivering' },
      { lat: 52.49, lon: 13.43 },
      { status: 'delivered', lat: 52.5, lon: 13.43 },
    ]);
  });

  test('pending updates survive a restart: a new outbox on the same store sends them in order', async () => {
    const { api, order, store, clock } = setup();
    const first = createOutbox({ api, store, scheduler: clock, random: () => 0.5 });
    api.fail('connection', 100);
    await first.start();
    await first.enqueue(order.secure_id, { status: 'courier_assigned', courier_name: 'Tom', courier_phone: '+49 1' });
    await first.enqueue(order.secure_id, { status: 'delivering' });
    await first.idle();
    // The process dies: nothing is stopped or flushed.
    api.recover();
    const second = createOutbox({ api, store, scheduler: clock, random: () => 0.5 });
    await second.start();
    await second.drained();
    expect(api.orders.get(order.secure_id)!.delivery.status).toBe('delivering');
    expect(
      api
        .puts()
        .filter((_, i, all) => i >= all.length - 2)
        .map((p) => p.status),
    ).toEqual(['courier_assigned', 'delivering']);
    await first.stop();
  });

  test('refuses to queue before start', async () => {
    const { outbox, order } = setup();
    await expect(outbox.enqueue(order.secure_id, { status: 'delivering' })).rejects.toThrow(/not started/);
  });
});
