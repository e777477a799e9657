import { createMockServer } from '@restoapi/mock-server/node';
import { afterEach, expect, test } from 'vitest';
import { BIN_SOURCES, startCli } from '../../../../scripts/testing/run-cli.js';
import { createProgram } from '../../src/simulator/cli-program.js';
import { runSimulator, type RunningSimulator } from '../../src/node.js';
import {
  advanceMock,
  callbacks,
  eventually,
  mainOrder,
  placeOrder,
  registerCarrier,
  SERVICES,
  setOrderStatus,
  startWorld,
  type World,
} from '../support/world.js';

let world: World | undefined;
let simulator: RunningSimulator | undefined;
let ticking: ReturnType<typeof setInterval> | undefined;

afterEach(async () => {
  if (ticking) clearInterval(ticking);
  await simulator?.stop();
  await world?.close();
});

test.each(SERVICES)(
  'the simulator takes each new order and drives a courier to the client, through chaos and problems (%s)',
  async (service) => {
    // `independent`: a service whose delivery updates answer 204 without body (and every other departure).
    const started = Date.now();
    world = await startWorld({ service });
    const lines: string[] = [];
    simulator = await runSimulator({
      baseUrl: world.url,
      port: 0,
      speedKmh: 5000,
      tickMs: 40,
      minIntervalMs: 100,
      problemRate: 0.5,
      problemPauseMs: 100,
      chaos: true,
      seed: 3,
      output: { write: (text: string) => lines.push(...text.split('\n').filter(Boolean)) },
      tty: false,
    });
    // Chaos delays callbacks on the mock's virtual clock: let it run.
    ticking = setInterval(() => void advanceMock(world!, 500).catch(() => undefined), 50);
    const orders = [];
    for (let i = 0; i < 4; i++) orders.push(await placeOrder(world, i));
    await setOrderStatus(world, orders[3]!.id, 'cancelled');
    const phases = await Promise.all(orders.slice(0, 3).map((order) => simulator!.finished(order.id)));
    expect(phases).toEqual(['delivered', 'delivered', 'delivered']);
    for (const order of orders.slice(0, 3)) {
      await eventually(
        async () => (await mainOrder(world!, order.id)).order.status === 'complete',
        5000,
        `${order.number} complete`,
      );
    }
    expect((await mainOrder(world, orders[3]!.id)).order.status).toBe('cancelled');
    await eventually(
      async () => (await callbacks(world!, { carrier_id: simulator!.carrierId })).every((c) => c.state === 'delivered'),
      5000,
      'every callback delivered',
    );
    await simulator.agent.idle();
    const stats = simulator.stats;
    const sent = await callbacks(world, { carrier_id: simulator.carrierId });
    const distinct = new Set(sent.map((c) => `${c.order_id}|${c.type}|${c.query.status ?? ''}`)).size;
    expect(simulator.agent.receiver.stats.processed).toBe(distinct);
    console.log(
      `simulator on ${service}: ${stats.orders} orders taken, ${stats.delivered} delivered, ${stats.problems} problems; ` +
        `callbacks sent ${sent.length} (${sent.filter((c) => c.duplicate_of !== null).length} chaos duplicates), ` +
        `processed ${simulator.agent.receiver.stats.processed}, duplicates dropped ${simulator.agent.receiver.stats.duplicates}; ` +
        `delivery updates sent ${simulator.agent.outbox.stats.sent} (retried ${simulator.agent.outbox.stats.retried}, ` +
        `failed ${simulator.agent.outbox.stats.failed}), positions coalesced ${simulator.agent.outbox.stats.coalesced}; ` +
        `${Date.now() - started} ms`,
    );
    expect(simulator.agent.outbox.stats).toMatchObject({ retried: 0, failed: 0, rejected: 0 });
    expect(stats.problems).toBeGreaterThan(0);
    expect(lines[0]).toMatch(/^carrier \d+ registered at http:\/\/127\.0\.0\.1:\d+\/callbacks with chaos/);
    // Plain output: one line per order and phase, ending delivered.
    for (const order of orders.slice(0, 3)) {
      const own = lines.filter((line) => line.startsWith(order.number));
      expect(own[0]).toMatch(/assigning courier/);
      expect(own.at(-1)).toMatch(/██████████ 100% {2}delivered\s+at /);
    }
    // The courier's trail reached the service: the carrier view shows the destination as last position.
    const view = await simulator.agent.api.getOrder(simulator.agent.view(orders[0]!.id)!.order.secure_id);
    expect(view.delivery).toMatchObject({ status: 'delivered', lat: view.destination.lat, lon: view.destination.lon });
    await simulator.stop();
    expect(lines.at(-1)).toMatch(/^simulator stopped: 3 orders, 3 delivered/);
    const carriers = await world.control.GET('/__mock/carriers');
    expect(carriers.data?.carriers).toEqual([]);
  },
);

