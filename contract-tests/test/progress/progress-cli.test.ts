/**
 * `restoapi-contract` progress as a user sees it: under a real pseudo-terminal (`script`) one line is
 * redrawn in place while tests run and cleared for the summary; piped into a log it prints one line per
 * finished group of tests instead; `--progress tty` forces the live line where no terminal is (a CI
 * that renders it); `--progress off` leaves only the summary.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createMockServer, type MockServer } from '@restoapi/mock-server/node';
import { ROOT, runCli } from '../../../scripts/testing/run-cli.js';

const cli = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
const config = fileURLToPath(new URL('../../config/mock.json', import.meta.url));
const TSX = fileURLToPath(new URL('../../../node_modules/tsx/dist/loader.mjs', import.meta.url));
const REDRAW = '\r\u001b[2K';
let server: MockServer;

beforeAll(async () => {
  server = await createMockServer({ port: 0 });
});
afterAll(() => server.close());

const args = (): string[] => [
  '--base-url',
  server.url,
  '--config',
  config,
  '--grep',
  'session.*',
  'organization.*',
  '--seed',
  '5',
];

test('piped into a log, the run prints one line per finished group of tests before the summary', async () => {
  const result = await runCli([cli, ...args()]);
  expect(result.status).toBe(0);
  expect(result.stdout).not.toContain('\r');
  expect(result.stdout).toMatch(
    /^\[4\/6\] session: 4 tests \(4 passed\) in \d+\.\d s\n\[6\/6\] organization: 2 tests \(2 passed\) in \d+\.\d s\n\nRestoAPI contract suite/,
  );
  expect(result.stdout).toContain('RESULT: PASS');
}, 60_000);

test.skipIf(!existsSync('/usr/bin/script'))(
  'on a real terminal one line is redrawn per test, then cleared for the summary',
  async () => {
    // script(1) gives the CLI a pseudo-terminal and copies what it draws to our pipe.
    const command = ['node', '--import', TSX, cli, ...args()].map((w) => `'${w.replace(/'/g, `'\\''`)}'`).join(' ');
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      cwd: ROOT,
      env: { ...process.env, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    const status = await new Promise<number | null>((resolve) => child.on('close', resolve));
    expect(status).toBe(0);
    const live = out.slice(0, out.indexOf('RestoAPI contract suite'));
    const frames = live.split(REDRAW).filter((frame) => frame.trim() !== '');
    // One frame per test at least, each with done/total, failures so far, the test and its time.
    expect(frames.length).toBeGreaterThanOrEqual(6);
    for (const frame of frames)
      expect(frame).toMatch(/^\[\d\/6\] no failures · (session|organization)\.[\w.-]+ \d+\.\d s$/);
    expect(frames[0]).toMatch(/^\[0\/6\] no failures · session\./);
    expect(frames.at(-1)).toMatch(/^\[5\/6\] no failures · organization\./);
    // No group lines on a terminal, and the line is cleared before the summary is printed.
    expect(live).not.toMatch(/session: 4 tests/);
    expect(live.endsWith(`${REDRAW}\r\n`)).toBe(true);
    expect(out).toContain('RESULT: PASS');
  },
  60_000,
);

test('--progress tty draws the live line even where no terminal is', async () => {
  const result = await runCli([cli, ...args(), '--progress', 'tty']);
  expect(result.stdout.startsWith(`${REDRAW}[0/6] no failures · session.`)).toBe(true);
  expect(result.stdout).not.toMatch(/session: 4 tests/);
  const quiet = await runCli([cli, ...args(), '--progress', 'off']);
  expect(quiet.stdout).toMatch(/^\nRestoAPI contract suite/);
}, 60_000);
