/**
 * The two test runs: `npm test` (the fast default, every kind of check at least once) and `npm run test:all`
 * (`RESTOAPI_TEST_FULL=1`: the long parts whole). A test that is shortened or left out of the default says so in
 * its title, so nothing is skipped silently; the README lists what only the full run does.
 */
import { test } from 'vitest';

/** True in the full run (`npm run test:all`, which sets `RESTOAPI_TEST_FULL=1`). */
export const FULL_RUN = process.env.RESTOAPI_TEST_FULL === '1';

/**
 * How many cases a property-based or loop test makes: a sample in `npm test`, all of them in the full run.
 * @example fc.assert(property, { numRuns: sampledRuns(20, 100), seed: 7 })
 */
export function sampledRuns(sample: number, full: number): number {
  return FULL_RUN ? full : sample;
}

/**
 * A test that runs only in the full run. In `npm test` it is reported as skipped, its title ending with
 * "(full run only: <why>)", so the report shows what was left out and why.
 * @example fullRunOnly('crash loop, 100 kills', 'about 3 minutes')(async () => { ... }, 600_000)
 */
export function fullRunOnly(title: string, why: string): (body: () => unknown, timeout?: number) => void {
  return (body, timeout) => test.skipIf(!FULL_RUN)(`${title} (full run only: ${why})`, body, timeout);
}
