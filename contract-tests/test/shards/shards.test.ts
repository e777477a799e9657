import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createMock } from '@restoapi/mock-server';
import { createMockServer, type MockServer } from '@restoapi/mock-server/node';
import { mergeResults, runContractSuite, selectTests, shardOf, type SuiteResult } from '../../src/index.js';
import { runCli } from '../../../scripts/testing/run-cli.js';
import { sampledCases } from '../../../scripts/testing/test-mode.js';
import { IN_PROCESS_URL, MOCK_CONFIG } from '../helpers.js';

const cli = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
const config = fileURLToPath(new URL('../../config/mock.json', import.meta.url));
let server: MockServer;

beforeAll(async () => {
  server = await createMockServer({ port: 0 });
});
afterAll(() => server.close());

/** Runs the CLI in a child process (asynchronously: the mock server answers from this process). */
const run = (args: string[]) => runCli([cli, ...args]);

test('the shards of a selection are disjoint, deterministic and together the whole selection', () => {
  const all = selectTests('full', 'all').map((t) => t.id);
  const shards = [1, 2, 3].map((index) => shardOf(selectTests('full', 'all'), { index, total: 3 }).map((t) => t.id));
  expect(shards.flat().sort()).toEqual([...all].sort());
  expect(new Set(shards.flat()).size).toBe(all.length);
  expect(shardOf(selectTests('full', 'all'), { index: 2, total: 3 }).map((t) => t.id)).toEqual(shards[1]);
  for (const shard of shards) expect(Math.abs(shard.length - all.length / 3)).toBeLessThanOrEqual(1);
});

test('merging the shards of a run gives the result of the whole run: every test once, coverage summed', async () => {
  const results: SuiteResult[] = [];
  for (const index of [1, 2]) {
    const mock = createMock();
    results.push(
      await runContractSuite({
        baseUrl: IN_PROCESS_URL,
        fetch: mock.fetch,
        config: MOCK_CONFIG,
        profile: 'full',
        selection: { ids: ['session.*', 'zones.*', 'schema.getOrder'] },
        seed: 9,
        shard: { index, total: 2 },
      }),
    );
    mock.close();
  }
  const merged = mergeResults(results);
  const ids = selectTests('full', { ids: ['session.*', 'zones.*', 'schema.getOrder'] }).map((t) => t.id);
  expect(merged.results.map((r) => r.id)).toEqual(ids);
  expect(merged.summary).toEqual({ ...merged.summary, total: ids.length, passed: ids.length, failed: 0 });
  expect(merged.ok).toBe(true);
  expect(merged.shard).toBeUndefined();
  const calls = (r: SuiteResult): number => r.operations.find((o) => o.operationId === 'createSession')!.calls;
  expect(calls(merged)).toBe(calls(results[0]!) + calls(results[1]!));
  expect(merged.clauses.find((c) => c.id === 'Endpoints > Session: DELETE /api/session')!.state).toBe('covered');
  expect(() => mergeResults([results[0]!, results[0]!])).toThrow(/is in two results .* the shards overlap/);
  expect(() => mergeResults([results[0]!, { ...results[1]!, seed: 10 }])).toThrow(/different runs: seed 9 and 10/);
}, 60_000);

test('restoapi-contract --shard k/n runs a share, and restoapi-contract merge DIR... writes one report', async () => {
  const base = mkdtempSync(path.join(tmpdir(), 'restoapi-shards-'));
  const args = ['--base-url', server.url, '--config', config, '--grep', 'session.*', '--seed', '4'];
  const dirs = [path.join(base, 'shard-1'), path.join(base, 'shard-2')];
  // One after the other: both shards reset the same mock through its control API.
  const one = await run([...args, '--shard', '1/2', '--report', dirs[0]!]);
  const two = await run([...args, '--shard', '2/2', '--report', dirs[1]!]);
  expect(one!.stdout).toMatch(/seed 4, shard 1\/2/);
  expect([one!.status, two!.status]).toEqual([0, 0]);
  const merged = path.join(base, 'merged');
  const result = await run(['merge', ...dirs, '--report', merged]);
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  expect(result.stdout).toContain('RESULT: PASS');
  expect(result.stdout).toContain(`merged 2 results; reports written to ${merged}`);
  const whole = JSON.parse(readFileSync(path.join(merged, 'result.json'), 'utf8')) as SuiteResult;
  expect(whole.results.map((r) => r.id)).toEqual(selectTests('spec', { ids: ['session.*'] }).map((t) => t.id));
  expect(readFileSync(path.join(merged, 'junit.xml'), 'utf8')).toContain('session.lifecycle');
  expect(readFileSync(path.join(merged, 'traceability.html'), 'utf8')).toContain('session.lifecycle');
}, 120_000);

test('bad shard specs and bad merges are bad invocations (exit 2) that name the option or the file', async () => {
  const args = ['--base-url', server.url, '--config', config];
  // A process start each: two of the five in npm test, all of them in the full run.
  for (const bad of sampledCases(['0/2', '3/2', 'two', '1/0', '1-2'], 2)) {
    const result = await run([...args, '--shard', bad]);
    expect(result.status, bad).toBe(2);
    expect(result.stderr).toMatch(/--shard/);
  }
  const empty = mkdtempSync(path.join(tmpdir(), 'restoapi-merge-'));
  const missing = await run(['merge', empty]);
  expect(missing.status).toBe(2);
  expect(missing.stderr).toContain(`cannot read ${path.join(empty, 'result.json')}: ENOENT`);
  writeFileSync(path.join(empty, 'result.json'), '{"hello":1}');
  const foreign = await run(['merge', empty]);
  expect(foreign.status).toBe(2);
  expect(foreign.stderr).toMatch(/is not a result.json of restoapi-contract/);
  expect((await run(['merge'])).status).toBe(2);
}, 120_000);
