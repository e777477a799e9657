import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createMockServer, type MockServer } from '@restoapi/mock-server/node';
import { consoleSummary, fileReporter, runContractSuite, type SuiteResult } from '../../src/index.js';
import { MOCK_CONFIG } from '../helpers.js';
import { MUTANTS } from '../mutants/mutants.js';

// A faulty mock over HTTP: DELETE /api/session answers 204 but the token keeps working.
let server: MockServer;
let faulty: Server;
let baseUrl: string;

beforeAll(async () => {
  server = await createMockServer({ port: 0 });
  const handle = MUTANTS.find((m) => m.id === 'token-valid-after-delete')!.wrap((request) => fetch(request));
  faulty = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = chunks.length ? Buffer.concat(chunks) : undefined;
    const answer = await handle(
      new Request(`${server.url}${req.url}`, {
        method: req.method,
        headers: Object.entries(req.headers).filter((h): h is [string, string] => typeof h[1] === 'string'),
        ...(body && req.method !== 'GET' && req.method !== 'HEAD' ? { body } : {}),
      }),
    );
    res.writeHead(answer.status, Object.fromEntries(answer.headers));
    res.end(Buffer.from(await answer.arrayBuffer()));
  });
  await new Promise<void>((resolve) => faulty.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(faulty.address() as AddressInfo).port}`;
});
afterAll(async () => {
  faulty?.close();
  await server?.close();
});

async function failingRun(showSecrets: boolean, reports?: string): Promise<SuiteResult> {
  return runContractSuite({
    baseUrl,
    config: { ...MOCK_CONFIG, capabilities: { ...MOCK_CONFIG.capabilities, controlApi: `${server.url}/__mock` } },
    profile: 'full',
    selection: { ids: ['session.lifecycle'] },
    seed: 1,
    showSecrets,
    ...(reports ? { reporters: [fileReporter(reports)] } : {}),
  });
}

test('a failed test carries a curl reproducer of its failing request, in the console, JUnit and HTML, with the token as a placeholder', async () => {
  const reports = mkdtempSync(path.join(tmpdir(), 'restoapi-curl-'));
  const result = await failingRun(false, reports);
  const failed = result.results[0]!;
  expect(failed.status).toBe('failed');
  const curl = failed.reproducers!.at(-1)!;
  expect(curl).toMatch(
    /^curl -sS -i -X GET '[^']+\/api\/session' -H "authorization: Token token=\\"\$RESTOAPI_TOKEN\\""$/,
  );
  for (const text of [
    consoleSummary(result),
    readFileSync(path.join(reports, 'junit.xml'), 'utf8'),
    readFileSync(path.join(reports, 'traceability.html'), 'utf8'),
  ])
    expect(text).toContain('reproduce with curl (RESTOAPI_TOKEN: a session token of the same role)');
  expect(consoleSummary(result)).toContain(curl);
  expect(readFileSync(path.join(reports, 'junit.xml'), 'utf8')).toContain('$RESTOAPI_TOKEN');
  expect(readFileSync(path.join(reports, 'traceability.html'), 'utf8')).toContain('$RESTOAPI_TOKEN');

  // Run as printed, with a token the fault keeps alive, it shows the same answer: 200 where 401 was expected.
  const login = await fetch(`${baseUrl}/api/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'login=admin%40pizza.demo&password=demo',
  });
  const token = ((await login.json()) as { meta: { token: string } }).meta.token;
  await fetch(`${baseUrl}/api/session`, { method: 'DELETE', headers: { Authorization: `Token token="${token}"` } });
  // Asynchronously: the faulty server answers from this process.
  const { stdout: output } = await promisify(execFile)('sh', ['-c', curl], {
    env: { ...process.env, RESTOAPI_TOKEN: token },
    encoding: 'utf8',
  });
  expect(output).toMatch(/^HTTP\/1\.1 200/);
  expect(JSON.stringify(result)).not.toContain(token);
}, 60_000);

test('--show-secrets puts the real token into the reproducers', async () => {
  const result = await failingRun(true);
  const curl = result.results[0]!.reproducers!.at(-1)!;
  expect(curl).not.toContain('$RESTOAPI_TOKEN');
  expect(curl).toMatch(/-H 'authorization: Token token="[^"$]+"'/);
}, 60_000);
