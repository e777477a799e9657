#!/usr/bin/env node
// `npm test`: every check of every package, in the order a failure is cheapest to read.
// Prints one line per step and closes with "N passed, N failed" counted over the test cases.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, existsSync } from 'node:fs';

const steps = [
  ['generated files are fresh', 'node scripts/check-generated.mjs'],
  ['API description lints clean', 'npm run lint:api -w @restoapi/openapi'],
  ['typecheck', 'npx tsc -p tsconfig.json'],
  ['eslint + prettier', 'npm run lint'],
  ['vitest', 'npx vitest run --reporter=default --reporter=json --outputFile.json=reports/vitest.json'],
  ['build + package checks', 'node scripts/check-packages.mjs'],
  // After the build: packs the packages and uses them from a new project outside the repository.
  ['packed packages work in a new project', 'node --import tsx scripts/consumer/check-consumer.ts'],
];

mkdirSync('reports', { recursive: true });
const only = process.argv.slice(2);
let failedSteps = 0;
for (const [name, command] of steps) {
  if (only.length && !only.some((word) => name.includes(word))) continue;
  const started = Date.now();
  console.log(`\n▶ ${name}: ${command}`);
  const result = spawnSync(command, { shell: true, stdio: 'inherit' });
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (result.status === 0) console.log(`✔ ${name} (${seconds}s)`);
  else {
    failedSteps += 1;
    console.log(`✘ ${name} failed with exit code ${result.status} (${seconds}s)`);
  }
}

let passed = 0;
let failed = 0;
if (existsSync('reports/vitest.json')) {
  const report = JSON.parse(readFileSync('reports/vitest.json', 'utf8'));
  passed = report.numPassedTests ?? 0;
  failed = report.numFailedTests ?? 0;
}
console.log(`\nsteps: ${steps.length - failedSteps} ok, ${failedSteps} failed`);
console.log(`tests: ${passed} passed, ${failed + failedSteps} failed`);
process.exit(failedSteps > 0 || failed > 0 ? 1 : 0);
