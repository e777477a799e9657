import {
  createIndependentService,
  type IndependentServiceOptions,
} from '../../../scripts/testing/independent-service.js';
import { runContractSuite, type RunOptions, type SuiteResult } from '../../src/index.js';
import { MOCK_CONFIG } from '../helpers.js';

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
