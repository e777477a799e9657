/**
 * `restoapi-mock proxy` as a QA engineer runs it: in front of a real HTTP mock with a fault injected, its
 * live output names the warning (a decided departure) and the violation, Ctrl-C prints the summary and writes the JUnit, HTML and JSON reports
 * and the recording, and `restoapi-mock --seed` replays the recording. Bad invocations exit 2 naming the option.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
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
import { demoSeed } from '../../src/index.js';
import { createMockServer } from '../../src/node.js';
import { REPLAY_PASSWORD } from '../../src/proxy/recorder.js';

const cli = (...args: string[]) => runCli([BIN_SOURCES['restoapi-mock']!, ...args]);

async function token(base: string, login: string, password: string): Promise<Record<string, string>> {
  const res = await fetch(`${base}/api/session?login=${login}&password=${password}`, { method: 'POST' });
  expect(res.status).toBe(200);
  const { meta } = (await res.json()) as { meta: { token: string } };
  return { Authorization: `Token token="${meta.token}"` };
}

test("the README's proxy commands, run as written: the proxy shows a decided departure as a warning and a broken limit as a violation, live and in its report, writes JUnit and HTML on Ctrl-C, and its recording replays under restoapi-mock --seed", async () => {
  const upstream = await createMockServer({ port: 0, state: demoSeed(new Date('2026-11-20T18:30:00Z')) });
  const dir = mkdtempSync(path.join(tmpdir(), 'restoapi-proxy-cli-'));
  const reportDir = path.join(dir, 'report');
  const recording = path.join(dir, 'staging.json');
  const port = await freePort();
  // The README's commands as written, with the test's upstream, ports and files.
  const [proxyCommand, , replayCommand] = shellCommands(
    path.join(ROOT, 'packages/mock-server/README.md'),
    'npx restoapi-mock proxy',
  );
  expect(proxyCommand).toBe(
    'npx restoapi-mock proxy --upstream https://staging.example.com --port 4010 --report proxy-report --record staging.json',
  );
  expect(replayCommand).toMatch(/^npx restoapi-mock --seed staging\.json /);
  const local = (command: string, ownPort: number): string =>
    command
      .replace('https://staging.example.com', upstream.url)
      .replace('--port 4010', `--port ${ownPort}`)
      .replace('proxy-report', reportDir)
      .replace('staging.json', recording);
  const proxy = startCli(localArgv(local(proxyCommand!, port)).slice(2));
  try {
    await proxy.waitFor(/RestoAPI proxy listening on/);
    const base = `http://127.0.0.1:${port}`;
    const auth = await token(base, 'admin@pizza.demo', 'demo');
    const order = (await (await fetch(`${base}/api/orders/5001`, { headers: auth })).json()) as unknown;
    await upstream.mock.fetch(`${upstream.url}/__mock/faults`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ method: 'GET', path: '/api/orders/*', status: 418 }),
    });
    expect((await fetch(`${base}/api/orders/5001`, { headers: auth })).status).toBe(418);
    // The spec shows no error status: under the default spec profile a 4xx is a warning naming the decision.
    const [warning] = await proxy.waitFor(/^\[warning\].*$/);
    expect(warning).toMatch(
      /^\[warning\] GET \/api\/orders\/5001 \(getOrder\) response \(whole\): expected a documented status \(200, 400, 401, 404, 429, 5XX\), got 418 — the spec does not state this, the document decided: .+ \(openapi\/DECISIONS\.md#[\w-]+\)$/,
    );
    // A request that breaks a stated limit is a violation.
    expect((await fetch(`${base}/api/orders?per_page=1000`, { headers: auth })).status).toBe(400);
    const [line] = await proxy.waitFor(/^\[violation\].*$/);
    expect(line).toBe('[violation] GET /api/orders (listOrders) request /per_page: expected maximum 100, got "1000"');
    const live = (await (await fetch(`${base}/__proxy/report`)).json()) as Record<string, unknown>;
    expect(live).toMatchObject({ requests: 4, failed: 1, warnings: 1, profile: 'spec' });

    const stopped = await proxy.stop('SIGINT');
    expect(stopped.status).toBe(0);
    expect(stopped.stdout).toContain('4 requests to');
    expect(stopped.stdout).toContain('1 warnings (profile spec)');
    expect(stopped.stdout).toMatch(/GET \/api\/orders: 1 of 1 requests/);
    const junit = readFileSync(path.join(reportDir, 'proxy-report.xml'), 'utf8');
    expect(junit).toMatch(/<testcase classname="restoapi\.proxy" name="GET \/api\/orders \(listOrders\)"/);
    expect(junit).toMatch(/<failure message="1 of 1 requests violated the API description" type="contract_violation"/);
    expect(junit).toContain(`<property name="warning" value="${warning!.replace(/"/g, '&quot;')}"/>`);
    expect(junit).toMatch(
      /<testcase classname="restoapi\.proxy" name="POST \/api\/session \(createSession\)"[^>]*\/?>/,
    );
    const html = readFileSync(path.join(reportDir, 'proxy-report.html'), 'utf8');
    expect(html).toContain('<td><code>GET /api/orders/5001</code></td><td>response</td>');
    expect(html).toContain('<td><code>418</code></td>');
    expect(html).toContain('<h2>Warnings by decision</h2>');
    expect(JSON.parse(readFileSync(path.join(reportDir, 'proxy-report.json'), 'utf8'))).toMatchObject({
      failed: 1,
      warnings: 1,
    });

    const replayPort = await freePort();
    const replay = startCli([
      ...localArgv(local(replayCommand!, replayPort)).slice(2),
      '--port',
      String(replayPort),
      '--no-docs',
    ]);
    try {
      await replay.waitFor(/RestoAPI mock listening on/);
      const replayBase = `http://127.0.0.1:${replayPort}`;
      const replayAuth = await token(replayBase, 'admin@pizza.demo', REPLAY_PASSWORD);
      expect(await (await fetch(`${replayBase}/api/orders/5001`, { headers: replayAuth })).json()).toEqual(order);
    } finally {
      await replay.stop();
    }
  } finally {
    if (proxy.child.exitCode === null) await proxy.stop();
    await upstream.close();
  }
  // Two program starts and a dozen requests: past the default 20 s on a busy machine.
}, 60_000);

const badInvocations: [string[], RegExp][] = [
  [['proxy'], /required option '--upstream <url>' not specified/],
  [
    ['proxy', '--upstream', 'ftp://staging'],
    /--upstream <url>' argument 'ftp:\/\/staging' is invalid\. expected an http or https URL/,
  ],
  [['proxy', '--upstream', 'http://127.0.0.1:1', '--timeout', '0'], /--timeout <ms>' argument '0' is invalid/],
  [['proxy', '--upstream', 'http://127.0.0.1:1', '--redact'], /--redact applies to --record <file>: give both/],
];
sampledEach(
  badInvocations,
  2,
  'a process start each; npm test refuses a sample of the bad invocations',
)('restoapi-mock %j is refused with exit code 2 naming the option', async (args, message) => {
  const result = await cli(...args);
  expect(result.stderr).toMatch(message);
  expect(result.status).toBe(2);
});

test('restoapi-mock proxy on a port in use says so as the serve command does, and exits 2', async () => {
  const taken = await occupyPort();
  try {
    const result = await cli('proxy', '--upstream', 'http://127.0.0.1:1', '--port', String(taken.port));
    expect(result.stderr).toContain(
      `restoapi-mock: port ${taken.port} on 127.0.0.1 is already in use; choose another with --port <port>`,
    );
    expect(result.status).toBe(2);
  } finally {
    await taken.close();
  }
});

test('restoapi-mock proxy --help explains every option and exits 0; the serve help lists the subcommand', async () => {
  const help = await cli('proxy', '--help');
  expect(help.status).toBe(0);
  for (const option of [
    '--upstream <url>',
    '--port <port>',
    '--host <host>',
    '--timeout <ms>',
    '--report <dir>',
    '--record <file>',
    '--redact',
    '--profile <profile>',
    '--fail-on-violation',
  ])
    expect(help.stdout).toContain(option);
  expect((await cli('--help')).stdout).toMatch(/Commands:\s+proxy \[options\]/);
});
