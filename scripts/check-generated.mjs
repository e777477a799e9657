#!/usr/bin/env node
// Regenerates every derived file and fails when the result differs from what is committed,
// so a change to openapi/ cannot land without its generated types, bundle and DECISIONS.md.
import { execSync } from 'node:child_process';

const GENERATED = [
  'openapi/generated',
  'openapi/src/generated',
  'openapi/DECISIONS.md',
  'packages/*/src/generated',
  'packages/*/schemas',
  'contract-tests/src/generated',
];
execSync('npm run generate --silent', { stdio: 'inherit' });
const status = execSync(`git status --porcelain -- ${GENERATED.join(' ')}`, { encoding: 'utf8' }).trim();
if (status) {
  console.error(
    `Generated files are stale or uncommitted:\n${status}\nRun \`npm run generate\` and commit the result.`,
  );
  process.exit(1);
}
console.log('generated files match the API description');
