/**
 * restoapi-mock as a user runs it: what it says and how it exits on a bad invocation, and the
 * README's quickstart commands run as written (on a free port instead of 4010).
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { expect, test } from 'vitest';
import {
  BIN_SOURCES,
  ROOT,
  freePort,
  localArgv,
  occupyPort,
  runCli,
  shellCommands,
  startCli,
} from '../../../../scripts/testing/run-cli.js';
import { sampledEach } from '../../../../scripts/testing/test-mode.js';

const mock = (...args: string[]) => runCli([BIN_SOURCES['restoapi-mock']!, ...args]);
const notAFixture = path.join(mkdtempSync(path.join(tmpdir(), 'restoapi-mock-cli-')), 'not-a-fixture.json');
writeFileSync(notAFixture, '{ "version": 7 }');

const badInvocations: [string[], RegExp][] = [
  [
    ['--import-duration', '-5'],
    /--import-duration <ms>' argument '-5' is invalid\. a duration is a number of milliseconds, 0 or more/,
  ],
  [['--import-duration', 'soon'], /--import-duration <ms>' argument 'soon' is invalid/],
  [['--port', '70000'], /--port <port>' argument '70000' is invalid\. a port is a whole number from 0 to 65535/],
  [['--port', 'x'], /--port <port>' argument 'x' is invalid/],
  [['--colour'], /unknown option '--colour'/],
  [['--host', '203.0.113.7'], /cannot listen on 203\.0\.113\.7:4010 \(EADDRNOTAVAIL\); check --host and --port/],
  [['--seed', 'no-such-file.json'], /--seed no-such-file\.json: not "demo", "empty" or a readable state JSON file/],
  [['--seed', 'package.json'], /--seed package\.json/],
  [['--no-cors', '--cors-origin', 'http://localhost:5173'], /--cors-origin and --no-cors contradict each other/],
  [['--cors-origin', 'localhost:5173/app'], /--cors-origin <origins>' argument 'localhost:5173\/app' is invalid/],
  [['--state', notAFixture], /--state .*not-a-fixture\.json is not a valid mock fixture[\s\S]*\/version must be 1/],
  [['--max-sessions', '-1'], /--max-sessions <n>' argument '-1' is invalid\. a number of sessions is a whole number/],
  [['--max-sessions', '2.5'], /--max-sessions <n>' argument '2\.5' is invalid/],
  [
    ['--session-ttl', 'later'],
    /--session-ttl <ms>' argument 'later' is invalid\. a duration is a number of milliseconds/,
  ],
  // Port 0: refused before anything listens, on any interface.
  [
    ['--host', '0.0.0.0', '--port', '0'],
    /listen on 0\.0\.0\.0, reachable from the network, with its control API \(\/__mock\) open to everyone: give a token with --control-token/,
  ],
  [
    ['--control-token', 'short'],
    /--control-token <token>' argument 'short' is invalid\. a control token has at least 16/,
  ],
  [
    ['--remote-photos', 'private'],
    /--remote-photos <mode>' argument 'private' is invalid\. Allowed choices are public, any, off/,
  ],
  [['--max-records', '0'], /--max-records <n>' argument '0' is invalid\. expected a whole number, 1 or more/],
];

sampledEach(
  badInvocations.map(
    ([args, message]) => [args.join(' ').replace(notAFixture, 'not-a-fixture.json'), args, message] as const,
  ),
  4,
  'a process start each; npm test refuses a sample of the bad invocations',
)('restoapi-mock %s is refused with exit code 2 and says why', async (_name, args, message) => {
  const result = await mock(...args);
  expect(result.stderr).toMatch(message);
  expect(result.status).toBe(2);
});

test('restoapi-mock on a port in use says which port and which option changes it, before it touches anything', async () => {
  const taken = await occupyPort();
  try {
    const result = await mock('--port', String(taken.port));
    expect(result.stderr).toContain(
      `restoapi-mock: port ${taken.port} on 127.0.0.1 is already in use; choose another with --port <port>`,
    );
    expect(result.status).toBe(2);
    expect(taken.requests).toEqual([]);
  } finally {
    await taken.close();
  }
});

test('restoapi-mock --help lists the options and exits 0', async () => {
  const result = await mock('--help');
  expect(result.stdout).toMatch(/--import-duration <ms>/);
  expect(result.status).toBe(0);
});

test("the README's quickstart runs as written: the mock serves the demo seed, and --state survives a restart", async () => {
  const [inMemory, withState, help] = shellCommands(
    path.join(ROOT, 'packages/mock-server/README.md'),
    'npx restoapi-mock',
  );
  expect([inMemory, withState, help]).toEqual([
    'npx restoapi-mock                      # http://127.0.0.1:4010, demo seed, in memory',
    'npx restoapi-mock --state state.json   # survives restarts',
    'npx restoapi-mock --help',
  ]);
  // On a free port rather than 4010, with state.json in a folder of its own.
  const folder = mkdtempSync(path.join(tmpdir(), 'restoapi-mock-readme-'));
  const port = String(await freePort());
  const serve = async (command: string) => {
    const running = startCli([...localArgv(command), '--port', port]);
    const [, url] = await running.waitFor(/^RestoAPI mock listening on (\S+)$/);
    return { running, url: url! };
  };

  const first = await serve(inMemory!);
  const orders = await fetch(`${first.url}/__mock/state`).then(
    (r) => r.json() as Promise<{ orders: { rows: unknown[] } }>,
  );
  expect(orders.orders.rows.length).toBeGreaterThan(0);
  expect((await first.running.stop()).status).toBe(0);

  const stateFile = path.join(folder, 'state.json');
  const stateCommand = withState!.replace('state.json', stateFile);
  const second = await serve(stateCommand);
  expect(second.running.lines).toContain(`  state         demo seed, saved to ${stateFile}`);
  const carrier = await fetch(`${second.url}/__mock/carriers`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ name: 'Remembered', callback_url: 'http://127.0.0.1:9/callbacks' }),
  });
  expect(carrier.status).toBe(201);
  await new Promise((resolve) => setTimeout(resolve, 300)); // the state is saved at most every 50 ms
  expect((await second.running.stop()).status).toBe(0);

  const third = await serve(stateCommand);
  expect(third.running.lines).toContain(`  state         restored from ${stateFile}`);
  const carriers = await fetch(`${third.url}/__mock/carriers`).then(
    (r) => r.json() as Promise<{ carriers: { name: string }[] }>,
  );
  expect(carriers.carriers.map((c) => c.name)).toEqual(['Remembered']);
  expect((await third.running.stop()).status).toBe(0);

  const helped = await runCli(localArgv(help!));
  expect(helped.stdout).toMatch(/^Usage: restoapi-mock \[options\]/);
  expect(helped.status).toBe(0);
}, 120_000);

test('restoapi-mock --clock starts the virtual clock there and dates the demo seed before it', async () => {
  const running = startCli([
    BIN_SOURCES['restoapi-mock']!,
    '--port',
    '0',
    '--no-docs',
    '--clock',
    '2026-11-20T18:30:00+01:00',
  ]);
  try {
    const [, url] = await running.waitFor(/^RestoAPI mock listening on (\S+)$/);
    const clock = (await (await fetch(`${url}/__mock/clock`)).json()) as { now: string; frozen: boolean };
    expect(Date.parse(clock.now) - Date.parse('2026-11-20T17:30:00Z')).toBeLessThan(60_000);
    expect(clock.frozen).toBe(false);
    const state = (await (await fetch(`${url}/__mock/state`)).json()) as { orders: { rows: { created_at: string }[] } };
    const created = state.orders.rows.map((row) => Date.parse(row.created_at));
    expect(Math.max(...created)).toBeLessThanOrEqual(Date.parse(clock.now));
    expect(Math.max(...created)).toBeGreaterThan(Date.parse('2026-11-20T00:00:00Z'));
  } finally {
    expect((await running.stop()).status).toBe(0);
  }
});

test('restoapi-mock --max-sessions and --session-ttl set the session limits; sessions start at the --clock time', async () => {
  const running = startCli([
    BIN_SOURCES['restoapi-mock']!,
    '--port',
    '0',
    '--no-docs',
    '--max-sessions',
    '1',
    '--session-ttl',
    '0',
    '--clock',
    '2026-11-20T18:30:00+01:00',
  ]);
  try {
    const [, url] = await running.waitFor(/^RestoAPI mock listening on (\S+)$/);
    await running.waitFor(/^ {2}sessions {6}X-Mock-Session: up to 1, kept until dropped$/);
    const clock = await fetch(`${url}/__mock/clock`, { headers: { 'X-Mock-Session': 'one' } });
    const { now } = (await clock.json()) as { now: string };
    expect(Date.parse(now) - Date.parse('2026-11-20T17:30:00Z')).toBeLessThan(60_000);
    const refused = await fetch(`${url}/__mock/clock`, { headers: { 'X-Mock-Session': 'two' } });
    expect(refused.status).toBe(429);
    const listed = (await (await fetch(`${url}/__mock/sessions`)).json()) as { max_sessions: number; ttl_ms: number };
    expect(listed).toMatchObject({ max_sessions: 1, ttl_ms: 0 });
  } finally {
    expect((await running.stop()).status).toBe(0);
  }
});

test('restoapi-mock --clock without an offset is refused with exit code 2', async () => {
  const result = await mock('--clock', '2026-11-20T18:30:00');
  expect(result.stderr).toMatch(
    /--clock <date-time>' argument '2026-11-20T18:30:00' is invalid\. expected an ISO 8601 date-time with an offset/,
  );
  expect(result.status).toBe(2);
});

test('restoapi-mock --control-token protects /__mock: 401 without it, 200 with it', async () => {
  const token = 'cli-test-control-token-0123456789';
  const running = startCli([BIN_SOURCES['restoapi-mock']!, '--port', '0', '--no-docs', '--control-token', token]);
  try {
    const [, url] = await running.waitFor(/^RestoAPI mock listening on (\S+)$/);
    await running.waitFor(/control API +\S+ \(token required\)/);
    const refused = await fetch(`${url}/__mock/state`);
    expect(refused.status).toBe(401);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect(((await refused.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('control_token_required');
    expect((await fetch(`${url}/__mock/clock`, { headers: { Authorization: `Bearer ${token}` } })).status).toBe(200);
    expect((await fetch(`${url}/__mock/clock`, { headers: { 'X-Mock-Control-Token': token } })).status).toBe(200);
    // The service API and the console page need no control token.
    expect((await fetch(`${url}/console/`)).status).toBe(200);
  } finally {
    expect((await running.stop()).status).toBe(0);
  }
});
