import { afterAll, describe, expect, test } from 'vitest';
import { createMock } from '@restoapi/mock-server';
import { runContractSuite } from '../../src/index.js';
import { IN_PROCESS_URL, MOCK_CONFIG, fetchOf } from '../helpers.js';
import { MUTANTS, SEQUENCE_MUTANTS } from './mutants.js';

// Which mutants the `spec` profile still kills, each with its own selection (the spec-tagged tests of it).
// A measurement, not part of `npm test`: RESTOAPI_SPEC_MUTANTS=1 npx vitest run contract-tests/test/mutants/spec-mutants.test.ts
const killed: string[] = [];
const survived: string[] = [];

describe.runIf(process.env.RESTOAPI_SPEC_MUTANTS)('mutants under the spec profile', () => {
  for (const mutant of [...MUTANTS, ...SEQUENCE_MUTANTS]) {
    test(`mutant ${mutant.id} under spec`, async () => {
      const mock = createMock();
      const result = await runContractSuite({
        baseUrl: IN_PROCESS_URL,
        fetch: fetchOf(mutant.wrap(mock.handle)),
        config: MOCK_CONFIG,
        profile: 'spec',
        selection: mutant.selection,
        seed: 3,
      });
      mock.close();
      expect(result.summary.total, `no spec test in the selection of ${mutant.id}`).toBeGreaterThan(0);
      (result.summary.failed > 0 ? killed : survived).push(mutant.id);
    }, 120_000);
  }
});

afterAll(() => {
  if (!process.env.RESTOAPI_SPEC_MUTANTS) return;
  console.log(
    `spec profile: mutants killed ${killed.length}/${MUTANTS.length + SEQUENCE_MUTANTS.length}: ${killed.join(', ')}\nsurvived: ${survived.join(', ') || 'none'}`,
  );
});
