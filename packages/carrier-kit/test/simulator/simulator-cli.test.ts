/**
 * `restoapi-carrier` run as a program: its answers to bad invocations, an unreachable service and a
 * taken port, and what a Ctrl-C in the middle of a delivery leaves on the service.
 */
import { afterEach, expect, test } from 'vitest';
import { ABANDONED_MESSAGE } from '../../src/simulator/run-simulator.js';
import { BIN_SOURCES, freePort, occupyPort, runCli, startCli } from '../../../../scripts/testing/run-cli.js';
import { sampledEach } from '../../../../scripts/testing/test-mode.js';
import { eventually, placeOrder, startWorld, type World } from '../support/world.js';

const carrier = (...args: string[]) => runCli([BIN_SOURCES['restoapi-carrier']!, ...args]);

let world: World | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
});

const badInvocations: [string[], RegExp][] = [
  [['simulate'], /required option '--base-url <url>' not specified/],
  [
    ['simulate', '--base-url', 'localhost:4010'],
    /--base-url <url>' argument 'localhost:4010' is invalid\. expected an http\(s\) URL/,
  ],
  [
    ['simulate', '--base-url', 'not a url'],
    /--base-url <url>' argument 'not a url' is invalid\. expected an absolute http\(s\) URL/,
  ],
  [
    ['simulate', '--base-url', 'http://127.0.0.1:4010', '--port', '65536'],
    /--port <port>' argument '65536' is invalid\. expected a number from 0 to 65535/,
  ],
  [
    ['simulate', '--base-url', 'http://127.0.0.1:4010', '--speed', 'fast'],
    /--speed <km\/h>' argument 'fast' is invalid/,
  ],
  [['simulate', '--base-url', 'http://127.0.0.1:4010', '--tick', '-5'], /--tick <ms>' argument '-5' is invalid/],
  [['simulate', '--base-url', 'http://127.0.0.1:4010', '--restaurants', '11,x'], /expected restaurant ids like 11,12/],
  [['simulate', '--base-url', 'http://127.0.0.1:4010', '--turbo'], /unknown option '--turbo'/],
  [
    ['simulate', '--base-url', 'http://127.0.0.1:4010', '--mock-session', 'two words'],
    /--mock-session <name>' argument 'two words' is invalid\. a session name is 1 to 64 characters/,
  ],
  [['deliver'], /unknown command 'deliver'/],
];
sampledEach(
  badInvocations,
  3,
  'a process start each; npm test refuses a sample of the bad invocations',
)('restoapi-carrier %j is refused with exit code 2 and says why', async (args, message) => {
  const result = await carrier(...args);
  expect(result.stderr).toMatch(message);
  expect(result.status).toBe(2);
});

test('restoapi-carrier simulate names the address it cannot reach and exits 3', async () => {
  const port = await freePort(); // nothing listens there
  const result = await carrier('simulate', '--base-url', `http://127.0.0.1:${port}`, '--port', '0');
  expect(result.stderr).toContain(
    `restoapi-carrier: cannot reach http://127.0.0.1:${port}/__mock/carriers (ECONNREFUSED)`,
  );
  expect(result.status).toBe(3);
});

test('restoapi-carrier simulate on a receiver port in use names it and the option, and registers nothing', async () => {
  world = await startWorld();
  const taken = await occupyPort();
  try {
    const result = await carrier('simulate', '--base-url', world.url, '--port', String(taken.port));
    expect(result.stderr).toContain(
      `restoapi-carrier: port ${taken.port} on 127.0.0.1 is already in use by another program; choose another with --port <port> (0 picks a free one)`,
    );
    expect(result.status).toBe(2);
    expect(world.mock.mock.exportState().carriers?.rows ?? []).toEqual([]);
  } finally {
    await taken.close();
  }
});

test('Ctrl-C mid-delivery: the simulator reports the order as problem to the service and counts it abandoned', async () => {
  world = await startWorld();
  const simulator = startCli([
    BIN_SOURCES['restoapi-carrier']!,
    'simulate',
    '--base-url',
    world.url,
    '--port',
    '0',
    '--speed',
    '1', // 1 km/h: still on its way when stopped
    '--tick',
    '50',
  ]);
  await simulator.waitFor(/waiting for orders/);
  const order = await placeOrder(world);
  await simulator.waitFor(new RegExp(`^${order.number} .* delivering `));
  const deliveryOf = () => world!.mock.mock.exportState().orders!.rows.find((row) => row.id === order.id)!.delivery;
  await eventually(() => deliveryOf().status === 'delivering', 5000, 'the service to show the delivery under way');

  const result = await simulator.stop('SIGINT');
  expect(result.status).toBe(0);
  expect(deliveryOf()).toMatchObject({ status: 'problem', message: ABANDONED_MESSAGE });
  expect(result.stdout).toContain(`${order.number}  abandoned: reported to the service as problem`);
  expect(result.stdout).toMatch(
    /simulator stopped: 1 orders, 0 delivered, 0 cancelled, 0 failed, 1 abandoned, 0 problems;/,
  );
  expect(world.mock.mock.exportState().carriers?.rows ?? []).toEqual([]);
}, 30_000);

test('restoapi-carrier simulate --mock-session works in that session of the mock only, end to end', async () => {
  world = await startWorld({ mockSession: 'carrier-e2e' });
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
    '--mock-session',
    'carrier-e2e',
  ]);
  try {
    await simulator.waitFor(/waiting for orders/);
    const session = world.mock.mock.session('carrier-e2e');
    expect(session.exportState().carriers?.rows).toHaveLength(1);
    expect(world.mock.mock.exportState().carriers?.rows ?? []).toEqual([]);

    // The session's callback names it, and the simulator's delivery updates come back into it.
    const order = await placeOrder(world);
    await simulator.waitFor(new RegExp(`^${order.number} .* delivered`));
    const inSession = () => session.exportState().orders!.rows.find((row) => row.id === order.id)!;
    await eventually(() => inSession().status === 'complete', 5000, 'the session to show the order complete');
    expect(inSession().delivery).toMatchObject({ status: 'delivered' });
    expect(world.mock.mock.exportState().orders!.rows.some((row) => row.id === order.id)).toBe(false);
  } finally {
    expect((await simulator.stop('SIGINT')).status).toBe(0);
  }
  expect(world.mock.mock.session('carrier-e2e').exportState().carriers?.rows).toEqual([]);
}, 30_000);
