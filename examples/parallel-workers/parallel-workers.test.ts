/**
 * Runs the example as a user would (`npm run parallel-workers`): its own vitest run, one mock server
 * started in globalSetup, three workers at once, each in its own session.
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import type { SessionInfo } from '@restoapi/mock-server';

const root = fileURLToPath(new URL('../../', import.meta.url));

test('parallel workers against one HTTP mock each get their own session and pass side by side', async () => {
  const report = path.join(await mkdtemp(path.join(tmpdir(), 'parallel-workers-')), 'sessions.json');
  const run = await promisify(execFile)(
    process.execPath,
    [
      path.join(root, 'node_modules/vitest/vitest.mjs'),
      'run',
      '--config',
      'examples/parallel-workers/vitest.config.ts',
      '--reporter=verbose',
    ],
    { cwd: root, env: { ...process.env, PARALLEL_WORKERS_REPORT: report, NO_COLOR: '1' } },
  ).catch((error: { stdout?: string; stderr?: string }) => {
    throw new Error(`the example's run failed:\n${error.stdout ?? ''}\n${error.stderr ?? ''}`);
  });
  expect(run.stdout).toMatch(/Tests\s+3 passed \(3\)/);

  const sessions = JSON.parse(await readFile(report, 'utf8')) as SessionInfo[];
  const workers = sessions.filter((session) => session.name.startsWith('worker-'));
  expect(workers.length).toBeGreaterThanOrEqual(2);
  // Nobody touched the default session: it still holds the demo seed as the server started it.
  const demo = sessions.find((session) => session.name === 'default')!;
  expect(demo.last_used_at).toBe(demo.created_at);
}, 120_000);
