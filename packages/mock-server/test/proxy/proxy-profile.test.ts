/**
 * The proxy judges answers as the contract suite does. In front of a service that is the mock except
 * where it decided differently on points the spec leaves open (publish answers 204 without a body, a
 * finished import says `finished`) and that breaks one stated rule (`final_sum` as a string), the `spec`
 * profile warns about the decided departures, naming each decision, and fails only the stated one: live,
 * in `GET /__proxy/report`, in JUnit and in HTML. `full` makes every departure a violation.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { XMLParser } from 'fast-xml-parser';
import { afterEach, expect, test } from 'vitest';
import {
  DEPARTURES,
  startIndependentService,
  type DepartureName,
} from '../../../../scripts/testing/independent-service.js';
import { createMockServer } from '../../src/node.js';
import { formatWarning } from '../../src/proxy/live-printer.js';
import type { ProxyReportJson } from '../../src/proxy/proxy-report.js';
import { createProxyServer } from '../../src/proxy/proxy-server.js';
import { junitXml, reportHtml } from '../../src/proxy/report-files.js';
import type { Violation } from '../../src/proxy/violation.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

/** The mock, except for two decisions of its own and one broken rule of the spec. */
async function otherService(): Promise<string> {
  const mock = await createMockServer({ port: 0 });
  cleanups.push(() => mock.close());
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const path = req.url ?? '/';
        if (req.method === 'GET' && /^\/api\/organizations\/\d+\/import\/menu$/.test(path)) {
          // Its own name for a finished job.
          res.writeHead(200, { 'Content-Type': 'application/json' });
          res.end(
            JSON.stringify({
              status: 'idle',
              job_id: '7f9c2ba4e88f827d61604550',
              job_status: 'finished',
              job_message: 'Imported 2 categories and 3 dishes.',
              job_percent: 100,
            }),
          );
          return;
        }
        const answer = await fetch(mock.url + path, {
          method: req.method,
          headers: { ...(req.headers.authorization ? { Authorization: req.headers.authorization } : {}) },
          ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
        });
        if (req.method === 'POST' && /\/publish$/.test(path) && answer.ok) {
          res.writeHead(204).end();
          return;
        }
        let text = await answer.text();
        // The one stated rule it breaks: a sum is a number, not a string.
        if (/^\/api\/orders\/\d+$/.test(path))
          text = text.replace(/"final_sum":([\d.]+)/, (_all, sum: string) => `"final_sum":"${sum}"`);
        res.writeHead(answer.status, { 'Content-Type': answer.headers.get('content-type') ?? 'text/plain' });
        res.end(text);
      })();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A staff member publishes, reads the import state and opens an order through a proxy with `profile`. */
async function session(profile?: 'spec' | 'full'): Promise<{
  report: ProxyReportJson;
  violations: Violation[];
  warnings: Violation[];
  statuses: number[];
}> {
  const violations: Violation[] = [];
  const warnings: Violation[] = [];
  const proxy = await createProxyServer({
    upstream: await otherService(),
    ...(profile ? { profile } : {}),
    onViolation: (v) => violations.push(v),
    onWarning: (w) => warnings.push(w),
  });
  cleanups.push(() => proxy.close());
  const login = await fetch(`${proxy.url}/api/session?login=admin@pizza.demo&password=demo`, { method: 'POST' });
  const { meta } = (await login.json()) as { meta: { token: string } };
  const headers = { Authorization: `Token token="${meta.token}"` };
  const statuses = [];
  for (const [method, path] of [
    ['POST', '/api/organizations/1/publish'],
    ['GET', '/api/organizations/1/import/menu'],
    ['GET', '/api/orders/5001'],
  ] as const)
    statuses.push((await fetch(proxy.url + path, { method, headers })).status);
  return { report: proxy.report(), violations, warnings, statuses };
}

