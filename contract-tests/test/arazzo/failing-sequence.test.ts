import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { createMock } from '@restoapi/mock-server';
import { runContractSuite } from '../../src/index.js';
import { MOCK_CONFIG } from '../helpers.js';
import { STALE_VIEW_MUTANTS } from '../mutants/stale-view-mutants.js';
import { respect } from './respect.js';
import { serveHandle } from './serve-handle.js';

const mutant = STALE_VIEW_MUTANTS.find((m) => m.id === 'organization-list-stale-after-second-update')!;
const dirs: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
});

/** The mutant (or the correct mock) served over HTTP, as a real service would be. */
async function serve(faulty: boolean): Promise<{ url: string; close(): Promise<void> }> {
  const mock = createMock();
  const server = await serveHandle(faulty ? mutant.wrap(mock.handle) : mock.handle);
  return {
    url: server.url,
    async close() {
      await server.close();
      mock.close();
    },
  };
}

test('--arazzo writes a failing sequence as an Arazzo workflow; redocly respect replays it and fails at the same step, and passes on the correct mock', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'arazzo-'));
  dirs.push(dir);
  const target = await serve(true);
  let failure: string;
  try {
    const result = await runContractSuite({
      baseUrl: target.url,
      config: MOCK_CONFIG,
      profile: 'full',
      selection: { ids: [mutant.killedBy!] },
      seed: 3,
      stateful: { arazzo: dir },
    });
    failure = result.results[0]!.failure!;
  } finally {
    await target.close();
  }
  expect(failure).toMatch(/^a sequence of \d+ commands breaks the model/);
  const file = /as an Arazzo workflow: (\S+)/.exec(failure)![1]!;
  expect(file).toBe(join(dir, 'stateful.records.arazzo.json'));
  const workflow = JSON.parse(await readFile(file, 'utf8'));
  expect(workflow.arazzo).toBe('1.0.1');
  const steps = workflow.workflows[0].steps as { stepId: string; successCriteria: { condition: string }[] }[];
  expect(steps[0]!.stepId).toBe('reset');
  const last = steps.at(-1)!;
  // The last step is the list read whose answer broke the model, with the value the model expected in it.
  expect(last.stepId).toBe('failing_listOrganizations');
  expect(last.successCriteria.map((c) => c.condition)).toEqual([
    '$statusCode == 200',
    expect.stringMatching(/^(\$response\.body#\/organizations\/\d+\/.+ == '.+'|\$\.\.\[\?@ == ".+"\])$/),
  ]);
  console.log(`the workflow of the failing sequence: ${steps.length} steps, the last ${last.stepId}`);

  // A fresh copy of the same faulty service: Respect fails at the same step, and only there.
  const again = await serve(true);
  try {
    const run = await respect([file], ['restoapi', 'mock'], again.url);
    console.log(run.summary.join('\n'));
    expect(run.exitCode).not.toBe(0);
    expect(run.steps.filter((s) => !s.passed).map((s) => s.stepId)).toEqual([last.stepId]);
    expect(run.steps).toHaveLength(steps.length);
  } finally {
    await again.close();
  }
  // The correct mock passes the same workflow: the reproducer is about the fault, not about the run.
  const fixed = await serve(false);
  try {
    const run = await respect([file], ['restoapi', 'mock'], fixed.url);
    expect(run.steps.filter((s) => !s.passed)).toEqual([]);
    expect(run.exitCode).toBe(0);
  } finally {
    await fixed.close();
  }
}, 180_000);
