import { afterAll, beforeAll, expect } from 'vitest';
import { createMockServer, type MockServer } from '@restoapi/mock-server/node';
import { runContractSuite } from '../src/index.js';
import { FULL_RUN, fullRunOnly } from '../../scripts/testing/test-mode.js';
import { MOCK_CONFIG, unexpectedFailures } from './helpers.js';

let server: MockServer;
beforeAll(async () => {
  if (!FULL_RUN) return;
  // The suite serves the remote photos of its import test on loopback: this mock is told to fetch them.
  server = await createMockServer({ port: 0, outboundPolicy: { photos: { mode: 'any', allowHosts: [] } } });
});
afterAll(() => server?.close());

// npm test runs the whole suite over HTTP once, as the README's "Try it" run (cli.test.ts: the mock's and the
// suite's programs); this run adds the remote-photo import over loopback, which that mock declines (a warning).
fullRunOnly(
  'the suite passes against the mock over HTTP (real sockets, the carrier API under /api-delivery)',
  'npm test runs the whole suite over HTTP in cli.test.ts, the README\'s "Try it" run',
)(async () => {
  const result = await runContractSuite({ baseUrl: server.url, config: MOCK_CONFIG, profile: 'full', seed: 11 });
  console.log(
    `over HTTP: ${result.summary.passed} passed, ${result.summary.failed} failed, ${result.summary.skipped} skipped in ${(result.durationMs / 1000).toFixed(1)} s`,
  );
  expect(unexpectedFailures(result)).toEqual([]);
  expect(result.summary.skipped).toBe(0);
}, 120_000);
