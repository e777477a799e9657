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

/**
 * The cases of a table test (`test.each`) that `npm test` runs: `sample` of them, spread evenly over the table
 * (the first always among them); the full run runs them all. The others are reported as skipped in `npm test`,
 * their titles ending with "(full run only: <why>)", so each case still shows in the report.
 * @example sampledEach(badInvocations, 4, 'one process start each; a sample covers the parsing')('%s is refused', body)
 */
export function sampledEach<T extends readonly unknown[]>(
  cases: readonly T[],
  sample: number,
  why: string,
): (title: string, body: (...args: T) => unknown, timeout?: number) => void {
  const picked = new Set(evenly(cases.length, sample));
  const inDefault = cases.filter((_, i) => picked.has(i));
  const fullOnly = cases.filter((_, i) => !picked.has(i));
  // test.each spreads each case into the body's arguments, as the signature above says.
  type Each = (rows: readonly T[]) => (title: string, body: (...args: T) => unknown, timeout?: number) => void;
  const each = (on: { each: unknown }, rows: readonly T[]) => (on.each as Each)(rows);
  return (title, body, timeout) => {
    if (inDefault.length) each(test, inDefault)(title, body, timeout);
    if (fullOnly.length) each(test.skipIf(!FULL_RUN), fullOnly)(`${title} (full run only: ${why})`, body, timeout);
  };
}

/**
 * The items a loop inside one test goes through: `sample` of them, spread evenly (the first always among them),
 * in `npm test`; all of them in the full run. For a loop whose every turn starts a process or a server.
 * @example for (const bad of sampledCases(['0/2', '3/2', 'two'], 2)) { ... }
 */
export function sampledCases<T>(items: readonly T[], sample: number): T[] {
  return FULL_RUN ? [...items] : spread(items, sample);
}

/**
 * `sample` of the items, spread evenly (the first always among them), in both runs: the sample `sampledCases` takes
 * in `npm test`, for a check that the full run makes another way (all the items at once, say).
 * @example for (const mutant of spread(FAMILY, 1)) test(`${mutant.id} alone`, ...)
 */
export function spread<T>(items: readonly T[], sample: number): T[] {
  return evenly(items.length, sample).map((i) => items[i]!);
}

/** `sample` indexes out of `0 … length-1`, spread evenly, the first among them (all of them when sample ≥ length). */
function evenly(length: number, sample: number): number[] {
  const count = Math.max(1, Math.min(sample, length));
  return Array.from({ length: count }, (_, i) => Math.floor((i * length) / count));
}
