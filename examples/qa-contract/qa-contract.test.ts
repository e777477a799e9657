import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createMockServer, type MockServer } from '@restoapi/mock-server/node';
import { contractArgs, restoapiContract } from './qa-contract.js';

let server: MockServer;
beforeAll(async () => {
  server = await createMockServer({ port: 0 });
});
afterAll(() => server.close());

test('the restoapi-contract command passes against the mock and writes JUnit and traceability reports', async () => {
  const reports = await mkdtemp(path.join(tmpdir(), 'qa-contract-'));
  const code = await restoapiContract(
    contractArgs(server.url, reports, ['--grep', 'session.*', 'orders.*', 'limits.*']),
  );
  expect(code).toBe(0);
  const junit = await readFile(path.join(reports, 'junit.xml'), 'utf8');
  expect(junit).toMatch(/<testsuites name="restoapi-contract"[^>]* failures="0"/);
  const matrix = await readFile(path.join(reports, 'traceability.md'), 'utf8');
  expect(matrix).toContain('Endpoints > Session: DELETE /api/session');
  expect(await readFile(path.join(reports, 'traceability.html'), 'utf8')).toContain('<table');
}, 60_000);
