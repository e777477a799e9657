#!/usr/bin/env node
// Regenerates every derived file and fails when the result differs from what is committed,
// so a change to openapi/ cannot land without its generated types, bundle and DECISIONS.md;
// in the full run it runs it twice, so a generator that is not deterministic fails too.
import { execSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

const GENERATED = [
  'openapi/generated',
  'openapi/src/generated',
  'openapi/DECISIONS.md',
  'packages/*/src/generated',
  'packages/*/schemas',
  'contract-tests/src/generated',
];
// Content of every generated file, to show that a second run changes nothing.
const snapshot = () =>
  execSync(`git ls-files -co --exclude-standard -- ${GENERATED.join(' ')}`, { encoding: 'utf8' })
    .split('\n')
    .filter(Boolean)
    .map((file) => `${file} ${createHash('sha256').update(readFileSync(file)).digest('hex')}`)
    .join('\n');
execSync('npm run generate --silent', { stdio: 'inherit' });
// The second run is on the critical path of every step after it: npm test leaves it to the full run (npm run test:all).
if (process.env.RESTOAPI_TEST_FULL === '1') {
  const first = snapshot();
  execSync('npm run generate --silent', { stdio: 'inherit' });
  if (snapshot() !== first) {
    console.error('A second `npm run generate` changed generated files: generation must be deterministic.');
    process.exit(1);
  }
} else console.log('determinism (a second npm run generate) SKIPPED (full run only: npm run test:all runs it)');
const status = execSync(`git status --porcelain -- ${GENERATED.join(' ')}`, { encoding: 'utf8' }).trim();
if (status) {
  console.error(
    `Generated files are stale or uncommitted:\n${status}\nRun \`npm run generate\` and commit the result.`,
  );
  process.exit(1);
}
console.log('generated files match the API description');
