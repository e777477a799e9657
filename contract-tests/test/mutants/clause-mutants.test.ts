import { describe, expect, test } from 'vitest';
import { selectionFailures } from './run-mutant.js';
import { sampledCases } from '../../../scripts/testing/test-mode.js';
import { CLAUSES } from '../../src/generated/clauses.js';
import { RULE_MUTANTS, configuratorMutants, importFieldMutants, missingFieldMutants } from './clause-mutants.js';
import type { StatedMutant } from './stated-mutants.js';

const IDS = CLAUSES.filter((clause) => !clause.notShown).map((clause) => clause.id);
// Each family: a sample in npm test (spread over it, the first among them), every mutant in npm run test:all.
const FAMILIES: [string, StatedMutant[], number][] = [
  ['rule', RULE_MUTANTS, 3],
  ['import-field', importFieldMutants(IDS), 2],
  ['configurator', configuratorMutants(IDS), 1],
  ['missing-field', missingFieldMutants(IDS), 1],
];

/** The verdicts of a mutant's own tests under `spec`, against the correct mock or behind the mutant. */
const run = (mutant: StatedMutant, faulty: boolean) =>
  selectionFailures(mutant, faulty, { outboundPolicy: { photos: { mode: 'any', allowHosts: [] } } });

// Issue 36: each stated clause with a checkable rule has a mutant, and `spec` kills it with the tests that read
// what the clause states (the mutant's selection), the failure naming no decision.
test('the selections of the mutants in this run pass on the correct mock', async () => {
  const picked = FAMILIES.flatMap(([, mutants, sample]) => sampledCases(mutants, sample));
  const selections = new Map(picked.map((m) => [JSON.stringify(m.selection), m]));
  for (const mutant of selections.values())
    expect((await run(mutant, false)).map((r) => `${r.id}: ${r.failure}`)).toEqual([]);
}, 120_000);

describe.each(FAMILIES)('the spec profile kills the %s mutants', (family, mutants, sample) => {
  const picked = sampledCases(mutants, sample);
  test(`${picked.length} of ${mutants.length} ${family} mutants in this run (every one in npm run test:all)`, () => {
    expect(mutants.length).toBeGreaterThan(0);
  });
  for (const mutant of picked)
    test(`${mutant.id}: ${mutant.description}`, async () => {
      const killed = await run(mutant, true);
      expect(killed.length, `${mutant.id} survived spec`).toBeGreaterThan(0);
      for (const r of killed) expect(r.failure).not.toMatch(/breaks the decision/);
    }, 60_000);
});
