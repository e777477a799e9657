import { afterAll, expect, test } from 'vitest';
import { createMock, demoSeedWithOrders } from '@restoapi/mock-server';
import { runContractSuite, type Profile, type Selection } from '../../src/index.js';
import { FULL_RUN } from '../../../scripts/testing/test-mode.js';
import { IN_PROCESS_URL, MOCK_CONFIG } from '../helpers.js';

/** How many orders the crowded service holds beside the demo world's. */
const CROWD = 100_000;

/**
 * A service with that many orders is a deployment: it has no control API (no reset to a small world, no clock to
 * move). Both runs treat their mock so, and every test lists whatever the service holds.
 */
const DEPLOYED = {
  ...MOCK_CONFIG,
  capabilities: { ...MOCK_CONFIG.capabilities, controlApi: false, resetBetweenTests: false },
};

/**
 * The reads of an import job's state (`GET …/import/menu|clients`): a test polls them until the job ends, so their
 * number follows time (a job that takes a little longer costs a poll more), not data. They are counted apart.
 */
const JOB_POLL = /^\/api\/organizations\/\d+\/import\/(menu|clients)$/;

/**
 * `npm test`: a test of each way a test used to read a list of orders (a filter compared with the whole list,
 * the page walk, a search for its own order, an absence check, a model's views); the full run: every test.
 */
const SAMPLE: Selection = {
  ids: [
    'orders.filters',
    'orders.pagination-meta',
    'scope.courier-sees-only-its-orders',
    'imports.orders-unknown-client-id',
    'stateful.orders',
  ],
};

// Imports take 0.3 s instead of the mock's 3 s (without a control API the suite polls them in real time), so a
// run waits less; a second import still finds the first one running.
const options = {
  outboundPolicy: { photos: { mode: 'any' as const, allowHosts: [] } },
  config: { importDurationMs: 300 },
};
const demo = createMock(options);
const crowded = createMock({ ...options, state: demoSeedWithOrders(CROWD, new Date()) });
afterAll(() => {
  demo.close();
  crowded.close();
});

/** Each test's verdict and its requests but the polls of an import job, in one run; the polls apart. */
async function perTest(
  mock: typeof demo,
  profile: Profile,
): Promise<{ verdicts: Record<string, string>; polls: Record<string, number> }> {
  let polled = 0;
  const polls: Record<string, number> = {};
  const fetch = ((input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    if (request.method === 'GET' && JOB_POLL.test(new URL(request.url).pathname)) polled += 1;
    return mock.fetch(request);
  }) as typeof globalThis.fetch;
  const result = await runContractSuite({
    baseUrl: IN_PROCESS_URL,
    fetch,
    config: DEPLOYED,
    profile,
    seed: 36,
    selection: FULL_RUN ? 'all' : SAMPLE,
    // Two sequences per model: they read every view after every write from the first one on, and what scales
    // with the data is a read, not the number of sequences.
    stateful: { runs: 2 },
    reporters: [
      {
        onTestEnd(test) {
          polls[test.id] = polled;
          polled = 0;
        },
      },
    ],
  });
  // A failure is named with its message: the verdict tables compared below show only that it failed.
  for (const r of result.results)
    if (r.status === 'failed')
      console.log(`${profile} ${r.id} failed against ${mock === demo ? 'the demo' : 'the crowd'}: ${r.failure}`);
  const verdicts = Object.fromEntries(
    result.results.map((r) => [r.id, `${r.status}, ${r.requests - (polls[r.id] ?? 0)} requests`]),
  );
  return { verdicts, polls };
}

// Issue 36: "a run against a service with 100,000 orders finishes in the same number of requests as against the
// demo": no test pages through everything. Same seed, same tests: each test sends as many requests, and ends the
// same way, against the demo world and against it with 100,000 more orders.
test.each(['spec', 'full'] as const)(
  `%s profile: each test sends as many requests against ${CROWD.toLocaleString('en')} orders as against the demo (${FULL_RUN ? 'every test' : 'a sample of 5 tests; every test in npm run test:all'})`,
  async (profile) => {
    const small = await perTest(demo, profile);
    const large = await perTest(crowded, profile);
    expect(Object.keys(small.verdicts).length).toBeGreaterThanOrEqual(5);
    const sent = (run: Record<string, string>): number =>
      Object.values(run).reduce((sum, verdict) => sum + Number(/(\d+) requests/.exec(verdict)![1]), 0);
    const polled = (run: Record<string, number>): number => Object.values(run).reduce((sum, n) => sum + n, 0);
    console.log(
      `${profile}: ${Object.keys(small.verdicts).length} tests, ${sent(small.verdicts)} requests but job polls (demo) / ${sent(large.verdicts)} (100,000 orders); job polls ${polled(small.polls)} / ${polled(large.polls)}`,
    );
    expect(large.verdicts).toEqual(small.verdicts);
  },
  FULL_RUN ? 600_000 : 120_000,
);
