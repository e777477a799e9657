import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createMockServer, type MockServer } from '@restoapi/mock-server/node';
import { BIN_SOURCES, freePort, localArgv, runCli, shellCommands, startCli } from '../../scripts/testing/run-cli.js';
import { sampledEach } from '../../scripts/testing/test-mode.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const cli = fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const config = fileURLToPath(new URL('../config/mock.json', import.meta.url));
let server: MockServer;

beforeAll(async () => {
  server = await createMockServer({ port: 0 });
});
afterAll(() => server.close());

/** Runs the CLI in a child process (asynchronously: the mock server answers from this process). */
const run = (args: string[]) => runCli([cli, ...args]);

test('restoapi-contract runs against a base URL, prints the summary and the seed, and writes the reports', async () => {
  const reports = mkdtempSync(path.join(tmpdir(), 'restoapi-cli-'));
  const result = await run([
    '--base-url',
    server.url,
    '--config',
    config,
    '--profile',
    'full',
    '--grep',
    'session.*',
    'schema.getOrder',
    '--seed',
    '42',
    '--report',
    reports,
  ]);
  expect(result.stderr).not.toMatch(/Error/);
  expect(result.stdout).toMatch(/reproduce\s+--seed 42/);
  expect(result.stdout).toContain('RESULT: PASS');
  expect(result.status).toBe(0);
  expect(readFileSync(path.join(reports, 'junit.xml'), 'utf8')).toContain('session.lifecycle');
  expect(readFileSync(path.join(reports, 'traceability.md'), 'utf8')).toContain(
    'Endpoints > Session: DELETE /api/session',
  );
  expect(JSON.parse(readFileSync(path.join(reports, 'result.json'), 'utf8')).seed).toBe(42);
}, 60_000);

test('restoapi-contract exits 1 when the implementation breaks a rule', async () => {
  // An implementation that answers every call with 500: reachable, but every scenario must fail.
  const broken = createServer((req, res) => {
    req.resume();
    res.writeHead(500, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ errors: [{ status: '500', code: 'internal', title: 'Broken on purpose' }] }));
  });
  await new Promise<void>((resolve) => broken.listen(0, '127.0.0.1', resolve));
  try {
    const url = `http://127.0.0.1:${(broken.address() as AddressInfo).port}`;
    // No control API there, so the suite runs what the configuration names and fails on the answers.
    const noControl = fileURLToPath(new URL('../config/prism.json', import.meta.url));
    const result = await run(['--base-url', url, '--config', noControl, '--grep', 'session.*']);
    expect(result.stdout).toContain('RESULT: FAIL');
    expect(result.status).toBe(1);
  } finally {
    broken.close();
  }
}, 60_000);

test('restoapi-contract exits 0 when everything passes and 2 on a bad configuration', async () => {
  expect(
    (await run(['--base-url', server.url, '--config', config, '--grep', 'session.lifecycle', 'orders.*'])).status,
  ).toBe(0);
  const bad = await run([
    '--base-url',
    server.url,
    '--config',
    fileURLToPath(new URL('../package.json', import.meta.url)),
  ]);
  expect(bad.status).toBe(2);
  expect(bad.stderr).toMatch(/invalid configuration/);
}, 60_000);

const badInvocations: [string[], RegExp][] = [
  [['--base-url', 'http://127.0.0.1:4010'], /required option '--config <file>' not specified/],
  [
    ['--base-url', 'localhost', '--config', 'contract-tests/config/mock.json'],
    /--base-url <url>' argument 'localhost' is invalid/,
  ],
  [
    ['--base-url', 'http://127.0.0.1:4010', '--config', 'contract-tests/config/mock.json', '--profile', 'strict'],
    /--profile <profile>' argument 'strict' is invalid\. Allowed choices are spec, full/,
  ],
  [
    ['--base-url', 'http://127.0.0.1:4010', '--config', 'contract-tests/config/mock.json', '--seed', 'lucky'],
    /--seed <n>' argument 'lucky' is invalid\. expected a whole number/,
  ],
  [
    ['--base-url', 'http://127.0.0.1:4010', '--config', 'contract-tests/config/mock.json', '--selection', 'some'],
    /--selection <name>' argument 'some' is invalid/,
  ],
  [
    ['--base-url', 'http://127.0.0.1:4010', '--config', 'contract-tests/config/mock.json', '--fast'],
    /unknown option '--fast'/,
  ],
  [['--base-url', 'http://127.0.0.1:4010', '--config', 'no-such-config.json'], /no-such-config\.json/],
];
sampledEach(badInvocations, 2, 'a process start each; npm test refuses a sample of the bad invocations')(
  'restoapi-contract %j is refused with exit code 2 and says why',
  async (args, message) => {
    const result = await run(args);
    expect(result.stderr).toMatch(message);
    expect(result.status).toBe(2);
  },
  30_000,
);

test('restoapi-contract --grep that matches nothing says so and exits 2 instead of failing 0 of 0', async () => {
  const result = await run(['--base-url', server.url, '--config', config, '--grep', 'sessions.*']);
  expect(result.stderr).toContain(
    'restoapi-contract: --grep sessions.* matched no test of the spec profile, so nothing was run',
  );
  expect(result.stdout).not.toContain('RESULT');
  expect(result.status).toBe(2);
}, 30_000);

test('restoapi-contract names the target it cannot reach and exits 2', async () => {
  const unreachable = await new Promise<number>((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
  const result = await run(['--base-url', `http://127.0.0.1:${unreachable}`, '--config', config]);
  expect(result.stderr).toContain(`cannot reach the implementation at http://127.0.0.1:${unreachable}: ECONNREFUSED`);
  expect(result.status).toBe(2);
}, 30_000);

test('the README\'s "Try it" run works as written: the mock over HTTP passes the full profile', async () => {
  const [serve, contract, options] = shellCommands(
    path.join(root, 'contract-tests/README.md'),
    'npx restoapi-contract',
  );
  expect(serve).toMatch(/^npm start -w @restoapi\/mock-server -- --port 4010 &/);
  const port = String(await freePort());
  // `npm start -w @restoapi/mock-server` runs the package's start script: restoapi-mock from its source.
  const mock = startCli([BIN_SOURCES['restoapi-mock']!, '--no-docs', '--port', port]);
  try {
    await mock.waitFor(/^RestoAPI mock listening on /);
    const reports = mkdtempSync(path.join(tmpdir(), 'restoapi-contract-readme-'));
    const command = `${contract!.replace(/\s*\\$/, '')} ${options!.trim()}`
      .replaceAll('4010', port)
      .replace('reports/contract', reports);
    const result = await runCli(localArgv(command));
    // A warning is allowed: the mock fetches remote photos from public addresses only, so the suite's photo
    // server on loopback is never contacted and imports.menu-remote-photos says so.
    expect(result.stdout).toMatch(/tests {7}(\d+) passed, 0 failed, 0 skipped of \1(, \d+ warnings)?\n/);
    expect(result.stdout).toContain('RESULT: PASS');
    expect(result.status).toBe(0);
    expect(JSON.parse(readFileSync(path.join(reports, 'result.json'), 'utf8'))).toMatchObject({ profile: 'full' });
  } finally {
    await mock.stop();
  }
  // A hang guard, not a budget: the whole full profile over HTTP passed 120 s at load 15 (the full run).
}, 300_000);
