/**
 * Distance changes nothing (issue 36): through a proxy that delays every request by 40 ms, the suite's verdicts
 * against the mock are those it gives without the delay. A test stopped for slowness ends incomplete, not failed,
 * and leaves no request running behind it.
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createMockServer, type MockServer } from '@restoapi/mock-server/node';
import { fullRunOnly } from '../../../scripts/testing/test-mode.js';
import { runContractSuite, selectTests, type Profile, type RunOptions, type SuiteResult } from '../../src/index.js';
import { MOCK_CONFIG } from '../helpers.js';
import { startDelayProxy, type DelayProxy } from './delay-proxy.js';

const DELAY_MS = 40;

let server: MockServer;
let proxy: DelayProxy;
beforeAll(async () => {
  server = await createMockServer({ port: 0 });
  proxy = await startDelayProxy(server.url, DELAY_MS);
});
afterAll(async () => {
  await proxy.close();
  await server.close();
});

/** Each test's verdict, by id. */
function verdicts(results: SuiteResult['results']): Record<string, string> {
  return Object.fromEntries(results.map((r) => [r.id, r.status]));
}

/** Settles when the last run started by {@link oneStartAtATime} has begun its first test. */
let starting: Promise<void> = Promise.resolve();

/**
 * Runs the suite once the run started before it has begun its first test. A run's start (compiling the document's
 * validators, then the 10 s preflight request) is work of this thread, as are the mocks that answer: sixteen shares
 * starting at once held the thread long enough for other shares' preflights to time out on a busy machine.
 */
async function oneStartAtATime(options: RunOptions): Promise<SuiteResult> {
  const before = starting;
  let started!: () => void;
  starting = new Promise((resolve) => (started = resolve));
  await before;
  try {
    return await runContractSuite({ ...options, reporters: [...(options.reporters ?? []), { onStart: started }] });
  } finally {
    started();
  }
}

/** The same run straight to the mock and through the delaying proxy; answers both verdict tables. */
async function nearAndFar(
  profile: Profile,
  extra: Partial<RunOptions>,
): Promise<{ near: SuiteResult; far: SuiteResult }> {
  const options = { config: MOCK_CONFIG, profile, seed: 11, ...extra };
  const near = await oneStartAtATime({ ...options, baseUrl: server.url });
  const far = await oneStartAtATime({ ...options, baseUrl: proxy.url });
  const requests = (r: SuiteResult): number => r.results.reduce((n, x) => n + x.requests, 0);
  console.log(
    `${profile}: without delay ${JSON.stringify(near.summary)} in ${near.durationMs} ms (${requests(near)} requests); ` +
      `through ${DELAY_MS} ms ${JSON.stringify(far.summary)} in ${far.durationMs} ms (${requests(far)} requests)`,
  );
  return { near, far };
}

/** A cheap sample: session, scope and list tests, and a stateful machine with few sequences. */
const SAMPLE: RunOptions['selection'] = {
  ids: ['session.*', 'scope.courier-*', 'orders.pagination-meta', 'stateful.sessions'],
};

for (const profile of ['spec', 'full'] as const)
  test(`${profile}: a sample of the suite gives the same verdicts through a ${DELAY_MS} ms delay as without it`, async () => {
    const { near, far } = await nearAndFar(profile, { selection: SAMPLE, stateful: { runs: 2 } });
    expect(near.summary.total).toBeGreaterThanOrEqual(8);
    expect(verdicts(far.results)).toEqual(verdicts(near.results));
    expect(near.summary.failed).toBe(0);
  }, 120_000);

