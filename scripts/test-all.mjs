#!/usr/bin/env node
// `npm test` (the fast default) and `npm run test:all` (`--full`, which sets RESTOAPI_TEST_FULL=1: the long parts
// whole). Every check of every package; steps that do not depend on each other run side by side, two at a time
// (the CI machine has 2 cores), and each prints its time. Closes with a table of the steps' times and the
// "tests: N passed, N failed" line counted over the test cases; reports/slowest.txt lists the 20 slowest test files.
// `node scripts/test-all.mjs vitest` runs the steps whose name contains a word (their dependencies are not added).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { writeSlowest } from './test-profile.mjs';

const args = process.argv.slice(2);
const FULL = args.includes('--full') || process.env.RESTOAPI_TEST_FULL === '1';
// The children (vitest, the consumer check) read the mode from the environment (scripts/testing/test-mode.ts).
if (FULL) process.env.RESTOAPI_TEST_FULL = '1';
const only = args.filter((arg) => arg !== '--full');
// How many steps run at once: the cores of the CI machine. Vitest runs two workers of its own (vitest.config.ts), but
// its files wait on child processes and sockets much of the time, so a lint or a build beside it costs it little.
const JOBS = Number(process.env.RESTOAPI_TEST_JOBS ?? 2);

const GENERATED = 'generated files are fresh';
const BUILD = 'build + package checks';
/**
 * The steps, in the order a failure is cheapest to read. `after`: the steps that must have finished first (the
 * generator rewrites files every other step reads; the consumer packs the build). `live`: its output streams as it
 * comes; the others are printed whole when they finish, so two steps' lines never interleave.
 */
const steps = [
  // Runs the generator twice and compares (determinism); the other steps read what it writes.
  { name: GENERATED, command: 'node scripts/check-generated.mjs', after: [] },
  {
    name: 'vitest',
    command: 'npx vitest run --reporter=default --reporter=json --outputFile.json=reports/vitest.json',
    after: [GENERATED],
    live: true,
  },
  { name: 'API description lints clean', command: 'npm run lint:api -w @restoapi/openapi', after: [GENERATED] },
  { name: 'typecheck', command: 'npx tsc -p tsconfig.json', after: [GENERATED] },
  { name: 'eslint + prettier', command: 'npm run lint', after: [GENERATED] },
  { name: BUILD, command: 'node scripts/check-packages.mjs', after: [GENERATED] },
  // Packs the packages and uses them from a new project outside the repository: on this Node, and in the full run
  // on Node 22 and 24 too.
  {
    name: 'packed packages work in a new project',
    command: 'node --import tsx scripts/consumer/check-consumer.ts',
    after: [BUILD],
  },
];

const selected = steps.filter((step) => !only.length || only.some((word) => step.name.includes(word)));
if (!selected.length) {
  console.error(`no step matches ${only.join(', ')}; the steps: ${steps.map((s) => s.name).join(', ')}`);
  process.exit(2);
}
mkdirSync('reports', { recursive: true });
const seconds = (ms) => `${(ms / 1000).toFixed(1)}s`;
const runStarted = Date.now();
console.log(
  FULL
    ? `npm run test:all: the full run (RESTOAPI_TEST_FULL=1), ${selected.length} steps, ${JOBS} at a time`
    : `npm test: the fast default, ${selected.length} steps, ${JOBS} at a time (npm run test:all adds the long parts)`,
);

/** Runs one step; resolves with its exit code and wall time. */
function run(step, alone) {
  const started = Date.now();
  const live = alone || step.live;
  console.log(`\n▶ ${step.name}: ${step.command}${live ? '' : ' (output when it ends)'}`);
  const child = spawn(step.command, { shell: true, stdio: live ? 'inherit' : ['ignore', 'pipe', 'pipe'] });
  let output = '';
  if (!live) {
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
  }
  return new Promise((resolve) =>
    child.on('close', (code, signal) => {
      const ms = Date.now() - started;
      if (!live) console.log(`\n── ${step.name} ──\n${output.trimEnd()}`);
      if (code === 0) console.log(`✔ ${step.name} (${seconds(ms)})`);
      else console.log(`✘ ${step.name} failed with ${signal ?? `exit code ${code}`} (${seconds(ms)})`);
      resolve({ code: code ?? 1, ms, startedAt: started - runStarted });
    }),
  );
}

const results = new Map();
const running = new Map();
const names = new Set(selected.map((step) => step.name));
// A step is ready when every selected step it waits for has passed; a failed dependency fails it unrun.
while (results.size < selected.length) {
  for (const step of selected) {
    if (results.has(step.name) || running.has(step.name) || running.size >= JOBS) continue;
    const waits = step.after.filter((name) => names.has(name));
    const broken = waits.find((name) => results.has(name) && results.get(name).code !== 0);
    if (broken) {
      console.log(`✘ ${step.name}: not run, ${broken} failed`);
      results.set(step.name, { code: 1, ms: 0, startedAt: Date.now() - runStarted, notRun: true });
      continue;
    }
    if (!waits.every((name) => results.has(name))) continue;
    running.set(
      step.name,
      run(step, selected.length === 1).then((result) => ({ name: step.name, result })),
    );
  }
  if (!running.size) continue;
  const { name, result } = await Promise.race(running.values());
  running.delete(name);
  results.set(name, result);
  if (name === 'vitest' && existsSync('reports/vitest.json')) writeSlowest();
}

let passed = 0;
let failed = 0;
let skipped = 0;
if (names.has('vitest') && existsSync('reports/vitest.json')) {
  const report = JSON.parse(readFileSync('reports/vitest.json', 'utf8'));
  passed = report.numPassedTests ?? 0;
  failed = report.numFailedTests ?? 0;
  skipped = (report.numPendingTests ?? 0) + (report.numTodoTests ?? 0);
}
const failedSteps = [...results.values()].filter((r) => r.code !== 0).length;
const wall = Date.now() - runStarted;
const table = selected.map((step) => {
  const r = results.get(step.name);
  const at = `${seconds(r.startedAt)} → ${seconds(r.startedAt + r.ms)}`;
  return `${r.code === 0 ? '✔' : '✘'} ${step.name.padEnd(38)} ${seconds(r.ms).padStart(8)}   (${at})${r.notRun ? ' not run' : ''}`;
});
const closing = [
  `\n${FULL ? 'npm run test:all' : 'npm test'}: step times (wall; side by side, ${JOBS} at a time)`,
  ...table,
  `total ${seconds(wall)}`,
];
console.log(closing.join('\n'));
writeFileSync(
  'reports/steps.txt',
  `${closing.join('\n').trim()}\n(${new Date().toISOString()}, ${FULL ? 'full run' : 'default run'})\n`,
);
if (names.has('vitest') && existsSync('reports/slowest.txt'))
  console.log('the 20 slowest test files: reports/slowest.txt');
if (skipped)
  console.log(
    `${skipped} test(s) skipped, each with its reason in its title${FULL ? '' : '; npm run test:all runs the ones marked "full run only"'}`,
  );
console.log(`\nsteps: ${selected.length - failedSteps} ok, ${failedSteps} failed`);
// A failed step counts as one failure, but the vitest step's failed tests are already counted one by one.
const vitestFailed = results.get('vitest')?.code ? 1 : 0;
const otherFailedSteps = failedSteps - (failed > 0 ? vitestFailed : 0);
console.log(`tests: ${passed} passed, ${failed + otherFailedSteps} failed`);
process.exit(failedSteps > 0 || failed > 0 ? 1 : 0);
