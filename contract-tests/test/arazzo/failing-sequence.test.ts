import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, test } from 'vitest';
import { createMock } from '@restoapi/mock-server';
import { runContractSuite } from '../../src/index.js';
import { MOCK_CONFIG } from '../helpers.js';
import { SEQUENCE_MUTANTS, type Mutant } from '../mutants/mutants.js';
import { STALE_VIEW_MUTANTS } from '../mutants/stale-view-mutants.js';
import { respect } from './respect.js';
import { serveHandle } from './serve-handle.js';

/**
 * One mutant per stateful machine, each killed by that machine (seed 3, the default runs: its tour kills it). Both
 * runs export and replay all six (issue 36: `npm test` replays a sequence of each machine).
 */
const BY_MACHINE: [string, Mutant][] = [
  ['stateful.sessions', SEQUENCE_MUTANTS.find((m) => m.id === 'token-dies-after-second-use')!],
  ['stateful.orders', STALE_VIEW_MUTANTS.find((m) => m.id === 'carrier-view-contact-stale-after-second-update')!],
  ['stateful.records', STALE_VIEW_MUTANTS.find((m) => m.id === 'restaurant-sideload-stale-after-second-update')!],
  ['stateful.menu', STALE_VIEW_MUTANTS.find((m) => m.id === 'category-dish-ids-stale-after-second-update')!],
  ['stateful.zones', STALE_VIEW_MUTANTS.find((m) => m.id === 'zone-terms-stale-by-id-after-second-update')!],
  ['stateful.imports', STALE_VIEW_MUTANTS.find((m) => m.id === 'client-filter-stale-after-new-order')!],
];

const dirs: string[] = [];
const results: string[] = [];
afterAll(async () => {
  for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  console.log(`exported sequences replayed in Respect:\n${results.join('\n')}`);
});

/** The mutant (or the correct mock) served over HTTP, as a real service would be. */
async function serve(mutant: Mutant | undefined): Promise<{ url: string; close(): Promise<void> }> {
  const mock = createMock();
  const server = await serveHandle(mutant ? mutant.wrap(mock.handle) : mock.handle);
  return {
    url: server.url,
    async close() {
      await server.close();
      mock.close();
    },
  };
}

interface Step {
  stepId: string;
  successCriteria: { condition: string; type?: string }[];
}

for (const [machine, mutant] of BY_MACHINE) {
  const title = `--arazzo: the failing sequence of ${machine} under ${mutant.id} fails in Respect on the faulty service at its last step, on the expected value, and passes on the correct mock`;
  test(
    title,
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'arazzo-'));
      dirs.push(dir);
      const target = await serve(mutant);
      let failure: string;
      try {
        const result = await runContractSuite({
          baseUrl: target.url,
          // Shrinking over HTTP on a busy machine takes longer than the default test budget.
          config: { ...MOCK_CONFIG, timeouts: { ...MOCK_CONFIG.timeouts, testMs: 240_000 } },
          profile: 'full',
          selection: { ids: [machine] },
          seed: 3,
          stateful: { arazzo: dir },
        });
        failure = result.results[0]!.failure ?? '';
      } finally {
        await target.close();
      }
      console.log(`${machine} under ${mutant.id}:\n${failure}`);
      expect(failure).toMatch(/^a sequence of \d+ commands breaks the model/);
      const file = /as an Arazzo workflow: (\S+)/.exec(failure)![1]!;
      expect(file).toBe(join(dir, `${machine}.arazzo.json`));
      const workflow = JSON.parse(await readFile(file, 'utf8'));
      // The documents are beside the workflow: the directory replays on any machine.
      expect(workflow.sourceDescriptions.map((s: { url: string }) => s.url)).toEqual([
        './openapi.yaml',
        './control.yaml',
      ]);
      const steps = workflow.workflows[0].steps as Step[];
      expect(steps[0]!.stepId).toMatch(/resetMock$|^reset$/);
      const last = steps.at(-1)!;
      expect(last.stepId).toMatch(/^failing_/);
      // The model's expectation is a criterion of the last step: a value, or the status the model expected.
      const expectations = last.successCriteria.filter((c) => c.type || !/^\$statusCode == \d+$/.test(c.condition));
      const statusOnly = /answered \d{3}, expected/.test(failure.split('✘ at step')[1] ?? '');
      expect(statusOnly ? last.successCriteria.length : expectations.length).toBeGreaterThan(0);

      const again = await serve(mutant);
      let onFaulty: Awaited<ReturnType<typeof respect>>;
      try {
        onFaulty = await respect([file], ['restoapi', 'mock'], again.url);
      } finally {
        await again.close();
      }
      const fixed = await serve(undefined);
      let onCorrect: Awaited<ReturnType<typeof respect>>;
      try {
        onCorrect = await respect([file], ['restoapi', 'mock'], fixed.url);
      } finally {
        await fixed.close();
      }
      results.push(
        `${machine} (${mutant.id}, ${steps.length} steps): faulty ${onFaulty.summary.filter((l) => l.startsWith('Steps')).join(' ')}; correct ${onCorrect.summary.filter((l) => l.startsWith('Steps')).join(' ')}`,
      );
      expect(onFaulty.exitCode).not.toBe(0);
      expect(onFaulty.steps.filter((s) => !s.passed).map((s) => s.stepId)).toEqual([last.stepId]);
      expect(onFaulty.steps).toHaveLength(steps.length);
      const failedChecks = onFaulty.steps.at(-1)!.failedChecks;
      if (!statusOnly)
        expect(
          failedChecks.some((c) => !/^\$statusCode/.test(c)),
          failedChecks.join('; '),
        ).toBe(true);
      expect(
        onCorrect.steps.filter((s) => !s.passed),
        onCorrect.output.slice(-3000),
      ).toEqual([]);
      expect(onCorrect.exitCode).toBe(0);
    },
    300_000,
  );
}
