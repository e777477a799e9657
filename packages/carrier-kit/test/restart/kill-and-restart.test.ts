import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import { createCarrierAgent, type CarrierAgent, type OutboxSnapshot } from '../../src/index.js';
import { createFileOutboxStore } from '../../src/node.js';
import {
  eventually,
  expectOk,
  mainOrder,
  placeOrder,
  registerCarrier,
  startWorld,
  type World,
} from '../support/world.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../../..');

let world: World | undefined;
let child: ChildProcess | undefined;
let agent: CarrierAgent | undefined;
let dir: string | undefined;

afterEach(async () => {
  child?.kill('SIGKILL');
  await agent?.stop();
  await world?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

function startChild(env: Record<string, string>): { process: ChildProcess; line: () => Promise<string> } {
  const proc = spawn(process.execPath, ['--import', 'tsx', path.join(here, 'carrier-process.ts')], {
    cwd: root,
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const reader = createInterface({ input: proc.stdout! });
  const queue: string[] = [];
  const waiters: ((line: string) => void)[] = [];
  reader.on('line', (line) => {
    const waiter = waiters.shift();
    if (waiter) waiter(line);
    else queue.push(line);
  });
  return {
    process: proc,
    line: () => (queue.length > 0 ? Promise.resolve(queue.shift()!) : new Promise((resolve) => waiters.push(resolve))),
  };
}

test('the carrier process killed mid-delivery and restarted: the outbox delivers what was pending', async () => {
  world = await startWorld();
  dir = await mkdtemp(path.join(tmpdir(), 'carrier-kit-'));
  const outboxFile = path.join(dir, 'outbox.json');
  // No receiver is needed here: the test hands the secure_id to the process directly.
  await registerCarrier(world, 'http://127.0.0.1:9/nowhere');
  const order = await placeOrder(world);
  await expectOk(
    world.admin.PUT('/api/orders/{id}', { params: { path: { id: order.id } }, body: { order: { courier_id: 501 } } }),
  );
  const secureId = world.mock.mock.runtime.state.orders.get(order.id)!.secure_id!;

  const started = startChild({ BASE_URL: world.url, SECURE_ID: secureId, OUTBOX_FILE: outboxFile });
  child = started.process;
  expect(await started.line()).toBe('READY');
  expect((await mainOrder(world, order.id)).order.status).toBe('delivery');

  // The service stops taking delivery updates, the courier drives on and hands the order over.
  await expectOk(
    world.control.POST('/__mock/faults', {
      body: { method: 'PUT', path: '/api-delivery/orders/*/delivery', status: 503, count: 10_000 },
    }),
  );
  child.stdin!.write('GO\n');
  const queued = await started.line();
  expect(queued).toMatch(/^QUEUED \d+$/);
  // Mid-delivery, the process dies without any chance to clean up.
  child.kill('SIGKILL');
  await new Promise((resolve) => child!.once('exit', resolve));
  const onDisk = JSON.parse(await readFile(outboxFile, 'utf8')) as OutboxSnapshot;
  const pendingAtKill = onDisk.entries.length;
  expect((await mainOrder(world, order.id)).order.status).toBe('delivery');

  // The service recovers and the carrier restarts on the same outbox file.
  await expectOk(world.control.DELETE('/__mock/faults'));
  agent = createCarrierAgent({ baseUrl: world.url, outboxStore: createFileOutboxStore(outboxFile) });
  await agent.start();
  await agent.outbox.drained();
  await eventually(
    async () => (await mainOrder(world!, order.id)).order.status === 'complete',
    5000,
    'the order to be complete',
  );

  const main = await mainOrder(world, order.id);
  const delivered = agent.outbox.stats.sent;
  console.log(
    `killed mid-delivery: updates pending in the outbox file at the kill: ${pendingAtKill} (${onDisk.entries.map((e) => (e.kind === 'status' ? `status ${e.patch.status}` : 'position')).join(', ')}), ` +
      `sent after the restart: ${delivered}, lost: ${pendingAtKill - delivered}`,
  );
  expect(pendingAtKill).toBeGreaterThan(0);
  expect(delivered).toBe(pendingAtKill);
  expect(main.order.status).toBe('complete');
  expect(main.couriers.find((c) => c.id === 501)?.last_known_position).toMatchObject({ lat: 52.4978, lon: 13.4298 });
  const carrierView = await agent.api.getOrder(secureId);
  expect(carrierView.delivery).toMatchObject({
    status: 'delivered',
    message: 'Handed over to Jonas Becker.',
    courier_name: 'Tom Richter',
  });
  expect(JSON.parse(await readFile(outboxFile, 'utf8')).entries).toEqual([]);
}, 30_000);