/**
 * Shares of the whole suite that run side by side, each against its own mock and its own delaying proxy: through the
 * delay the suite mostly waits, so sixteen shares per profile, both profiles at once, take a fraction of the time of
 * one run, and together they are every test of each profile. (The profiles ran one after the other, 84 s and 113 s,
 * each as long as its share with the longest stateful machine; side by side they overlap.) Without the delay every
 * test of both profiles passes against the mock, none skipped (suite-in-process.test.ts runs the whole suite of each
 * profile there), so the same verdicts through the delay means every test passes here too. The shares are not run a
 * second time without the delay: that doubled the file's work (about 100 s of the full run) to learn what the
 * in-process run already proves. These runs are also the full run's whole suite over HTTP (real sockets, the
 * carrier API under /api-delivery), the remote-photo import over loopback included (these mocks fetch photos from
 * any host).
 */
const SHARDS = 16;

/** Every test of `profile`, in {@link SHARDS} shares side by side through the delay; their results joined. */
async function wholeSuiteFar(profile: Profile): Promise<SuiteResult['results']> {
  const shares = await Promise.all(
    Array.from({ length: SHARDS }, async (_, i) => {
      // The suite serves the remote photos of its import test on loopback: this mock is told to fetch them.
      const own = await createMockServer({ port: 0, outboundPolicy: { photos: { mode: 'any', allowHosts: [] } } });
      const ownProxy = await startDelayProxy(own.url, DELAY_MS);
      try {
        const far = await oneStartAtATime({
          config: MOCK_CONFIG,
          profile,
          seed: 11,
          baseUrl: ownProxy.url,
          shard: { index: i + 1, total: SHARDS },
        });
        console.log(
          `${profile} share ${i + 1}/${SHARDS} through ${DELAY_MS} ms: ${JSON.stringify(far.summary)} in ${far.durationMs} ms (${far.results.reduce((n, x) => n + x.requests, 0)} requests)`,
        );
        return far;
      } finally {
        await ownProxy.close();
        await own.close();
      }
    }),
  );
  // The shares ran against different mocks, so their results are joined here rather than merged as one run's.
  return shares.flatMap((share) => share.results);
}

fullRunOnly(
  `spec and full: the whole suite gives the same verdicts through a ${DELAY_MS} ms delay as without it (${SHARDS} shares of each profile side by side)`,
  'about 2 minutes, the shares side by side',
)(async () => {
  const profiles = ['spec', 'full'] as const;
  const results = await Promise.all(profiles.map(wholeSuiteFar));
  profiles.forEach((profile, i) => {
    const far = results[i]!;
    // Complete: every test of the profile, once.
    const ids = selectTests(profile, 'all').map((t) => t.id);
    expect(far.map((r) => r.id).sort(), profile).toEqual([...ids].sort());
    // The verdicts without the delay: every test passed.
    expect(
      far
        .filter((r) => r.status !== 'passed')
        .map((r) => `${profile} ${r.id}: ${r.status} ${r.failure ?? r.incompleteReason ?? r.skipReason ?? ''}`),
    ).toEqual([]);
  });
}, 900_000);

test('a test out of budget because the service is slow ends incomplete, and none of its requests goes on after it', async () => {
  // A budget far too small for the delay: 2 s plus 1 ms per request, where each request takes over 40 ms.
  const tight = { ...MOCK_CONFIG, timeouts: { ...MOCK_CONFIG.timeouts, testMs: 2000, perRequestMs: 1 } };
  const result = await runContractSuite({
    baseUrl: proxy.url,
    config: tight,
    profile: 'spec',
    seed: 11,
    selection: { ids: ['stateful.menu'] },
  });
  const [menu] = result.results;
  expect(menu?.status).toBe('incomplete');
  expect(menu?.incompleteReason).toMatch(/answered slower than the round trip measured at the start/);
  expect(menu?.warnings.some((w) => w.startsWith('incomplete: '))).toBe(true);
  expect(result.summary).toMatchObject({ failed: 0, incomplete: 1 });
  // The proxy still delivers what was on the wire when the test stopped; after that, nothing more arrives.
  await new Promise((resolve) => setTimeout(resolve, 3 * DELAY_MS));
  const after = proxy.received;
  await new Promise((resolve) => setTimeout(resolve, 10 * DELAY_MS));
  expect(proxy.received).toBe(after);
}, 60_000);
