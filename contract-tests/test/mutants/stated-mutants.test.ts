import { describe, expect, test } from 'vitest';
import { selectionFailures } from './run-mutant.js';
import { sampledCases, sampledRuns } from '../../../scripts/testing/test-mode.js';
import { CLAUSES } from '../../src/generated/clauses.js';
import { STATED_MUTANTS, endpointMutants, fieldMutants } from './stated-mutants.js';

// The field mutants (a stated field with a JSON type it never has): a sample in npm test, all in the full run.
const FIELDS = fieldMutants(CLAUSES.map((clause) => clause.id));
const step = Math.max(1, Math.floor(FIELDS.length / sampledRuns(6, FIELDS.length)));
const SAMPLE = FIELDS.filter((_, index) => index % step === 0);
// The endpoint mutants (a stated endpoint missing): two in npm test, all in the full run.
const ENDPOINTS = endpointMutants(CLAUSES.filter((clause) => !clause.notShown).map((clause) => clause.id));
const ENDPOINT_SAMPLE = sampledCases(ENDPOINTS, 2);

// Each faulty service that breaks a stated clause fails under `spec`, the failure naming no decision: a
// decision marker covers only what was decided (issue 36). Its selection passes on the correct mock.
describe('the spec profile kills every mutant of a stated clause', () => {
  test(`the field mutants: ${SAMPLE.length} of ${FIELDS.length} in this run (every one in npm run test:all)`, () => {
    expect(SAMPLE.length).toBeGreaterThan(0);
  });
  test(`the endpoint mutants: ${ENDPOINT_SAMPLE.length} of ${ENDPOINTS.length} in this run (every one in npm run test:all)`, () => {
    expect(ENDPOINTS.length).toBeGreaterThan(30);
  });
  for (const mutant of [...STATED_MUTANTS, ...SAMPLE, ...ENDPOINT_SAMPLE]) {
    test(`${mutant.id}: ${mutant.description}`, async () => {
      for (const faulty of [false, true]) {
        const failed = await selectionFailures(mutant, faulty);
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
