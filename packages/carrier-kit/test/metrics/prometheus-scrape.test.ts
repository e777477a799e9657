/**
 * The kit's OpenTelemetry metrics, as Prometheus scrapes them: the agent against the mock with the SDK and its
 * Prometheus exporter installed (`startPrometheus`, what the simulator's `--metrics` serves). An order is created,
 * its callback comes twice, the service refuses the first delivery update with a 503 and takes the retry.
 */
import { afterEach, expect, test } from 'vitest';
import { BIN_SOURCES, startCli } from '../../../../scripts/testing/run-cli.js';
import { startPrometheus, type PrometheusEndpoint } from '../../src/simulator/prometheus.js';
import { useCarrierWorld } from '../support/carrier-world.js';
import { eventually, expectOk, placeOrder, registerCarrier } from '../support/world.js';

const startCarrierWorld = useCarrierWorld();
let prometheus: PrometheusEndpoint | undefined;
afterEach(async () => {
  await prometheus?.close();
  prometheus = undefined;
});

/** The value of one sample line of a scrape (`name{labels} value`), or undefined. */
function sample(scrape: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of scrape.split('\n')) {
    if (line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)/.exec(line);
    if (!match || match[1] !== name) continue;
    const found = Object.fromEntries([...(match[2] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => found[key] === value)) return Number(match[3]);
  }
  return undefined;
}

test('a Prometheus scrape has the outbox, receiver and agent figures with real values', async () => {
  prometheus = await startPrometheus();
  const { world, agent, served } = await startCarrierWorld({
    agent: { meterProvider: prometheus.provider, retry: { initialDelayMs: 50, maxDelayMs: 50 } },
  });
  agent.on('newOrder', async ({ tracker }) => {
    if (tracker.status === 'idle') await tracker.assignCourier({ name: 'Tom Richter', phone: '+49 160 9876543' });
  });
  await registerCarrier(world, served.url, { chaos: { duplicate: 1, seed: 1 } });
  await expectOk(
    world.control.POST('/__mock/faults', {
      body: { method: 'PUT', path: '/api-delivery/orders/*/delivery', status: 503, count: 1 },
    }),
  );
  const order = await placeOrder(world);
  await eventually(() => agent.view(order.id)?.order.delivery.status === 'courier_assigned', 10_000, 'the courier');
  await agent.idle();

  const scrape = await prometheus.scrape();
  expect(sample(scrape, 'carrier_callbacks_received_total', { outcome: 'accepted', type: 'order_created' })).toBe(1);
  expect(sample(scrape, 'carrier_callbacks_received_total', { outcome: 'duplicate', type: 'order_created' })).toBe(1);
  expect(sample(scrape, 'carrier_callbacks_duplicated_total', { type: 'order_created' })).toBe(1);
  expect(sample(scrape, 'carrier_callbacks_processed_total', { outcome: 'processed', resumed: 'false' })).toBe(1);
  expect(sample(scrape, 'carrier_outbox_send_attempts_total')).toBe(2);
  expect(sample(scrape, 'carrier_outbox_send_failures_total', { outcome: 'retry' })).toBe(1);
  expect(sample(scrape, 'carrier_outbox_send_duration_count', { outcome: 'ok' })).toBe(1);
  expect(sample(scrape, 'carrier_outbox_send_duration_count', { outcome: 'error' })).toBe(1);
  expect(sample(scrape, 'carrier_outbox_send_duration_sum', { outcome: 'ok' })).toBeGreaterThan(0);
  expect(sample(scrape, 'carrier_agent_order_load_duration_count', { outcome: 'ok' })).toBeGreaterThanOrEqual(1);
  expect(sample(scrape, 'carrier_outbox_pending')).toBe(0);
  expect(sample(scrape, 'carrier_outbox_oldest_pending_age')).toBe(0);
}, 30_000);

test('the queue depth and the oldest pending update while the service is down', async () => {
  prometheus = await startPrometheus();
  const { world, agent } = await startCarrierWorld({ agent: { meterProvider: prometheus.provider } });
  await registerCarrier(world, 'http://127.0.0.1:9/nowhere');
  const order = await placeOrder(world);
  const secureId = world.mock.mock.runtime.state.orders.get(order.id)!.secure_id!;
  await expectOk(
    world.control.POST('/__mock/faults', {
      body: { method: 'PUT', path: '/api-delivery/orders/*/delivery', status: 503, count: 10_000 },
    }),
  );
  await agent.refresh(secureId);
  const tracker = agent.tracker(secureId);
  await tracker.assignCourier({ name: 'Tom Richter', phone: '+49 160 9876543' });
  await tracker.startDelivery();
  await new Promise((resolve) => setTimeout(resolve, 1100));
  const scrape = await prometheus.scrape();
  expect(sample(scrape, 'carrier_outbox_pending')).toBe(2);
  expect(sample(scrape, 'carrier_outbox_oldest_pending_age')).toBeGreaterThanOrEqual(1);
  expect(sample(scrape, 'carrier_outbox_send_failures_total', { outcome: 'retry' })).toBeGreaterThanOrEqual(1);
}, 30_000);

test('restoapi-carrier simulate --metrics serves the scrape while it runs and prints it on exit', async () => {
  const { world } = await startCarrierWorld();
  const simulator = startCli([
    BIN_SOURCES['restoapi-carrier']!,
    'simulate',
    '--base-url',
    world.url,
    '--port',
    '0',
    '--speed',
    '5000',
    '--tick',
    '40',
    '--min-interval',
    '0',
    '--metrics',
    '0',
  ]);
  try {
    const [, url] = await simulator.waitFor(/^metrics at (http:\S+)$/);
    await simulator.waitFor(/waiting for orders/);
    const order = await placeOrder(world);
    await simulator.waitFor(new RegExp(`^${order.number} .* delivered`));
    const live = await (await fetch(url!)).text();
    expect(sample(live, 'carrier_callbacks_received_total', { outcome: 'accepted', type: 'order_created' })).toBe(1);
  } finally {
    const result = await simulator.stop('SIGINT');
    expect(result.status).toBe(0);
    const printed = result.stdout.slice(result.stdout.indexOf('metrics at exit'));
    expect(sample(printed, 'carrier_outbox_send_attempts_total')).toBeGreaterThanOrEqual(4);
    expect(sample(printed, 'carrier_outbox_pending')).toBe(0);
  }
}, 60_000);
