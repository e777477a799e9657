import { afterAll, describe, expect, test } from 'vitest';
import { createMock } from '@restoapi/mock-server';
import { runContractSuite } from '../../src/index.js';
import { IN_PROCESS_URL, MOCK_CONFIG, fetchOf } from '../helpers.js';
import { MUTANTS } from './mutants.js';

const killed: string[] = [];
const survived: string[] = [];

describe('every mutant of the mock is caught by the suite', () => {
  test("the issue's ten examples are among the mutants", () => {
    expect(MUTANTS.length).toBeGreaterThanOrEqual(10);
  });
  for (const mutant of MUTANTS) {
    test(`mutant ${mutant.id}: ${mutant.description}`, async () => {
      const pristine = createMock();
      const baseline = await runContractSuite({
        baseUrl: IN_PROCESS_URL,
        fetch: pristine.fetch,
        config: MOCK_CONFIG,
        profile: 'full',
        selection: mutant.selection,
        seed: 3,
      });
      pristine.close();
      expect(baseline.summary.total, 'the selection names no test').toBeGreaterThan(0);
      expect(
        baseline.results.filter((r) => r.status !== 'passed').map((r) => `${r.id}: ${r.failure ?? r.skipReason}`),
        'the selection must pass on the correct mock',
      ).toEqual([]);
      const mock = createMock();
      const result = await runContractSuite({
        baseUrl: IN_PROCESS_URL,
        fetch: fetchOf(mutant.wrap(mock.handle)),
        config: MOCK_CONFIG,
        profile: 'full',
        selection: mutant.selection,
        seed: 3,
      });
      mock.close();
      (result.summary.failed > 0 ? killed : survived).push(mutant.id);
      expect(result.summary.failed, `mutant ${mutant.id} survived`).toBeGreaterThan(0);
    }, 60_000);
  }
});

afterAll(() => {
  console.log(
    `mutants killed: ${killed.length}/${MUTANTS.length} (${((100 * killed.length) / MUTANTS.length).toFixed(0)} %)${survived.length ? `; survived: ${survived.join(', ')}` : ''}`,
  );
});
