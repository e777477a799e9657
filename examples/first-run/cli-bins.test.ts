import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';

const root = fileURLToPath(new URL('../..', import.meta.url));
const CLIS = [
  { name: 'restoapi-mock', dir: 'packages/mock-server', usage: 'Usage: restoapi-mock' },
  { name: 'restoapi-carrier', dir: 'packages/carrier-kit', usage: 'Usage: restoapi-carrier' },
  { name: 'restoapi-contract', dir: 'contract-tests', usage: 'Usage: restoapi-contract' },
];

test.each(CLIS)('npm install links $name to a committed shim that the package publishes', ({ name, dir }) => {
  const pkg = JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as {
    bin: Record<string, string>;
    files: string[];
  };
  expect(pkg.bin[name]).toBe(`./bin/${name}.js`);
  expect(pkg.files).toContain('bin');
  expect(existsSync(path.join(root, dir, 'bin', `${name}.js`))).toBe(true);
  expect(existsSync(path.join(root, 'node_modules', '.bin', name)), `node_modules/.bin/${name}`).toBe(true);
});

test.each(CLIS)(
  '$name --help works from any directory right after npm install, from the sources (no build)',
  async ({ name, usage }) => {
    // Run through the link npm made, from outside the repository, as `npx` would.
    const run = await promisify(execFile)(path.join(root, 'node_modules', '.bin', name), ['--help'], {
      cwd: tmpdir(),
      timeout: 30_000,
    });
    expect(run.stdout).toContain(usage);
  },
  30_000,
);
