import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { bundleFiles } from '../../../../scripts/bundling.js';
import { LIMIT_BYTES, measureBundle } from '../../scripts/bundle-size.js';

const mockRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

test('the engine and its MSW handlers bundle for the browser without a Node built-in', async () => {
  // platform: browser, so an import of node:fs (or fs, path, …) anywhere in the graph fails the build.
  const files = await bundleFiles(
    `export { createMock, createControlClient } from './src/index.ts'; export { createMswHandlers } from './src/msw.ts';`,
    mockRoot,
    'browser',
    { splitting: true },
  );
  expect(files[0]!.entry).toBe(true);
  for (const file of files) expect(file.text).not.toMatch(/\bfrom\s*["'](node:)?(fs|path|http|stream|crypto|url)["']/);
});

test('`npm run size` prints the engine’s browser bundle within its budget, PDF receipts apart', async () => {
  const size = await measureBundle();
  expect(size.limit).toBe(LIMIT_BYTES);
  expect(size.gzipped).toBeGreaterThan(50_000);
  expect(size.gzipped).toBeLessThanOrEqual(LIMIT_BYTES);
  expect(size.lazyGzipped).toBeGreaterThan(0); // pdfkit: only loaded when a PDF receipt is asked for
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/bundle-size.ts'], {
    cwd: mockRoot,
  });
  expect(stdout).toMatch(
    /^createMock \+ createMswHandlers \+ createControlClient \(browser\): \d+ bytes minified \([\d.]+ kB\), \d+ bytes min\+gzip \([\d.]+ kB\); budget 310\.00 kB min\+gzip; loaded on demand: \d+ bytes minified, \d+ bytes min\+gzip \([\d.]+ kB\)$/m,
  );
}, 60_000);
