/**
 * The carrier kit's fetch receiver on edge runtimes: the same app (./receiver-app.ts) served by workerd
 * (the Workers runtime), by Bun and by Deno. The mock, over loopback, signs and sends a real callback; the
 * receiver verifies it, processes it and acknowledges it; a forged copy is refused.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, test } from 'vitest';
import { signWebhook } from '../../src/index.js';
import { bundleScript } from '../../../../scripts/bundling.js';
import {
  bunBinary,
  denoBinary,
  runtimeTestsRun,
  scratchDir,
  startScript,
  startWorkerd,
  workerdBinary,
} from '../../../../scripts/testing/runtimes.js';
import { callbacks, eventually, placeOrder, registerCarrier, startWorld, type World } from '../support/world.js';
import type { ReceiverReport } from './receiver-app.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

const WORKER_ENTRY = `
import { createReceiverApp } from './receiver-app.ts';
export default { fetch: createReceiverApp(${JSON.stringify(SECRET)}) };
`;
const BUN_ENTRY = `
import { createReceiverApp } from './receiver-app.ts';
const server = Bun.serve({ hostname: '127.0.0.1', port: 0, fetch: createReceiverApp(${JSON.stringify(SECRET)}) });
console.log('listening on ' + server.url.origin);
`;

const DENO_ENTRY = `
import { createReceiverApp } from './receiver-app.ts';
Deno.serve(
  { hostname: '127.0.0.1', port: 0, onListen: ({ port }) => console.log('listening on http://127.0.0.1:' + port) },
  createReceiverApp(${JSON.stringify(SECRET)}),
);
`;

let world: World;
beforeEach(async () => {
  world = await startWorld();
});
afterEach(() => world.close());

/** The mock signs a callback to the app at `appUrl`; the app must verify, process and acknowledge it. */
async function signedCallbackRoundTrip(appUrl: string): Promise<void> {
  // The mock signs with its virtual clock (a Friday evening); the receiver checks the timestamp against it.
  expect((await fetch(`${appUrl}/clock?now=${world.mock.mock.runtime.clock.nowMs()}`)).status).toBe(204);
  const carrierId = await registerCarrier(world, `${appUrl}/callbacks`, { secret: SECRET });
  const order = await placeOrder(world);
  await eventually(
    async () => ((await callbacks(world, { carrier_id: carrierId }))[0]?.attempts.length ?? 0) > 0,
    10_000,
    'the signed callback to be answered',
  );
  const [sent] = await callbacks(world, { carrier_id: carrierId });
  // 200 after processing (`ack: 'after-processing'`), so the mock's first attempt is the only one.
  expect(sent!.attempts).toMatchObject([{ status: 200, outcome: 'delivered' }]);
  expect(sent!.state).toBe('delivered');

  // A forged copy: the same query, a signature made with another key.
  const query = new URLSearchParams(sent!.query).toString();
  const timestamp = String(Math.floor(world.mock.mock.runtime.clock.nowMs() / 1000));
  const forged = await fetch(`${appUrl}/callbacks?${query}`, {
    method: 'POST',
    headers: {
      'webhook-id': sent!.webhook_id!,
      'webhook-timestamp': timestamp,
      'webhook-signature': await signWebhook(`whsec_${btoa('another key')}`, sent!.webhook_id!, timestamp, query),
    },
  });
  expect(forged.status).toBe(401);

  const report = (await (await fetch(`${appUrl}/stats`)).json()) as ReceiverReport;
  expect(report.events).toEqual([`order_created ${order.id}`]);
  expect(report.stats).toMatchObject({ accepted: 1, processed: 1, unauthorized: 1, failed: 0 });
}

const workerd = workerdBinary();
describe.skipIf(!runtimeTestsRun('workerd', workerd))('workerd', () => {
  test('a worker verifies the mock’s signed callback and acknowledges it; a forgery gets 401', async () => {
    const worker = await startWorkerd(await bundleScript(WORKER_ENTRY, here, 'workerd'));
    try {
      await signedCallbackRoundTrip(worker.url);
    } finally {
      await worker.stop();
    }
  }, 60_000);
});

/** Serves the app with a runtime's own server (`Bun.serve`, `Deno.serve`) from a bundle of `entry`. */
async function serveWith(
  runtime: string,
  entry: string,
  args: string[],
  run: (url: string) => Promise<void>,
): Promise<void> {
  const scratch = await scratchDir('carrier-receiver');
  const file = path.join(scratch.dir, 'receiver.mjs');
  await writeFile(file, await bundleScript(entry, here, 'browser'));
  const app = await startScript(runtime, [...args, file], /listening on http:\/\/\S+/);
  try {
    await run(/listening on (http:\/\/\S+)/.exec(app.output())![1]!);
  } finally {
    await app.stop();
    await scratch.remove();
  }
}

const bun = bunBinary();
describe.skipIf(!runtimeTestsRun('Bun', bun))('Bun', () => {
  test('Bun.serve verifies the mock’s signed callback and acknowledges it; a forgery gets 401', async () => {
    if (!('path' in bun)) throw new Error(bun.missing);
    await serveWith(bun.path, BUN_ENTRY, [], signedCallbackRoundTrip);
  }, 60_000);
});

const deno = denoBinary();
describe.skipIf(!runtimeTestsRun('Deno', deno))('Deno', () => {
  test('Deno.serve verifies the mock’s signed callback and acknowledges it; a forgery gets 401', async () => {
    if (!('path' in deno)) throw new Error(deno.missing);
    await serveWith(deno.path, DENO_ENTRY, ['run', '--quiet', '--allow-net=127.0.0.1'], signedCallbackRoundTrip);
  }, 60_000);
});