test('the CLI parses its options', () => {
  const program = createProgram();
  const simulate = program.commands.find((command) => command.name() === 'simulate')!;
  const help = simulate.helpInformation();
  for (const option of [
    '--base-url',
    '--control-url',
    '--port',
    '--speed',
    '--problem-rate',
    '--chaos',
    '--secret',
    '--outbox',
  ])
    expect(help).toContain(option);
  simulate.exitOverride().configureOutput({ writeErr: () => undefined, writeOut: () => undefined });
  expect(() => simulate.parse(['--base-url', 'http://x', '--problem-rate', '2'], { from: 'user' })).toThrow(
    /from 0 to 1/,
  );
});

test('restoapi-carrier simulate runs as a program: it delivers an order and unregisters on SIGINT', async () => {
  world = await startWorld();
  const cli = startCli([
    BIN_SOURCES['restoapi-carrier']!,
    'simulate',
    '--base-url',
    world.url,
    '--port',
    '0',
    '--speed',
    '3000',
    '--tick',
    '40',
    '--min-interval',
    '0',
  ]);
  await cli.waitFor(/waiting for orders/, 15_000);
  const order = await placeOrder(world);
  await eventually(
    async () => (await mainOrder(world!, order.id)).order.status === 'complete',
    10_000,
    'the order to be delivered',
  );
  const result = await cli.stop('SIGINT');
  expect(result.status).toBe(0);
  const output = result.stdout.trimEnd().split('\n');
  expect(output.some((line) => line.startsWith(order.number) && line.includes('delivered'))).toBe(true);
  expect(output.at(-1)).toMatch(/^simulator stopped: 1 orders, 1 delivered/);
  expect((await world.control.GET('/__mock/carriers')).data?.carriers).toEqual([]);
}, 30_000);

test('the simulator warns when an earlier carrier serves the same restaurants and would take their orders', async () => {
  world = await startWorld();
  const first = await registerCarrier(world, 'http://127.0.0.1:9/callbacks'); // restaurants 11 and 12
  const lines: string[] = [];
  simulator = await runSimulator({
    baseUrl: world.url,
    port: 0,
    restaurantIds: [12, 21],
    output: { write: (text: string) => lines.push(...text.split('\n').filter(Boolean)) },
    tty: false,
  });
  expect(lines[0]).toBe(
    `warning: carrier ${first} "Kurier Berlin" registered earlier serves restaurants 11, 12; the mock hands each order to the first registered carrier serving its restaurant, so this one gets none of those orders (run the demo with \`npm start -- --no-carrier\`, or remove that carrier with DELETE /__mock/carriers/${first})`,
  );
  await simulator.stop();
  simulator = undefined;

  // A carrier of other restaurants is no reason for a warning.
  lines.length = 0;
  simulator = await runSimulator({
    baseUrl: world.url,
    port: 0,
    restaurantIds: [21, 22],
    output: { write: (text: string) => lines.push(...text.split('\n').filter(Boolean)) },
    tty: false,
  });
  expect(lines.some((line) => line.startsWith('warning'))).toBe(false);
});

test('against a mock with a control token, the simulator registers with --control-token and is refused without it', async () => {
  const token = 'simulator-test-token-0123456789';
  const mock = await createMockServer({ port: 0, controlToken: token });
  const quiet = { output: { write: () => true }, tty: false };
  try {
    await expect(runSimulator({ baseUrl: mock.url, port: 0, ...quiet })).rejects.toThrow(
      /registering the carrier .* failed with 401: .*control token/,
    );
    simulator = await runSimulator({ baseUrl: mock.url, port: 0, controlToken: token, ...quiet });
    expect(mock.mock.runtime.state.carriers.get(simulator.carrierId)?.name).toBe('Simulated carrier');
  } finally {
    await simulator?.stop();
    simulator = undefined;
    await mock.close();
  }
});
