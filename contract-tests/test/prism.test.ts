import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { runContractSuite, type ContractConfig } from '../src/index.js';

// Prism serves the bundled document as a static mock: the schema-only selection
// must pass against it (the suite is implementation-agnostic), while the
// behaviour checks fail (a static mock keeps no state).
const prismBin = createRequire(import.meta.url).resolve('@stoplight/prism-cli/dist/index.js');
const documentPath = fileURLToPath(new URL('../../openapi/generated/openapi.yaml', import.meta.url));
const config = JSON.parse(readFileSync(new URL('../config/prism.json', import.meta.url), 'utf8')) as ContractConfig;
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
    const timer = setTimeout(() => reject(new Error(`Prism did not start:\n${output}`)), 40_000);
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
}, 60_000);

afterAll(() => {
  prism?.kill();
});

test('the schema-only selection passes against Prism serving openapi/ (the carrier API at its root)', async () => {
  const result = await runContractSuite({
    baseUrl,
    carrierBaseUrl: baseUrl,
    config,
    profile: 'spec',
    selection: 'schema-only',
    seed: 5,
  });
  const failed = result.results.filter((r) => r.status === 'failed').map((r) => `${r.id}: ${r.failure}`);
  expect(failed).toEqual([]);
  // Only the callbacks need something a static mock cannot do (a control API to register a carrier).
  expect(result.results.filter((r) => r.status === 'skipped').map((r) => r.id)).toEqual(['schema.callbacks']);
  expect(result.summary.passed).toBeGreaterThanOrEqual(45);
}, 120_000);

test('the behaviour checks report what a static mock fails', async () => {
  const result = await runContractSuite({
    baseUrl,
    carrierBaseUrl: baseUrl,
    config,
    profile: 'spec',
    selection: 'behaviour',
    seed: 5,
  });
  const failed = result.results.filter((r) => r.status === 'failed');
  console.log(
    `Prism (static mock), spec behaviour checks: ${result.summary.passed} passed, ${failed.length} failed, ${result.summary.skipped} skipped\n` +
      failed.map((r) => `  ✘ ${r.id}: ${(r.failure ?? '').split('\n')[0]!.slice(0, 160)}`).join('\n'),
  );
  // A static mock keeps no state: a deleted token still works, updates are not stored, imports are never busy.
  expect(failed.map((r) => r.id)).toEqual(
    expect.arrayContaining(['session.lifecycle', 'organization.update-editable-fields', 'imports.menu-one-at-a-time']),
  );
}, 180_000);
