import { spawn } from 'node:child_process';
import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { createMockServer } from '@restoapi/mock-server/node';

const cli = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));

test('createMockServer serves the API on loopback and closes cleanly', async () => {
  const { url, close } = await createMockServer({ port: 0, validateResponses: true });
  try {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const res = await fetch(`${url}/api/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ login: 'courier@pizza.demo', password: 'demo' }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBeTruthy();
  } finally {
    await close();
  }
});

test('two servers in one process keep separate state', async () => {
  const a = await createMockServer();
  const b = await createMockServer();
  try {
    const token = async (url: string): Promise<string> =>
      (
        (await (await fetch(`${url}/api/session?login=admin@pizza.demo&password=demo`, { method: 'POST' })).json()) as {
          meta: { token: string };
        }
      ).meta.token;
    const ta = await token(a.url);
    expect(
      (
        await fetch(`${a.url}/api/draft_dishes/10003`, {
          method: 'DELETE',
          headers: { Authorization: `Token token="${ta}"` },
        })
      ).status,
    ).toBe(204);
    const tb = await token(b.url);
    expect(
      (await fetch(`${b.url}/api/draft_dishes/10003`, { headers: { Authorization: `Token token="${tb}"` } })).status,
    ).toBe(200);
    // A token of one instance means nothing to the other.
    expect((await fetch(`${b.url}/api/session`, { headers: { Authorization: `Token token="${ta}"` } })).status).toBe(
      401,
    );
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

function runCli(args: string[], until: RegExp): Promise<{ output: string; stop: () => Promise<number | null> }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => reject(new Error(`CLI did not print ${until}:\n${output}`)), 20_000);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (until.test(output)) {
        clearTimeout(timer);
        resolve({
          output,
          stop: () =>
            new Promise((done) => {
              child.once('exit', (code) => done(code));
              child.kill('SIGTERM');
            }),
        });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      if (!until.test(output)) reject(new Error(`CLI exited with ${code}:\n${output}`));
    });
  });
}

test('restoapi-mock --help lists its options', async () => {
  const { output } = await runCli(['--help'], /--validate-responses/);
  for (const option of ['--port', '--host', '--seed', '--state', '--validate-responses'])
    expect(output).toContain(option);
});

test('restoapi-mock --cors-origin (repeated, comma lists) limits the origins; a malformed one is refused by name', async () => {
  const cli = await runCli(
    [
      '--port',
      '0',
      '--no-docs',
      '--cors-origin',
      'http://localhost:5173,http://127.0.0.1:5173',
      '--cors-origin',
      'https://a.test',
    ],
    /courier2@pizza\.demo/,
  );
  try {
    expect(cli.output).toContain('CORS          http://localhost:5173, http://127.0.0.1:5173, https://a.test');
    const url = /listening on (http:\/\/\S+)/.exec(cli.output)![1]!;
    const origin = async (value: string): Promise<string | null> =>
      (await fetch(`${url}/api/session`, { headers: { Origin: value } })).headers.get('access-control-allow-origin');
    expect(await origin('https://a.test')).toBe('https://a.test');
    expect(await origin('http://127.0.0.1:5173')).toBe('http://127.0.0.1:5173');
    expect(await origin('http://localhost:3000')).toBeNull();
  } finally {
    await cli.stop();
  }
  const bad = await runCli(['--cors-origin', 'localhost:5173'], /error/);
  expect(bad.output).toContain("option '--cors-origin <origins>' argument 'localhost:5173' is invalid");
  expect(bad.output).toContain('is not an origin such as http://localhost:5173');
}, 30_000);

test('restoapi-mock --no-cors answers no preflight', async () => {
  const cli = await runCli(['--port', '0', '--no-docs', '--no-cors'], /courier2@pizza\.demo/);
  try {
    expect(cli.output).toContain('CORS          off (--no-cors)');
    const url = /listening on (http:\/\/\S+)/.exec(cli.output)![1]!;
    const res = await fetch(`${url}/api/session`, {
      method: 'OPTIONS',
      headers: { Origin: 'http://localhost:5173', 'Access-Control-Request-Method': 'POST' },
    });
    expect(res.status).toBe(405);
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  } finally {
    await cli.stop();
  }
}, 30_000);

test('the CLI prints its URLs and demo logins, and --state persists changes across restarts', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'restoapi-mock-'));
  const stateFile = path.join(dir, 'state.json');
  const first = await runCli(['--port', '0', '--state', stateFile], /courier2@pizza\.demo/);
  const url = /listening on (http:\/\/\S+)/.exec(first.output)![1]!;
  expect(first.output).toContain(`${url}/__mock`);
  expect(first.output).toContain('admin@pizza.demo');
  const { meta } = (await (
    await fetch(`${url}/api/session?login=admin@pizza.demo&password=demo`, { method: 'POST' })
  ).json()) as { meta: { token: string } };
  const renamed = await fetch(`${url}/api/organizations/1`, {
    method: 'PUT',
    headers: { Authorization: `Token token="${meta.token}"`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ organization: { name: 'Pizza Piccolo Berlin' } }),
  });
  expect(renamed.status).toBe(200);
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(await first.stop()).toBe(0);
  const saved = JSON.parse(await readFile(stateFile, 'utf8')) as { organizations: { rows: { name: string }[] } };
  expect(saved.organizations.rows[0]!.name).toBe('Pizza Piccolo Berlin');

  const second = await runCli(['--port', '0', '--state', stateFile], /courier2@pizza\.demo/);
  try {
    expect(second.output).toContain('restored from');
    const url2 = /listening on (http:\/\/\S+)/.exec(second.output)![1]!;
    const again = (await (
      await fetch(`${url2}/api/session?login=admin@pizza.demo&password=demo`, { method: 'POST' })
    ).json()) as { meta: { token: string } };
    const org = await fetch(`${url2}/api/organizations/1`, {
      headers: { Authorization: `Token token="${again.meta.token}"` },
    });
    expect(((await org.json()) as { organization: { name: string } }).organization.name).toBe('Pizza Piccolo Berlin');
  } finally {
    await second.stop();
  }
}, 60_000);
