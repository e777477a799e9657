/**
 * The order in which vitest starts the test files: the longest first, so no long file starts last and runs on
 * alone while the other worker idles (longest-processing-time scheduling). Vitest orders by the durations of its
 * last run on this machine, but a fresh clone (every CI run) has none, and vitest then starts the largest files
 * first: in a full run from a fresh clone, stated-mutants.test.ts (small, slow) started last and ran 46 s alone
 * at the end. Without timings of its own, this sequencer reads the durations of a measured run from
 * file-durations.json (`default` or `full`, the mode of this run); a file missing from both counts as short.
 */
import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/** Seconds per file (relative to the repository), as recorded for each mode. */
export type FileDurations = Record<'default' | 'full', Record<string, number>>;

/** A file that is in no table: vitest's own files take a few seconds at most. */
const UNKNOWN_SECONDS = 1;

/** The recorded durations (scripts/testing/file-durations.json). */
export function recordedDurations(): FileDurations {
  return JSON.parse(readFileSync(new URL('./file-durations.json', import.meta.url), 'utf8')) as FileDurations;
}

/** Vitest's sequencer, with the recorded durations where vitest's cache has none. */
export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    // test-mode.ts's FULL_RUN, read here without importing vitest's test API into the main process.
    const recorded = recordedDurations()[process.env.RESTOAPI_TEST_FULL === '1' ? 'full' : 'default'];
    const seconds = (spec: TestSpecification): number => {
      const key = `${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId)}`;
      const cached = this.ctx.cache.getFileTestResults(key);
      if (cached) return cached.duration / 1000;
      return recorded[relative(this.ctx.config.root, spec.moduleId).replaceAll('\\', '/')] ?? UNKNOWN_SECONDS;
    };
    const known = await super.sort(files);
    // A stable sort: among files of equal weight, vitest's order (failed first, then larger files) stands.
    return known
      .map((spec, index) => ({ spec, index, weight: seconds(spec) }))
      .sort((a, b) => b.weight - a.weight || a.index - b.index)
      .map(({ spec }) => spec);
  }
}