test('under spec (the default) decided departures are warnings naming their decision; the stated one is the only violation', async () => {
  const { report, violations, warnings, statuses } = await session();
  // The answers pass through unchanged.
  expect(statuses).toEqual([204, 200, 200]);
  expect(violations.map((v) => `${v.operationId} ${v.pointer} ${v.keyword}`)).toEqual([
    'getOrder /order/final_sum type',
  ]);
  expect(violations[0]!.decision).toBeUndefined();
  expect(warnings.map((w) => `${w.operationId} ${w.pointer || '(whole)'} ${w.keyword}`)).toEqual([
    'publishMenu (whole) status',
    // `job_status` is a decided enum or null: the validator names both branches.
    'getMenuImport /job_status enum',
    'getMenuImport /job_status type',
  ]);
  for (const warning of warnings) {
    expect(warning.decision!.entry).toMatch(/^DECISIONS\.md#[\w-]+$/);
    expect(formatWarning(warning)).toMatch(
      /^\[warning\] .* — the spec does not state this, the document decided: .+ \(openapi\/DECISIONS\.md#[\w-]+\)$/,
    );
  }
  expect(formatWarning(warnings[1]!)).toContain('got "finished"');

  expect(report).toMatchObject({ profile: 'spec', requests: 4, failed: 1, violations: 1, warnings: 3 });
  expect(report.decisions.map((d) => [d.pointer, d.count, d.routes])).toEqual([
    [warnings[1]!.decision!.pointer, 2, ['GET /api/organizations/{id}/import/menu']],
    [warnings[0]!.decision!.pointer, 1, ['POST /api/organizations/{id}/publish']],
  ]);
  const publish = report.operations.find((op) => op.operationId === 'publishMenu')!;
  expect(publish).toMatchObject({ failed: 0, warned: 1 });

  // JUnit: the stated violation fails its operation; the warned ones stay green and carry the warnings.
  const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(junitXml(report)) as {
    testsuites: { testsuite: { failures: string; testcase: Record<string, unknown>[]; properties: unknown } };
  };
  const suite = parsed.testsuites.testsuite;
  expect(suite.failures).toBe('1');
  expect(JSON.stringify(suite.properties)).toContain('"name":"warnings","value":"3"');
  const publishCase = suite.testcase.find((c) => String(c.name).includes('publishMenu'))!;
  expect(publishCase.failure).toBeUndefined();
  expect(JSON.stringify(publishCase.properties)).toContain(JSON.stringify(formatWarning(warnings[0]!)).slice(1, -1));
  expect(String(publishCase['system-out'])).toBe(formatWarning(warnings[0]!));
  expect(suite.testcase.find((c) => String(c.name).includes('getOrder'))!.failure).toBeDefined();

  // HTML: a section of warnings by decision, each with its entry.
  const page = reportHtml(report);
  expect(page).toContain('<h2>Warnings by decision</h2>');
  for (const warning of warnings) expect(page).toContain(`<code>openapi/${warning.decision!.entry}</code>`);
});

test('under full every departure is a violation, still naming the decision it breaks', async () => {
  const { report, violations, warnings } = await session('full');
  expect(warnings).toEqual([]);
  expect(
    violations.map(
      (v) => `${v.operationId} ${v.pointer || '(whole)'} ${v.keyword} ${v.decision ? 'decided' : 'stated'}`,
    ),
  ).toEqual([
    'publishMenu (whole) status decided',
    'getMenuImport /job_status enum decided',
    'getMenuImport /job_status type decided',
    'getOrder /order/final_sum type stated',
  ]);
  expect(report).toMatchObject({ profile: 'full', failed: 3, violations: 4, warnings: 0, decisions: [] });
});

test('in front of the independent implementation (scripts/testing/independent-service.ts), spec finds no violation and warns about each departure it meets, naming its decision', async () => {
  const service = await startIndependentService({ mock: { config: { importDurationMs: 50 } } });
  cleanups.push(() => service.close());
  const violations: Violation[] = [];
  const proxy = await createProxyServer({ upstream: service.url, onViolation: (v) => violations.push(v) });
  cleanups.push(() => proxy.close());
  const login = await fetch(`${proxy.url}/api/session?login=admin@pizza.demo&password=demo`, { method: 'POST' });
  const { meta } = (await login.json()) as { meta: { token: string } };
  const headers = { Authorization: `Token token="${meta.token}"` };
  const send = (
    method: string,
    path: string,
    body?: unknown,
    auth: Record<string, string> = headers,
  ): Promise<Response> =>
    fetch(proxy.url + path, {
      method,
      headers: { ...auth, ...(body ? { 'Content-Type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
  expect((await send('GET', '/api/session')).status).toBe(200);
  expect((await send('POST', '/api/organizations/1/publish')).status).toBe(204);
  expect((await send('GET', '/api/orders/999999')).status).toBe(404);
  expect((await send('GET', '/api/orders', undefined, {})).status).toBe(401);
  const dishes = { dishes: [{ name: 'Maki', price: 4, category_name: 'Rolls' }] };
  expect((await send('POST', '/api/organizations/1/import/menu', dishes)).status).toBe(202);
  // An import has finished when its job is no longer working (whatever it then calls itself).
  for (let i = 0; i < 100; i++) {
    const state = (await (await send('GET', '/api/organizations/1/import/menu')).json()) as { job_status: unknown };
    if (state.job_status !== 'working' && state.job_status !== 'queued') break;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  expect(violations.map((v) => `${v.method} ${v.path} ${v.pointer} ${v.message}`)).toEqual([]);
  const report = proxy.report();
  expect(report.failed).toBe(0);
  const met: DepartureName[] = [
    'session-body',
    'publish-204',
    'error-object',
    'bearer-challenge',
    'job-finished',
    'numeric-job-id',
  ];
  const warned = report.decisions.map((d) => d.pointer);
  for (const name of met) expect(warned, `${name} is named by its decision`).toContain(DEPARTURES[name].decision);
  for (const d of report.decisions) expect(d.entry).toMatch(/^DECISIONS\.md#/);
});
