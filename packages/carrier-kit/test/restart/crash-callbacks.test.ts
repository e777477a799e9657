/**
 * Durable before acknowledged: a carrier process (the agent on the file store) is killed with SIGKILL at
 * random points of its callback handling, again and again on the same files. The property: every order whose
 * `order_created` the carrier acknowledged is taken (its courier assigned on the service) once the carrier
 * runs again. `npm test` makes 10 kills, the full run 100.
 *
 * The old default can be measured with the same harness: `CARRIER_CRASH_ACK=immediate npx vitest run
 * packages/carrier-kit/test/restart/crash-callbacks.test.ts` (it fails, printing what was lost).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { bundleScript } from '../../../../scripts/bundling.js';
import { sampledRuns } from '../../../../scripts/testing/test-mode.js';
import { eventually, placeOrder, registerCarrier, startWorld, type World } from '../support/world.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../../../..');
const KILLS_PER_RUN = 5;

let world: World;
let carrierScript: string;
const children = new Set<ChildProcess>();
const dirs: string[] = [];

beforeAll(async () => {
  // Bundled once: a start of plain node on one file costs a fraction of a start through tsx.
  const dir = await mkdtemp(path.join(tmpdir(), 'carrier-crash-bundle-'));
  dirs.push(dir);
  carrierScript = path.join(dir, 'carrier.mjs');
  // The module itself is the entry: the package's `sideEffects: false` would let an import of it be dropped.
  const source = await readFile(path.join(here, 'receiver-process.ts'), 'utf8');
  await writeFile(carrierScript, await bundleScript(source, here, 'node'));
  world = await startWorld();
  // Orders get their secure_id once handed to a carrier; the mock's own callbacks go nowhere, the test sends them.
  await registerCarrier(world, 'http://127.0.0.1:9/nowhere');
});
afterAll(async () => {
  for (const child of children) child.kill('SIGKILL');
  await world.close();
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** Starts the carrier on the outbox file; resolves with the process and its callback URL once it listens. */
async function startCarrier(outboxFile: string): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [carrierScript], {
    cwd: root,
    env: {
      ...process.env,
      BASE_URL: world.url,
      OUTBOX_FILE: outboxFile,
      ACK: process.env.CARRIER_CRASH_ACK ?? 'recorded',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  child.once('exit', () => children.delete(child));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.startsWith('READY ')) resolve(line.slice(6));
    });
    child.once('exit', (code) => reject(new Error(`the carrier exited (${code}) before it was ready`)));
  });
  return { child, url };
}

/** What the service does: POST the order_created callback; true when the carrier acknowledged it (2xx). */
async function sendCreated(url: string, order: { id: number }): Promise<boolean> {
  const secureId = world.mock.mock.runtime.state.orders.get(order.id)!.secure_id!;
  const query = new URLSearchParams({ type: 'order_created', order_id: String(order.id), order_secure_id: secureId });
  try {
    return (await fetch(`${url}?${query}`, { method: 'POST' })).ok;
  } catch {
    return false; // the connection died with the process: not acknowledged
  }
}

const deliveryOf = (orderId: number) => world.mock.mock.exportState().orders!.rows.find((row) => row.id === orderId)!;

const totals = { kills: 0, acknowledged: 0, taken: 0, lost: 0 };
afterAll(() => {
  console.log(
    `crash property (${process.env.CARRIER_CRASH_ACK ?? 'recorded'}): ${totals.kills} kills, ` +
      `${totals.acknowledged} orders acknowledged, ${totals.taken} taken, ${totals.lost} lost`,
  );
});

test(`SIGKILL at random points of callback handling (${sampledRuns(2, 20) * KILLS_PER_RUN} kills): no acknowledged order is lost`, async () => {
  let orderIndex = 0;
  await fc.assert(
    fc.asyncProperty(
      fc.array(
        fc.record({
          // Callbacks in flight when the kill comes, and when it comes after the first answer (ms).
          callbacks: fc.integer({ min: 1, max: 4 }),
          killAfterMs: fc.integer({ min: 0, max: 25 }),
        }),
        { minLength: KILLS_PER_RUN, maxLength: KILLS_PER_RUN },
      ),
      async (plans) => {
        const dir = await mkdtemp(path.join(tmpdir(), 'carrier-crash-'));
        dirs.push(dir);
        const outboxFile = path.join(dir, 'outbox.json');
        const acknowledged: number[] = [];
        for (const plan of plans) {
          const { child, url } = await startCarrier(outboxFile);
          const exited = new Promise((resolve) => child.once('exit', resolve));
          const orders = [];
          for (let i = 0; i < plan.callbacks; i++) orders.push(await placeOrder(world, orderIndex++));
          let killed = false;
          const kill = (): void => {
            if (killed) return;
            killed = true;
            setTimeout(() => child.kill('SIGKILL'), plan.killAfterMs);
          };
          await Promise.all(
            orders.map(async (order) => {
              const acked = await sendCreated(url, order);
              if (acked) acknowledged.push(order.id);
              kill();
            }),
          );
          kill();
          await exited;
          totals.kills += 1;
        }
        // The carrier runs again on the same files and finishes what it acknowledged.
        const { child } = await startCarrier(outboxFile);
        const taken = (id: number): boolean => deliveryOf(id).delivery?.status === 'courier_assigned';
        await eventually(() => acknowledged.every(taken), 10_000, 'every acknowledged order taken').catch(
          () => undefined,
        );
        child.kill('SIGKILL');
        const lost = acknowledged.filter((id) => !taken(id));
        totals.acknowledged += acknowledged.length;
        totals.taken += acknowledged.length - lost.length;
        totals.lost += lost.length;
        expect(lost, `acknowledged but never taken: orders ${lost.join(', ')}`).toEqual([]);
      },
    ),
    { numRuns: sampledRuns(2, 20), endOnFailure: true },
  );
}, 600_000);
