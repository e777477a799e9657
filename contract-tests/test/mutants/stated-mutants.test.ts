import { describe, expect, test } from 'vitest';
import { createMock } from '@restoapi/mock-server';
import { runContractSuite } from '../../src/index.js';
import { IN_PROCESS_URL, MOCK_CONFIG, fetchOf } from '../helpers.js';
import { STATED_MUTANTS } from './stated-mutants.js';

// Each faulty service that breaks a stated clause fails under `spec`, the failure naming no decision: a
// decision marker covers only what was decided (issue 36). Its selection passes on the correct mock.
describe('the spec profile kills every mutant of a stated clause', () => {
  for (const mutant of STATED_MUTANTS) {
    test(`${mutant.id}: ${mutant.description}`, async () => {
      for (const faulty of [false, true]) {
        const mock = createMock();
        const result = await runContractSuite({
          baseUrl: IN_PROCESS_URL,
          fetch: faulty ? fetchOf(mutant.wrap(mock.handle)) : mock.fetch,
          config: MOCK_CONFIG,
          profile: 'spec',
          selection: mutant.selection,
          seed: 3,
        });
        mock.close();
        const failed = result.results.filter((r) => r.status === 'failed');
        if (!faulty) {
          expect(
            failed.map((r) => `${r.id}: ${r.failure}`),
            'the selection passes on the correct mock',
          ).toEqual([]);
          continue;
        }
        expect(failed.length, `${mutant.id} survived spec`).toBeGreaterThan(0);
        for (const r of failed) expect(r.failure).not.toMatch(/breaks the decision/);
      }
    }, 60_000);
  }
});
