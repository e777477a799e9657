import { createMock } from '@restoapi/mock-server';
import { runContractSuite, type RunOptions, type SuiteResult } from '../../src/index.js';
import { IN_PROCESS_URL, MOCK_CONFIG, fetchOf } from '../helpers.js';
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
