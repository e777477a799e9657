/**
 * A callback URL's path is served: the simulator registers `--callback-url` (or `--public-url`) and its receiver
 * answers at that URL's path, whatever it is, a balancer's root included (issue 38: replicas served only
 * `/callbacks`, so every callback to `http://host:port/` went unanswered and nothing said why).
 */
import { afterEach, expect, test } from 'vitest';
import { freePort } from '../../../../scripts/testing/run-cli.js';
import { runSimulator, type RunningSimulator } from '../../src/node.js';
import { callbacks, placeOrder, startWorld, type World } from '../support/world.js';

let world: World | undefined;
let simulator: RunningSimulator | undefined;
afterEach(async () => {
  await simulator?.stop();
  simulator = undefined;
  await world?.close();
});

test.each([['/'], ['/hooks/restoapi']])(
  'the receiver serves the path of the callback URL it registers: %s',
  async (pathname) => {
    world = await startWorld();
    const port = await freePort();
    simulator = await runSimulator({
      baseUrl: world.url,
      port,
      publicUrl: `http://127.0.0.1:${port}${pathname}`,
      speedKmh: 5000,
      tickMs: 40,
      minIntervalMs: 0,
      output: { write: () => undefined },
      tty: false,
    });
    expect(simulator.served.url).toBe(`http://127.0.0.1:${port}${pathname}`);
    const order = await placeOrder(world);
    expect(await simulator.finished(order.id)).toBe('delivered');
    const sent = await callbacks(world, { order_id: order.id });
    expect(sent.find((callback) => callback.type === 'order_created')).toMatchObject({ state: 'delivered' });
    // Any other path is refused with a 404 that names the path served.
    const other = await fetch(`http://127.0.0.1:${port}/elsewhere?type=order_created`, { method: 'POST' });
    expect(other.status).toBe(404);
    expect(await other.text()).toContain(`Callbacks are received at ${pathname}.`);
  },
  30_000,
);
