/**
 * No answer makes a test throw (issue 36): in front of the in-process mock, one JSON answer of every test is
 * spoiled (a field dropped, a value of the wrong type, an empty body, `null`). Every test must then pass or fail
 * naming what it expected; none may end with a bare JavaScript error and its stack.
 */
import { expect, test } from 'vitest';
import { createMock } from '@restoapi/mock-server';
import { FULL_RUN, sampledRuns } from '../../../scripts/testing/test-mode.js';
import { runContractSuite, type ContractConfig } from '../../src/index.js';
import { IN_PROCESS_URL, MOCK_CONFIG } from '../helpers.js';
import { isCrash, isUncheckedRead, manglingFetch } from './mangle.js';

/** Spoiled answers can leave a test waiting for an import or a callback: short waits keep the sweep cheap. */
const CONFIG: ContractConfig = {
  ...MOCK_CONFIG,
  timeouts: { ...MOCK_CONFIG.timeouts, importMs: 2_000, callbackMs: 1_000 },
};

const SEEDS = Array.from({ length: sampledRuns(1, 4) }, (_, i) => i + 1);

for (const seed of SEEDS)
  test(`sweep ${seed}: with one answer per test spoiled, every failure names what the test expected${FULL_RUN ? '' : ' (the behaviour and conformance tests; every test, four sweeps, in the full run)'}`, async () => {
    const mock = createMock();
    try {
      const spoiling = manglingFetch(mock.fetch, seed);
      const result = await runContractSuite({
        baseUrl: IN_PROCESS_URL,
        fetch: spoiling.fetch,
        config: CONFIG,
        profile: 'full',
        seed: 3,
        reporters: [spoiling.reporter],
        stateful: { runs: 3 },
        ...(FULL_RUN ? {} : { selection: { kinds: ['conformance', 'behaviour', 'decision'] } }),
      });
      const failed = result.results.filter((r) => r.status === 'failed');
      const unchecked = failed.filter((r) => isUncheckedRead(r.failure));
      console.log(
        `sweep ${seed}: ${spoiling.spoiled.length} answers spoiled in ${result.summary.total} tests; ${failed.length} failed, ` +
          `${unchecked.length} of them by reading an answer without checking it first:\n  ` +
          unchecked.map((r) => `${r.id}: ${/stopped reading it: ([^\n]*)\)/.exec(r.failure!)?.[1]}`).join('\n  '),
      );
      // The sweep spoils something in most tests, and the suite notices.
      expect(spoiling.spoiled.length).toBeGreaterThan(result.summary.total / 2);
      expect(failed.length).toBeGreaterThan(result.summary.total / 4);
      expect(failed.filter((r) => isCrash(r.failure)).map((r) => `${r.id}: ${r.failure}`)).toEqual([]);
    } finally {
      mock.close();
    }
  }, 600_000);
