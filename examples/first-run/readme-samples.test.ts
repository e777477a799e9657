import { mkdir, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import { createMockServer, type MockServer } from '@restoapi/mock-server/node';
import {
  SAMPLE_READMES,
  pointAt,
  readmeSamples,
  runSample,
  toCjs,
  toEsm,
} from '../../scripts/consumer/readme-samples.js';
import { startIndependentService, type RunningIndependentService } from '../../scripts/testing/independent-service.js';
import { FULL_RUN } from '../../scripts/testing/test-mode.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const work = path.join(root, 'reports', 'readme-samples');
const samples = readmeSamples(root);

/** What some samples must print, beyond running without an error. */
const PRINTS: Record<string, RegExp[]> = {
  'README.md': [/confirmed PP-5002: 23\.80/, /menu import 100%/],
  'packages/sdk/README.md': [/^Signed in as Anna Schmidt$/m, /^PP-5002 is now accepted$/m],
  'packages/carrier-kit/README.md': [/^register http:\/\/127\.0\.0\.1:\d+\/callbacks as the callback_url$/m],
};

let server: MockServer | undefined;
let independent: RunningIndependentService | undefined;
afterEach(async () => {
  await server?.close();
  await independent?.close();
  server = independent = undefined;
});

test('every published package and the root README have a sample that runs', () => {
  expect(new Set(samples.map((s) => s.readme))).toEqual(new Set(SAMPLE_READMES));
  expect(samples.every((s) => s.lang === 'ts')).toBe(true);
});

test('a sample is pointed at the test mock: the README addresses and fixed ports change, nothing else', () => {
  const code =
    "fetch('http://localhost:4010/api'); fetch('http://127.0.0.1:4010/x'); serve(h, { port: 4020 }); // 4010";
  expect(pointAt(code, 'http://127.0.0.1:5555')).toBe(
    "fetch('http://127.0.0.1:5555/api'); fetch('http://127.0.0.1:5555/x'); serve(h, { port: 0 }); // 4010",
  );
});

test('a sample runs the same as ESM and as CommonJS (imports become require, top-level await is wrapped)', async () => {
  const code = [
    "import { basename } from 'node:path';",
    "import type { ParsedPath } from 'node:path';",
    'const parsed: Pick<ParsedPath, "base"> = { base: basename(\'/a/b.txt\') };',
    'await new Promise((resolve) => setTimeout(resolve, 1));',
    'console.log(parsed.base);',
  ].join('\n');
  const dir = path.join(work, 'formats');
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'sample.mjs'), toEsm(code));
  await writeFile(path.join(dir, 'sample.cjs'), toCjs(code));
  expect(toCjs(code)).toContain('require("node:path")');
  for (const file of ['sample.mjs', 'sample.cjs']) {
    const run = await runSample([file], { cwd: dir, server: false });
    expect(run.stdout, file).toBe('b.txt\n');
  }
  await writeFile(path.join(dir, 'failing.cjs'), toCjs("await Promise.reject(new Error('boom'));"));
  await expect(runSample(['failing.cjs'], { cwd: dir, server: false })).rejects.toThrow(/exited with 1[\s\S]*boom/);
});

test('the root README’s SDK sample stays short', () => {
  expect(
    samples
      .find((s) => s.readme === 'README.md')!
      .code.trim()
      .split('\n').length,
  ).toBeLessThanOrEqual(20);
});

/** Runs a sample, as written but pointed at `url`, in a folder of its own; checks it printed what it must. */
async function runAgainst(sample: (typeof samples)[number], url: string, folder: string): Promise<void> {
  // Each sample in a folder of its own: files it writes (an outbox, reports) land there.
  const dir = path.join(work, folder, sample.id.replace(/[/:.]/g, '-'));
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const file = path.join(dir, 'sample.mts');
  await writeFile(file, pointAt(sample.code, url));
  // The samples read the contract tests' config where a user's project has it.
  await mkdir(path.join(dir, 'node_modules', '@restoapi'), { recursive: true });
  await symlink(path.join(root, 'contract-tests'), path.join(dir, 'node_modules', '@restoapi', 'contract-tests'));
  const run = await runSample(['--import', 'tsx', file], {
    cwd: dir,
    server: sample.server,
    env: { ...process.env, TSX_TSCONFIG_PATH: path.join(root, 'tsconfig.json') },
  });
  expect(run.stderr).not.toMatch(/Error/);
  for (const pattern of PRINTS[sample.readme] ?? []) expect(run.stdout).toMatch(pattern);
}

/**
 * The contract README's sample runs the whole suite in process (about 20 s of CPU): the packed-packages step runs
 * it as written, from the packed packages (as CommonJS on every Node, and in the full run as ESM too), which is the
 * same code a user runs; suite-in-process.test.ts runs the same suite from the sources. So it is not run here.
 */
const WHOLE_SUITE = (sample: (typeof samples)[number]): boolean => sample.readme === 'contract-tests/README.md';
test.each(samples.filter((sample) => !WHOLE_SUITE(sample)))(
  '$id runs as written against a fresh mock (sources through tsx)',
  async (sample) => {
    server = await createMockServer({ port: 0, config: { importDurationMs: 300 } });
    await runAgainst(sample, server.url, 'mock');
  },
  60_000,
);

/**
 * The samples that talk to a service at the README's address; the others (the in-memory mock, the document, the
 * contract suite in-process) meet no service.
 */
const SERVICE_SAMPLES = samples.filter(
  (sample) => /\/\/(localhost|127\.0\.0\.1):4010/.test(sample.code) && !/\bcreateMock\(/.test(sample.code),
);

test.skipIf(!FULL_RUN).each(SERVICE_SAMPLES)(
  '$id runs as written against an independent implementation (every departure of scripts/testing) (full run only: the whole independent harness; npm test runs each sample against the mock)',
  async (sample) => {
    independent = await startIndependentService({ mock: { config: { importDurationMs: 300 } } });
    await runAgainst(sample, independent.url, 'independent');
  },
  60_000,
);
