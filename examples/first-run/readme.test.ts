import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createMockServer, type MockServer } from '@restoapi/mock-server/node';

const root = fileURLToPath(new URL('../..', import.meta.url));
let server: MockServer;
beforeAll(async () => {
  server = await createMockServer({ port: 0, config: { importDurationMs: 300 } });
});
afterAll(() => server.close());

test('the SDK sample of the root README runs as written against the mock', async () => {
  const readme = await readFile(path.join(root, 'README.md'), 'utf8');
  const sample = /## The SDK in 15 lines\n\n```ts\n([\s\S]*?)```/.exec(readme)![1]!;
  expect(sample.trim().split('\n').length).toBeLessThanOrEqual(20);
  const dir = await mkdtemp(path.join(root, 'examples/first-run/.readme-'));
  const file = path.join(dir, 'sample.mts');
  await writeFile(file, sample.replace('http://127.0.0.1:4010', server.url));
  try {
    // Asynchronous: the mock answers from this process while the sample runs in another.
    const run = await promisify(execFile)(process.execPath, ['--import', 'tsx', file], { cwd: root, timeout: 60_000 });
    expect(run.stderr).not.toMatch(/Error/);
    expect(run.stdout).toMatch(/confirmed PP-5002: 23\.80/);
    expect(run.stdout).toContain('menu import 100%');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}, 60_000);
