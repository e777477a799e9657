import { createMock } from '@restoapi/mock-server';
import { expect, test } from 'vitest';
import { runContractSuite, type RunOptions, type SuiteResult } from '../../src/index.js';
import { IN_PROCESS_URL, MOCK_CONFIG, fetchOf } from '../helpers.js';
import { fullRunOnly, spread } from '../../../scripts/testing/test-mode.js';
import type { Mutant } from './mutants.js';

/** Runs the full profile (seed 3) against a fresh mock behind the mutant, with these options. */
export async function runAgainst(mutant: Mutant, options: Partial<RunOptions>): Promise<SuiteResult> {
  const mock = createMock();
  try {
    return await runContractSuite({
      baseUrl: IN_PROCESS_URL,
      fetch: fetchOf(mutant.wrap(mock.handle)),
      config: MOCK_CONFIG,
      profile: 'full',
      seed: 3,
      ...options,
    });
  } finally {
    mock.close();
  }
}

/**
 * The failed tests of a mutant's own selection under `spec` (seed 3), against a fresh mock made with `mockOptions`:
 * behind the mutant when `faulty`, else the correct mock (which must pass them).
 */
export async function selectionFailures(
  mutant: Mutant,
  faulty: boolean,
  mockOptions: Parameters<typeof createMock>[0] = {},
): Promise<SuiteResult['results']> {
  if (faulty) return selectionRun(mutant, true, mockOptions);
  // The correct mock's answer depends on the selection, not on the mutant: mutants of one operation share it
  // (163 stated mutants have 49 selections), so it runs once per selection and options.
  const key = JSON.stringify([mutant.selection, mockOptions]);
  let passing = correctRuns.get(key);
  if (!passing) correctRuns.set(key, (passing = selectionRun(mutant, false, mockOptions)));
  return passing;
}

/** The correct mock's failures by selection and mock options (JSON), shared by the mutants of a worker's files. */
const correctRuns = new Map<string, Promise<SuiteResult['results']>>();

async function selectionRun(
  mutant: Mutant,
  faulty: boolean,
  mockOptions: Parameters<typeof createMock>[0],
): Promise<SuiteResult['results']> {
  const mock = createMock(mockOptions);
  try {
    const result = await runContractSuite({
      baseUrl: IN_PROCESS_URL,
      fetch: faulty ? fetchOf(mutant.wrap(mock.handle)) : mock.fetch,
      config: MOCK_CONFIG,
      profile: 'spec',
      selection: mutant.selection,
      seed: 3,
    });
    return result.results.filter((r) => r.status === 'failed');
  } finally {
    mock.close();
  }
}

/** Every test but the stateful ones: a sequence-only fault must slip through all of them. */
export const FIXED_KINDS: Partial<RunOptions> = {
  selection: { kinds: ['conformance', 'behaviour', 'decision', 'negative'] },
};

/** The failures of a run, one line each (empty when everything passed). */
export function notPassed(result: SuiteResult): string[] {
  return result.results.filter((r) => r.status !== 'passed').map((r) => `${r.id}: ${r.failure ?? r.skipReason}`);
}

/**
 * Several mutants at once, each wrapping the next: one run of the fixed tests sees every fault (none repairs
 * another's), where a run per mutant would repeat the same tests for each.
 */
export function stacked(mutants: readonly Mutant[]): Mutant {
  return {
    id: mutants.map((m) => m.id).join('+'),
    description: `${mutants.length} mutants at once`,
    selection: 'all',
    wrap: (handle) => mutants.reduceRight((inner, mutant) => mutant.wrap(inner), handle),
  };
}

/**
 * The proof that a family's faults are sequence-only: the whole fixed suite passes against them. `npm test` runs it
 * against `sample` mutants of the family alone (spread over it), about 5 s of CPU each. The full run adds one run
 * against every mutant of the family at once ({@link stacked}): a mutant only ever answers older or wrong state,
 * none repairs what another breaks, so a fixed test that saw one fault fails against the stack too. One run instead
 * of one per mutant; when the stack fails, each mutant is run alone to name the ones the fixed tests see.
 */
export function fixedTestsPass(family: string, mutants: readonly Mutant[], sample: number, timeout: number): void {
  const picked = spread(mutants, sample);
  for (const mutant of picked)
    test(
      `${family} mutant ${mutant.id}: the fixed tests pass (a sequence-only fault)`,
      async () => {
        const fixed = await runAgainst(mutant, FIXED_KINDS);
        expect(notPassed(fixed), 'the fixed tests must not see a sequence-only fault').toEqual([]);
      },
      timeout,
    );
  fullRunOnly(
    `${family}: the fixed tests pass against all ${mutants.length} mutants at once (each fault is sequence-only)`,
    `the whole fixed suite through every mutant of the family; npm test proves ${picked.map((m) => m.id).join(', ')} alone`,
  )(() => fixedTestsPassStacked(mutants), timeout * 4);
}

/**
 * Asserts that the whole fixed suite passes against all the mutants at once ({@link stacked}); when it does not,
 * runs each mutant alone to name the ones the fixed tests see.
 */
export async function fixedTestsPassStacked(mutants: readonly Mutant[]): Promise<void> {
  const fixed = await runAgainst(stacked(mutants), FIXED_KINDS);
  if (notPassed(fixed).length === 0) return;
  const seen: string[] = [];
  for (const mutant of mutants) {
    const alone = notPassed(await runAgainst(mutant, FIXED_KINDS));
    if (alone.length) seen.push(`${mutant.id}: ${alone.join('; ')}`);
  }
  expect(seen, 'the fixed tests must not see a sequence-only fault').toEqual([]);
  expect(notPassed(fixed), 'the fixed tests fail only against the mutants stacked').toEqual([]);
}

/**
 * The test of one mutant's kill: in `npm test` for one mutant per stateful test that kills the family (the last of
 * each in the family's list), so every machine still kills one; in the full run for every mutant. The others are
 * reported as skipped in `npm test`, "(full run only: …)".
 */
export function killTest(
  family: readonly Mutant[],
  mutant: Mutant,
): (title: string, body: () => Promise<void>, timeout: number) => void {
  const last = family.filter((m) => m.killedBy === mutant.killedBy).at(-1);
  if (last === mutant) return (title, body, timeout) => test(title, body, timeout);
  return (title, body, timeout) =>
    fullRunOnly(title, `npm test kills the last mutant of the family that ${mutant.killedBy} kills`)(body, timeout);
}
