#!/usr/bin/env node
// `npm run test:profile`: the 20 slowest test files of the last vitest run (reports/vitest.json, which the vitest
// step of `npm test` writes), from vitest's own per-file start and end times. Also written to reports/slowest.txt
// by every run of that step. Another report: `node scripts/test-profile.mjs path/to/vitest.json [count]`.
// `--save-durations [default|full]` records the files' durations in scripts/testing/file-durations.json, the order a
// fresh clone starts them in (scripts/testing/longest-first-sequencer.ts); the mode is the last run's by default.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The files of a vitest JSON report, the longest first (then by name): path relative to the repository, wall time
 * (its tests, hooks and imports, as vitest measured them) and test counts.
 */
function fileTimes(reportFile) {
  const report = JSON.parse(readFileSync(reportFile, 'utf8'));
  const files = report.testResults.map((file) => {
    const counts = { passed: 0, failed: 0, skipped: 0 };
    for (const test of file.assertionResults) {
      if (test.status === 'passed') counts.passed += 1;
      else if (test.status === 'failed') counts.failed += 1;
      else counts.skipped += 1;
    }
    return { name: path.relative(process.cwd(), file.name), ms: (file.endTime ?? 0) - (file.startTime ?? 0), counts };
  });
  files.sort((a, b) => b.ms - a.ms || a.name.localeCompare(b.name));
  return { report, files };
}

/**
 * The `count` slowest files of a vitest JSON report as lines of text: wall time of the file (its tests, hooks and
 * imports, as vitest measured them), its test counts and its path relative to the repository.
 */
export function slowestFiles(reportFile = 'reports/vitest.json', count = 20) {
  const { report, files } = fileTimes(reportFile);
  const total = files.reduce((sum, file) => sum + file.ms, 0);
  const lines = files.slice(0, count).map((file, i) => {
    const { passed, failed, skipped } = file.counts;
    const tally = [`${passed} passed`, failed && `${failed} failed`, skipped && `${skipped} skipped`].filter(Boolean);
    return `${String(i + 1).padStart(2)}. ${(file.ms / 1000).toFixed(1).padStart(7)}s  ${file.name} (${tally.join(', ')})`;
  });
  const when = new Date(report.startTime ?? Date.now()).toISOString();
  return [
    `The ${Math.min(count, files.length)} slowest of ${files.length} test files (vitest run of ${when}; ${(total / 1000).toFixed(0)}s summed over all files, 2 workers)`,
    ...lines,
  ].join('\n');
}

/** Writes reports/slowest.txt from reports/vitest.json; the vitest step of scripts/test-all.mjs calls it. */
export function writeSlowest() {
  writeFileSync('reports/slowest.txt', `${slowestFiles()}\n`);
}

/** Seconds per file of a vitest JSON report, the longest first; files under a second are left out (their order
 * does not matter). */
export function fileSeconds(reportFile = 'reports/vitest.json') {
  const files = fileTimes(reportFile).files.filter((file) => file.ms >= 1000);
  return Object.fromEntries(files.map((file) => [file.name, Math.round(file.ms / 100) / 10]));
}

const DURATIONS = 'scripts/testing/file-durations.json';

const runAsScript = process.argv[1] && fileURLToPath(import.meta.url) === path.resolve(process.argv[1]);
if (runAsScript && process.argv[2] === '--save-durations') {
  const steps = existsSync('reports/steps.txt') ? readFileSync('reports/steps.txt', 'utf8') : '';
  const mode = process.argv[3] ?? (/, full run\)/.test(steps) ? 'full' : 'default');
  if (!['default', 'full'].includes(mode) || !existsSync('reports/vitest.json')) {
    console.error('usage: after a vitest run, node scripts/test-profile.mjs --save-durations [default|full]');
    process.exit(2);
  }
  const table = JSON.parse(readFileSync(DURATIONS, 'utf8'));
  table[mode] = fileSeconds();
  writeFileSync(DURATIONS, `${JSON.stringify(table, null, 2)}\n`);
  console.log(`${DURATIONS}: the ${mode} run's durations of ${Object.keys(table[mode]).length} files recorded`);
} else if (runAsScript) {
  const [file = 'reports/vitest.json', count = '20'] = process.argv.slice(2);
  if (!existsSync(file)) {
    console.error(`${file} does not exist: run the vitest step first (node scripts/test-all.mjs vitest)`);
    process.exit(1);
  }
  console.log(slowestFiles(file, Number(count)));
  if (existsSync('reports/steps.txt')) console.log(`\n${readFileSync('reports/steps.txt', 'utf8').trim()}`);
}
