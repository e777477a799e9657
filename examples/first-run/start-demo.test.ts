import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';

const launcher = fileURLToPath(new URL('../../scripts/start-demo.mjs', import.meta.url));
const root = fileURLToPath(new URL('../..', import.meta.url));

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

test('npm start brings up the mock with the demo seed, the carrier simulator and a storefront placing orders', async () => {
  const port = await freePort();
  const child = spawn(process.execPath, [launcher, '--port', String(port), '--order-every', '2'], {
    cwd: root,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  try {
    await expect
      .poll(() => output, { timeout: 45_000, interval: 200 })
      .toMatch(/\[carrier\] \S+-\d+ .*(assigning courier|picking up|delivering)/);
    const base = `http://127.0.0.1:${port}`;
    for (const line of [
      `${base}/api`,
      `${base}/__mock`,
      `${base}/docs/`,
      `${base}/console/`,
      'admin@pizza.demo',
      'dispatcher@demo',
      'courier2@pizza.demo',
    ]) {
      expect(output).toContain(line);
    }
    // The carrier took a storefront order: it holds a secure_id and a courier from the carrier. The line
    // above is printed when the carrier queues the courier's assignment, which reaches the mock a moment later.
    const courierAssigned = async (): Promise<boolean> => {
      const { orders } = (await (await fetch(`${base}/__mock/state`)).json()) as {
        orders: { rows: { secure_id: string | null; delivery: { courier_name: string | null } }[] };
      };
      return orders.rows.some((o) => o.secure_id && o.delivery.courier_name);
    };
    await expect.poll(courierAssigned, { timeout: 10_000, interval: 100 }).toBe(true);
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}, 90_000);
