/**
 * The crash run of issue 38, as a user would do it: `restoapi-carrier simulate` on its file outbox with chaos
 * callbacks against the mock, 12 storefront orders, SIGKILL half-way (right after the service saw an
 * `order_created` acknowledged), then a restart on the same outbox. Every order must be delivered.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { BIN_SOURCES, freePort, startCli, type RunningCli } from '../../../../scripts/testing/run-cli.js';
import { advanceMock, eventually, placeOrder, startWorld, type World } from '../support/world.js';

let world: World | undefined;
let running: RunningCli | undefined;
let dir: string | undefined;
let ticking: ReturnType<typeof setInterval> | undefined;

afterEach(async () => {
  clearInterval(ticking);
  await running?.stop('SIGKILL');
  await world?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const ORDERS = 12;

test(`simulate on a file outbox, SIGKILLed after an acknowledged order_created and restarted: ${ORDERS} of ${ORDERS} delivered`, async () => {
  world = await startWorld();
  dir = await mkdtemp(path.join(tmpdir(), 'carrier-crash-'));
  const port = await freePort();
  const simulate = (): RunningCli =>
    startCli([
      BIN_SOURCES['restoapi-carrier']!,
      'simulate',
      '--base-url',
      world!.url,
      '--port',
      String(port),
      '--outbox',
      path.join(dir!, 'outbox.json'),
      '--chaos',
      '--speed',
      '5000',
      '--tick',
      '40',
      '--min-interval',
      '100',
    ]);
  running = simulate();
  await running.waitFor(/waiting for orders/);
  // Chaos delays callbacks on the mock's virtual clock (1.5 s): let it run.
  ticking = setInterval(() => void advanceMock(world!, 1000).catch(() => undefined), 25);
  const state = () => world!.mock.mock.exportState();
  const acknowledged = (orderId: number): boolean =>
    (state().callbacks?.rows ?? []).some(
      (row) => row.order_id === orderId && row.type === 'order_created' && row.state === 'delivered',
    );
  const orders: { id: number }[] = [];
  for (let i = 0; i < ORDERS; i++) {
    orders.push(await placeOrder(world, i));
    if (i === ORDERS / 2 - 1) {
      // Half-way: the service has just seen this order's order_created acknowledged; the carrier dies now.
      const half = orders[i]!.id;
      await eventually(() => acknowledged(half), 10_000, `order ${half}'s order_created acknowledged`);
      running.child.kill('SIGKILL');
      await running.exited;
      running = simulate();
      await running.waitFor(/waiting for orders/);
    }
  }
  const complete = (): number =>
    orders.filter((order) => state().orders!.rows.find((row) => row.id === order.id)?.status === 'complete').length;
  await eventually(() => complete() === ORDERS, 20_000, 'every order complete').catch(() => undefined);
  const acked = orders.filter((order) => acknowledged(order.id)).length;
  console.log(
    `simulator crash run: ${complete()} of ${ORDERS} orders delivered; order_created acknowledged for ${acked}`,
  );
  const left = orders
    .map((order) => state().orders!.rows.find((row) => row.id === order.id)!)
    .filter((row) => row.status !== 'complete')
    .map((row) => `${row.id}: ${row.status}, delivery ${row.delivery?.status ?? 'none'}`);
  expect(left, running.lines.join('\n')).toEqual([]);
}, 60_000);
