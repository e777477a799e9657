import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createApiValidator } from '@restoapi/openapi';

// Prism serves the bundled document as a static mock: a check that the
// description is usable by standard tooling, not only by ours.
const api = createApiValidator();
const prismBin = createRequire(import.meta.url).resolve('@stoplight/prism-cli/dist/index.js');
const documentPath = fileURLToPath(new URL('../generated/openapi.yaml', import.meta.url));
let prism: ChildProcess;
let baseUrl: string;

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

beforeAll(async () => {
  const port = await freePort();
  baseUrl = `http://127.0.0.1:${port}`;
  prism = spawn(process.execPath, [prismBin, 'mock', documentPath, '--host', '127.0.0.1', '--port', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Prism did not start:\n${output}`)), 30_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (output.includes('Prism is listening')) {
        clearTimeout(timer);
        resolve();
      }
    };
    prism.stdout?.on('data', onData);
    prism.stderr?.on('data', onData);
    prism.on('exit', (code) => reject(new Error(`Prism exited with ${code}:\n${output}`)));
  });
  prism.removeAllListeners('exit');
  // Prism logs an error line for every operation it cannot serve; there must be none.
  expect(output).not.toMatch(/\[(CLI|HTTP SERVER)\][^\n]*(error|fatal)/i);
}, 40_000);

afterAll(() => {
  prism?.kill();
});

const auth = { Authorization: 'Token token="demo"' };

async function call(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; contentType: string | null; body: unknown }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...auth, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const contentType = response.headers.get('content-type');
  return {
    status: response.status,
    contentType,
    body: contentType?.includes('json') ? await response.json() : await response.text(),
  };
}

test.each([
  ['getOrder', 'GET', '/api/orders/5001'],
  ['listOrders', 'GET', '/api/orders'],
  ['getOrganization', 'GET', '/api/organizations/1'],
  ['listDraftDishes', 'GET', '/api/draft_dishes'],
  ['getDeliveryZone', 'GET', '/api/delivery_zones/101'],
  ['getCarrierOrder', 'GET', '/orders/c9f3b2a4e1d84f0b9a7c6e5d4f3a2b1c'],
])('Prism answers %s with a documented example', async (operationId, method, path) => {
  const response = await call(method, path);
  expect(response.status).toBe(200);
  expect(api.validateResponse(operationId, response)).toEqual({ valid: true, value: undefined });
});

test('Prism refuses a request without a token as the document says', async () => {
  const response = await fetch(`${baseUrl}/api/orders/5001`);
  expect(response.status).toBe(401);
});
