/**
 * The simulator's chaos run, side by side against the mock and against the independent implementation whose
 * delivery updates answer 204 without body (scripts/testing, every departure on). Prints one line per service.
 * Run: `npx tsx --tsconfig tsconfig.json packages/carrier-kit/test/simulator/chaos-run.ts [orders]` (default 12).
 */
import { runSimulator } from '../../src/node.js';
import { advanceMock, mainOrder, placeOrder, SERVICES, startWorld } from '../support/world.js';

const count = Number(process.argv[2] ?? 12);
for (const service of SERVICES) {
  const started = Date.now();
  const world = await startWorld({ service });
  const simulator = await runSimulator({
    baseUrl: world.url,
    port: 0,
    speedKmh: 5000,
    tickMs: 40,
    minIntervalMs: 100,
    problemRate: 0.3,
    problemPauseMs: 100,
    chaos: true,
    seed: 1,
    output: { write: () => undefined },
    tty: false,
  });
  // Chaos delays callbacks on the mock's virtual clock: let it run.
  const ticking = setInterval(() => void advanceMock(world, 500).catch(() => undefined), 50);
  const orders = [];
  for (let i = 0; i < count; i++) orders.push(await placeOrder(world, i));
  const phases = await Promise.all(orders.map((order) => simulator.finished(order.id)));
  let complete = 0;
  for (const order of orders) if ((await mainOrder(world, order.id)).order.status === 'complete') complete++;
  await simulator.agent.idle();
  const stats = simulator.agent.outbox.stats;
  console.log(
    `${service}: ${phases.filter((phase) => phase === 'delivered').length} of ${count} orders delivered, ` +
      `${complete} complete on the main API; delivery updates sent ${stats.sent}, retried ${stats.retried}, ` +
      `failed ${stats.failed}, rejected ${stats.rejected}; ${Date.now() - started} ms`,
  );
  clearInterval(ticking);
  await simulator.stop();
  await world.close();
}
