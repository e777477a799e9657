import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { LIMIT_BYTES, measureBundle } from '../../scripts/bundle-size.js';

const sdkRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('createRestoClient with one resource stays under 15 kB min+gzip for the browser', async () => {
  const size = await measureBundle();
  expect(size.limit).toBe(15_000);
  expect(size.gzipped).toBeGreaterThan(1_000);
  expect(size.gzipped).toBeLessThanOrEqual(LIMIT_BYTES);
});

test('`npm run size` prints the figures and passes', async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/bundle-size.ts'], {
    cwd: sdkRoot,
  });
  expect(stdout).toMatch(
    /^createRestoClient \+ session \+ orders: \d+ bytes minified \([\d.]+ kB\), \d+ bytes min\+gzip \([\d.]+ kB\); budget 15\.00 kB min\+gzip$/m,
  );
}, 60_000);
