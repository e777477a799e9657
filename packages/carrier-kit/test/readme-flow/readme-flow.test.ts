/**
 * The simulator flow of this package's README, run as written: `npm start -- --no-carrier`, then
 * `npx restoapi-carrier simulate …`. Only the ports change (the demo on a free port instead of 4010,
 * the receiver on any free port instead of 4020), so the test runs beside a demo already running.
 */
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import {
  ROOT,
  freePort,
  localArgv,
  shellCommands,
  startCli,
  type RunningCli,
} from '../../../../scripts/testing/run-cli.js';

const running: RunningCli[] = [];
afterEach(async () => {
  for (const program of running.splice(0).reverse()) await program.stop('SIGTERM');
});

test("the README's simulator flow: the developer's carrier gets the demo storefront's orders", async () => {
  const [demo, simulate] = shellCommands(
    path.join(ROOT, 'packages/carrier-kit/README.md'),
    'restoapi-carrier simulate',
  );
  expect(demo).toMatch(/^npm start -- --no-carrier\s+#/);
  expect(simulate).toBe(
    'npx restoapi-carrier simulate --base-url http://127.0.0.1:4010 --port 4020 --speed 40 --problem-rate 0.3 --chaos',
  );
  const port = String(await freePort());
  const mock = startCli([...localArgv(demo!), '--port', port]);
  running.push(mock);
  await mock.waitFor(/^RestoAPI mock listening on /, 60_000);

  const carrier = startCli(localArgv(simulate!.replaceAll('4010', port).replace('--port 4020', '--port 0')));
  running.push(carrier);
  await carrier.waitFor(/^carrier \d+ registered at .* with chaos .*; waiting for orders \(speed 40 km\/h\)$/);
  // The storefront places an order 3 s after the start and then every 45 s: this carrier takes one of them (the
  // second when the carrier registered after the first was placed, on a busy machine).
  const [, number] = await carrier.waitFor(/^([A-Z]{2}-\d+) .* assigning courier/, 90_000);
  await mock.waitFor(new RegExp(`^\\[storefront\\] placed ${number} `));
  expect(carrier.lines.join('\n')).not.toMatch(/warning: carrier/);

  const stopped = await carrier.stop('SIGINT');
  expect(stopped.status).toBe(0);
  expect(stopped.stdout).toMatch(/simulator stopped: [1-9]\d* orders,/);
  expect((await mock.stop('SIGINT')).status).toBe(0);
}, 150_000);
