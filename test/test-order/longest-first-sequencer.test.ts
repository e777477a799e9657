import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import type { TestSpecification, Vitest } from 'vitest/node';
import LongestFirstSequencer, { recordedDurations } from '../../scripts/testing/longest-first-sequencer.js';

const root = fileURLToPath(new URL('../..', import.meta.url));

/** A vitest context as the sequencer reads it: `cached` holds vitest's own timings (ms) of the last run. */
function sequencer(cached: Record<string, number> = {}): LongestFirstSequencer {
  const ctx = {
    config: { root },
    cache: {
      getFileTestResults: (key: string) => {
        const ms = cached[key.replace(/^:/, '')];
        return ms === undefined ? undefined : { duration: ms, failed: false };
      },
      getFileStats: () => ({ size: 1 }),
    },
  };
  return new LongestFirstSequencer(ctx as unknown as Vitest);
}

const spec = (file: string): TestSpecification =>
  ({
    moduleId: path.join(root, file),
    project: { name: '', config: { sequence: { groupOrder: 0 }, isolate: false } },
  }) as unknown as TestSpecification;

const files = (specs: TestSpecification[]): string[] => specs.map((s) => path.relative(root, s.moduleId));

test('without timings of its own, a fresh clone starts the files the recorded run found longest first', async () => {
  // The table of this run's mode (the full run's in `npm run test:all`).
  const recorded = recordedDurations()[process.env.RESTOAPI_TEST_FULL === '1' ? 'full' : 'default'];
  const [longest, second] = Object.keys(recorded);
  const sorted = await sequencer().sort([spec('docs/src/unknown.test.ts'), spec(second!), spec(longest!)]);
  expect(files(sorted)).toEqual([longest, second, 'docs/src/unknown.test.ts']);
});

test("vitest's own timings of the last run come before the recorded ones", async () => {
  const [longest, second] = Object.keys(recordedDurations().default);
  const sorted = await sequencer({ [second!]: 10_000_000 }).sort([spec(longest!), spec(second!)]);
  expect(files(sorted)).toEqual([second, longest]);
});

test('every file of the recorded durations exists: a renamed file must take its weight along', () => {
  const { default: fast, full } = recordedDurations();
  const missing = [...Object.keys(fast), ...Object.keys(full)].filter((file) => !existsSync(path.join(root, file)));
  expect(missing).toEqual([]);
});
