import {
  createIndependentService,
  type IndependentServiceOptions,
} from '../../../scripts/testing/independent-service.js';
import { runContractSuite, type RunOptions, type SuiteResult } from '../../src/index.js';
import { MOCK_CONFIG } from '../helpers.js';

/**
 * Sequences per stateful machine in a departure's probe: the machine's tour alone (every write, then every view).
 * A second, random sequence made no departure fail otherwise (the same failures, naming the same decisions, in
 * runs of every hand-made and generated departure with two) and cost about a fifth of their time; the whole
 * harness's runs (independent-service.test.ts, and every generated departure at once) run the machines' 20
 * sequences against every departure at once.
 */
export const PROBE_STATEFUL_RUNS = 1;

/**
 * Runs the suite's tests of `operations` (a departure's probe) against a fresh independent service, under one
 * profile, with a fixed seed; the service is closed after. With `ids`, only those tests of them run. `more`: other
 * options of the run (its stateful runs, say).
 * @example const spec = await probeRun({ departures: [], families: ['other-error:Conflict'] }, ['setOrderStatus'], 'spec');
 */
export async function probeRun(
  service: IndependentServiceOptions,
  operations: readonly string[],
  profile: 'spec' | 'full',
  ids?: readonly string[],
  more: Partial<RunOptions> = {},
): Promise<SuiteResult> {
  const independent = createIndependentService(service);
  try {
    return await runContractSuite({
      baseUrl: 'http://independent.local',
      fetch: independent.fetch,
      config: MOCK_CONFIG,
      profile,
      seed: 23,
      selection: ids ? { ids: [...ids] } : { operations: [...operations] },
      ...more,
    });
  } finally {
    await independent.close();
  }
}
