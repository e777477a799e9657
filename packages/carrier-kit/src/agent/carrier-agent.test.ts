import { describe, expect, test } from 'vitest';
import { FakeCarrierApi, carrierOrder } from '../../test/support/fake-carrier-api.js';
import { createManualScheduler } from '../time/scheduler.js';
import { createCarrierAgent } from './carrier-agent.js';

function post(query: Record<string, string | number>): Request {
  const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)]));
  return new Request(`http://carrier.test/callbacks?${search}`, { method: 'POST' });
}

function setup() {
  const api = new FakeCarrierApi();
  const order = api.add(carrierOrder(5001));
  const clock = createManualScheduler();
  const agent = createCarrierAgent({ api, scheduler: clock, random: () => 0.5 });
  const events: string[] = [];
  agent.on('newOrder', ({ order }) => void events.push(`new ${order.number}`));
  agent.on('orderStatusChanged', ({ previous, current }) => void events.push(`status ${previous} → ${current}`));
  agent.on('orderCancelled', ({ order }) => void events.push(`cancelled ${order.number}`));
  return { api, order, agent, events, clock };
}

const created = (id = 5001) => ({ type: 'order_created', order_id: id, order_secure_id: `secure-${id}` });
const changed = (status: string, id = 5001) => ({
  type: 'order_status_changed',
  order_id: id,
  order_secure_id: `secure-${id}`,
  status,
});

describe('carrier agent', () => {
  test('loads the order on order_created and emits newOrder once', async () => {
    const { agent, api, events } = setup();
    await agent.start();
    await agent.handle(post(created()));
    await agent.handle(post(created()));
    await agent.idle();
    expect(events).toEqual(['new PP-5001']);
    expect(api.calls.filter((c) => c.method === 'GET')).toHaveLength(1);
    expect(agent.view(5001)?.order.order_status).toBe('new');
  });

  test('treats every callback as a hint: the state loaded from the API wins over its claim', async () => {
    const { agent, api, events } = setup();
    await agent.start();
    await agent.handle(post(created()));
    await agent.idle();
    api.setOrderStatus('secure-5001', 'preparing');
    // A late retry of "accepted" arrives after the order moved on to cooking.
    await agent.handle(post(changed('accepted')));
    await agent.idle();
    expect(events).toEqual(['new PP-5001', 'status new → preparing']);
    const loaded = agent.audit
      .forOrder(5001)
      .filter((e) => e.step === 'order_loaded')
      .at(-1);
    expect(loaded?.detail).toContain("the callback claimed confirmed; the service's state wins");
  });

  test('tolerates out-of-order callbacks: a status change before order_created still yields one newOrder', async () => {
    const { agent, api, events } = setup();
    await agent.start();
    api.setOrderStatus('secure-5001', 'confirmed');
    await agent.handle(post(changed('accepted')));
    await agent.handle(post(created()));
    await agent.idle();
    expect(events).toEqual(['new PP-5001']);
  });

  test('never lets an older read replace a newer one', async () => {
    const { agent, api, events } = setup();
    await agent.start();
    api.setOrderStatus('secure-5001', 'prepared');
    await agent.refresh('secure-5001');
    // A read taken before the last change (e.g. by a replica lagging behind) comes back later.
    api.setOrderStatus('secure-5001', 'preparing');
    await agent.refresh('secure-5001');
    expect(agent.view('secure-5001')?.order.order_status).toBe('prepared');
    expect(events).toEqual(['new PP-5001']);
  });

  test('on cancellation emits orderCancelled, drops pending updates and locks the tracker', async () => {
    const { agent, api, events } = setup();
    await agent.start();
    await agent.handle(post(created()));
    await agent.idle();
    const tracker = agent.tracker('secure-5001');
    api.gate = new Promise(() => undefined); // the service stops answering
    void tracker.assignCourier({ name: 'Tom', phone: '+49 1' });
    await tracker.startDelivery().catch(() => undefined);
    api.gate = undefined;
    api.setOrderStatus('secure-5001', 'cancelled');
    await agent.refresh('secure-5001');
    expect(events).toEqual(['new PP-5001', 'status new → cancelled', 'cancelled PP-5001']);
    expect(agent.outbox.pending('secure-5001').map((e) => e.patch.status)).toEqual(['courier_assigned']); // only the one in flight
    await expect(tracker.markDelivered()).rejects.toThrow(/cancelled/);
  });

  test('retries loading an order on connection errors and 5xx', async () => {
    const { agent, api, events, clock } = setup();
    await agent.start();
    api.fail('connection');
    api.fail({ status: 502 });
    await agent.handle(post(created()));
    for (let i = 0; i < 3; i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
      clock.runNext();
    }
    await agent.idle();
    expect(events).toEqual(['new PP-5001']);
    expect(api.calls.filter((c) => c.method === 'GET')).toHaveLength(3);
  });

  test('keeps retrying a load while the service is down, and gives up when stopped', async () => {
    const { agent, api, events, clock } = setup();
    await agent.start();
    api.fail({ status: 503 }, 1000);
    await agent.handle(post(created()));
    for (let i = 0; i < 20; i++) {
      await new Promise((resolve) => setTimeout(resolve, 1));
      clock.runNext();
    }
    const gets = api.calls.filter((c) => c.method === 'GET').length;
    expect(gets).toBeGreaterThan(10);
    await agent.stop();
    expect(events).toEqual([]);
    // The claim was released: after a restart the service's next retry of the callback is processed.
    api.recover();
    await agent.start();
    await agent.handle(post(created()));
    await agent.idle();
    expect(events).toEqual(['new PP-5001']);
  });

  test('records the audit trail: callback received → order loaded → pushed → answer', async () => {
    const { agent } = setup();
    agent.on('newOrder', ({ tracker }) =>
      tracker.assignCourier({ name: 'Tom Richter', phone: '+49 160 9876543', externalId: 4711 }),
    );
    await agent.start();
    await agent.handle(post(created()));
    await agent.idle();
    await agent.outbox.drained();
    await agent.idle();
    expect(agent.audit.forOrder(5001).map((e) => e.step)).toEqual([
      'callback_received',
      'order_loaded',
      'event_emitted',
      'update_queued',
      'update_pushed',
      'update_answered',
    ]);
  });

  test('after a status update answered without the order (204), the agent reads the order back', async () => {
    const { agent, api } = setup();
    api.answersWithOrder = false;
    agent.on('newOrder', async ({ tracker }) => {
      await tracker.assignCourier({ name: 'Tom Richter', phone: '+49 160 9876543', externalId: 4711 });
      await tracker.startDelivery();
    });
    await agent.start();
    await agent.handle(post(created()));
    await agent.idle();
    await agent.outbox.drained();
    await agent.idle();
    expect(agent.outbox.stats).toMatchObject({ sent: 2, failed: 0, retried: 0 });
    // The callback's load, then one read-back after each status update.
    expect(api.calls.filter((c) => c.method === 'PUT')).toHaveLength(2);
    expect(api.calls.filter((c) => c.method === 'GET')).toHaveLength(3);
    expect(agent.view(5001)?.order).toMatchObject({ order_status: 'delivering', delivery: { status: 'delivering' } });
    expect(agent.audit.forOrder(5001).find((e) => e.step === 'update_answered')?.detail).toBe(
      'accepted (the answer held no order)',
    );
  });
});
