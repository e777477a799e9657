import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect } from 'vitest';
import { createApiDescription } from '@restoapi/openapi';
import { createMockServer, type MockServer } from '@restoapi/mock-server/node';
import { startPrism, type RunningPrism } from '../../scripts/testing/start-prism.js';
import { fullRunOnly } from '../../scripts/testing/test-mode.js';
import { runContractSuite } from '../src/index.js';
import { MOCK_CONFIG, unexpectedFailures } from './helpers.js';

// Prism, a tool we did not write, opens the multi-file root openapi/openapi.yaml and stands as a
// validating proxy in front of the mock while the whole contract suite runs through it. Prism
// reports what it finds in each answer's `sl-violations` header.
const root = fileURLToPath(new URL('../../openapi/openapi.yaml', import.meta.url));
const api = createApiDescription();
let mock: MockServer;
let prism: RunningPrism;

beforeAll(async () => {
  mock = await createMockServer({ port: 0 });
  prism = await startPrism({ document: root, upstream: mock.url, timeoutMs: 60_000 });
}, 90_000);

afterAll(async () => {
  prism?.stop();
  await mock?.close();
});

interface Violation {
  location: string[];
  severity: string;
  message: string;
}

fullRunOnly(
  'the whole suite passes through Prism as a validating proxy: no response violation, every route found',
  'the whole suite through a third-party proxy; npm test runs it in process and over HTTP',
)(async () => {
  const seen: { method: string; path: string; violations: Violation[]; byPrism: boolean; multipart: boolean }[] = [];
  const recording: typeof fetch = async (input, init) => {
    const response = await fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.origin === prism.url) {
      const header = response.headers.get('sl-violations');
      const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
      seen.push({
        method,
        path: url.pathname,
        violations: header ? (JSON.parse(header) as Violation[]) : [],
        // Prism answers a body that is not JSON itself (the mock sets X-Request-Id on every answer).
        byPrism: !response.headers.has('x-request-id'),
        multipart: init?.body instanceof FormData,
      });
    }
    return response;
  };
  const result = await runContractSuite({
    baseUrl: prism.url,
    // The control API is the mock's own (not part of the document): it is reached directly.
    config: { ...MOCK_CONFIG, capabilities: { ...MOCK_CONFIG.capabilities, controlApi: `${mock.url}/__mock` } },
    profile: 'full',
    // The stateful tests stay out: a failing sequence prints dozens of requests, so matching its failure to a
    // request Prism answered itself would explain it by accident. They run against the mock directly.
    selection: { kinds: ['conformance', 'behaviour', 'decision', 'negative'] },
    seed: 11,
    fetch: recording,
  });
  expect(result.summary.skipped).toBe(0);
  // What fails through Prism is Prism's doing, never the mock's or the document's: Prism answers a
  // request body made invalid on purpose itself (400 with its own body, not the API's error body),
  // and its proxy re-encodes binary multipart parts, so an uploaded image arrives corrupted.
  // A JSON body of the wrong type Prism flags on the request side and forwards re-encoded (a JSON
  // string "text" arrives as text), so the answer differs from the one the suite expects.
  const prismsDoing = seen
    .filter((r) => r.byPrism || r.multipart || r.violations.some((v) => v.location[0] === 'request'))
    .map((r) => `${r.method} ${r.path}`);
  const unexplained = unexpectedFailures(result).filter((failure) => !prismsDoing.some((req) => failure.includes(req)));
  expect(unexplained).toEqual([]);

  // Prism knows the operations at their documented paths; the alias forms a generic tool cannot know
  // (x-aliases: `/orders…`, `/api/draft_dishes/`) are sent only by the tests of those forms.
  const canonical = (r: { method: string; path: string }): boolean => {
    const op = api.match(r.method, r.path)?.operation;
    return op !== undefined && new RegExp(`^${op.path.replace(/\{[^}]+\}/g, '[^/]+')}$`).test(r.path);
  };
  const aliases = seen.filter((r) => api.match(r.method, r.path) && !canonical(r));
  const responseViolations = seen
    .filter(canonical)
    .flatMap((r) =>
      r.violations
        .filter((v) => v.location[0] === 'response')
        .map((v) => `${r.method} ${r.path}: ${v.location.join('.')} ${v.message}`),
    );
  expect(responseViolations).toEqual([]);
  const unresolved = seen.filter((r) => r.violations.some((v) => /route not found/i.test(v.message)));
  const documented = unresolved.filter(canonical);
  expect(documented.map((r) => `${r.method} ${r.path}`)).toEqual([]);

  const requestSide = seen.filter((r) => r.violations.some((v) => v.location[0] === 'request')).length;
  console.log(
    `through Prism: ${seen.length} requests, ${result.summary.passed} tests passed, ${result.summary.failed} failed ` +
      `(Prism answered ${seen.filter((r) => r.byPrism).length} invalid bodies itself, ` +
      `${seen.filter((r) => r.multipart).length} multipart uploads); ` +
      `${responseViolations.length} response violations, ${documented.length} documented routes not found, ` +
      `${aliases.length} requests to alias forms, ${unresolved.length} routes not found in all, ` +
      `${requestSide} requests flagged on the request side`,
  );
}, 300_000);
