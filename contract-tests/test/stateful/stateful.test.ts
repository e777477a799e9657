import { afterAll, expect, test } from 'vitest';
import { createMock } from '@restoapi/mock-server';
import { runContractSuite, type RunOptions, type TestResult } from '../../src/index.js';
import { sampledRuns } from '../../../scripts/testing/test-mode.js';
import { IN_PROCESS_URL, MOCK_CONFIG, fetchOf } from '../helpers.js';
import { SEQUENCE_MUTANTS } from '../mutants/mutants.js';

const mock = createMock();
afterAll(() => mock.close());

test('every stateful machine agrees with the mock under the full profile', async () => {
  const started = Date.now();
  const result = await runContractSuite({
    baseUrl: IN_PROCESS_URL,
    fetch: mock.fetch,
    config: MOCK_CONFIG,
    profile: 'full',
    selection: 'stateful',
    seed: 5,
    // 20 sequences per machine in the full run, the first 5 of them in npm test.
    stateful: { runs: sampledRuns(5, 20) },
  });
  console.log(
    `stateful tests: ${result.results.map((r) => `${r.id} ${r.requests} requests ${r.durationMs} ms`).join(', ')} (${Date.now() - started} ms)`,
  );
  expect(result.results.map((r) => `${r.id}: ${r.status} ${r.failure ?? r.skipReason ?? ''}`)).toEqual(
    result.results.map((r) => `${r.id}: passed `),
  );
  expect(result.results.map((r) => r.id)).toEqual([
    'stateful.sessions',
    'stateful.menu',
    'stateful.zones',
    'stateful.orders',
    'stateful.imports',
    'stateful.records',
  ]);
}, 120_000);

const tokenMutant = SEQUENCE_MUTANTS.find((m) => m.id === 'token-dies-after-second-use')!;

async function sessionsAgainstMutant(options: Partial<RunOptions> = {}): Promise<TestResult> {
  const faulty = createMock();
  try {
    const result = await runContractSuite({
      baseUrl: IN_PROCESS_URL,
      fetch: fetchOf(tokenMutant.wrap(faulty.handle)),
      config: MOCK_CONFIG,
      profile: 'spec',
      selection: { ids: ['stateful.sessions'] },
      seed: 21,
      ...options,
    });
    return result.results[0]!;
  } finally {
    faulty.close();
  }
}

test('a failing sequence is shrunk, printed as numbered requests and answers, and replayed exactly by its path', async () => {
  const failed = await sessionsAgainstMutant();
  expect(failed.status).toBe('failed');
  const failure = failed.failure!;
  // The shortest sequence that shows the fault: a login and three uses of its token.
  expect(failure).toMatch(/^a sequence of 4 commands breaks the model/);
  expect(failure).toMatch(/\n {2}1\. login\(\w+\)\n {5}1\.1 POST \/api\/session → 200 /);
  expect(failure).toMatch(
    /\n {2}4\. use\(session 0 from the newest, GET \/api\/session\)\n {5}4\.1 GET \/api\/session → 401 /,
  );
  expect(failure).toMatch(/✘ at step 4: using the live session of \w+: GET \/api\/session answered 401, expected 200/);
  const replay = /replay exactly: --seed 21 --replay (stateful\.sessions)=(\S+)/.exec(failure)!;
  const again = await sessionsAgainstMutant({ stateful: { replay: { testId: replay[1]!, path: replay[2]! } } });
  // The replay runs the one sequence: the same commands, requests and answers (tokens differ per login).
  const steps = (text: string): string[] => text.split('\n').filter((line) => /^ {2}\d+\. /.test(line));
  expect(steps(again.failure!)).toEqual(steps(failure));
  expect(again.requests).toBeLessThan(failed.requests);
  // The replayed sequence against the correct mock passes, and says so.
  const fixed = await runContractSuite({
    baseUrl: IN_PROCESS_URL,
    fetch: mock.fetch,
    config: MOCK_CONFIG,
    selection: { ids: ['stateful.sessions'] },
    seed: 21,
    stateful: { replay: { testId: replay[1]!, path: replay[2]! } },
  });
  expect(fixed.results[0]!.status).toBe('passed');
  expect(fixed.results[0]!.warnings).toEqual([
    expect.stringMatching(/^checked under the full profile only: the body of GET \/api\/session/),
    `replayed sequence ${replay[2]}: it passes now`,
  ]);
}, 120_000);

test('runs and sequence length are settings: sequences shorter than the fault never find it', async () => {
  const short = await sessionsAgainstMutant({ stateful: { maxCommands: 3, runs: 30 } });
  expect(short.status).toBe('passed');
  const configured = await sessionsAgainstMutant({ config: { ...MOCK_CONFIG, stateful: { runs: 1, maxCommands: 1 } } });
  expect(configured.status).toBe('passed');
  expect(configured.requests).toBeLessThanOrEqual(4);
}, 120_000);

test('without a control API the machines change only their own records and say what they skipped; without mutations only sessions run', async () => {
  // Without a control API nothing moves the mock's clock: imports take their time (here 50 ms, not the default 3 s).
  const slowClock = createMock({ config: { importDurationMs: 50 } });
  const noControl = await runContractSuite({
    baseUrl: IN_PROCESS_URL,
    fetch: slowClock.fetch,
    config: { ...MOCK_CONFIG, capabilities: { ...MOCK_CONFIG.capabilities, controlApi: false, menuImport: false } },
    profile: 'full',
    selection: 'stateful',
    seed: 8,
  });
  expect(noControl.results.map((r) => `${r.id}: ${r.status}${r.failure ?? ''}`)).toEqual(
    noControl.results.map((r) => `${r.id}: passed`),
  );
  const menu = noControl.results.find((r) => r.id === 'stateful.menu')!;
  expect(menu.warnings).toContain(
    'skipped: publish() and readStorefront(): only the control API shows the storefront (capabilities.controlApi)',
  );
  expect(menu.warnings.some((w) => w.startsWith('no reset between sequences'))).toBe(true);
  expect(noControl.results.find((r) => r.id === 'stateful.orders')!.warnings).toContainEqual(
    expect.stringMatching(/^skipped: the carrier view and delivery updates \(they need the control API/),
  );
  expect(noControl.results.find((r) => r.id === 'stateful.imports')!.warnings).toEqual(
    expect.arrayContaining([
      'skipped: the menu import commands: they replace the whole draft menu (capabilities.menuImport)',
      'skipped: client imports with from_scratch=true: they delete every imported client (they need resets)',
      "3 of 20 sequences: without the control API's clock every import runs in real time",
    ]),
  );
  slowClock.close();
  const readOnly = await runContractSuite({
    baseUrl: IN_PROCESS_URL,
    fetch: mock.fetch,
    config: { ...MOCK_CONFIG, capabilities: { ...MOCK_CONFIG.capabilities, mutations: false } },
    profile: 'full',
    selection: 'stateful',
    seed: 8,
  });
  expect(readOnly.results.map((r) => `${r.id}: ${r.status} ${r.skipReason ?? ''}`)).toEqual([
    'stateful.sessions: passed ',
    'stateful.menu: skipped changes data, but capabilities.mutations is false',
    'stateful.zones: skipped changes data, but capabilities.mutations is false',
    'stateful.orders: skipped changes data, but capabilities.mutations is false',
    'stateful.imports: skipped changes data, but capabilities.mutations is false',
    'stateful.records: skipped changes data, but capabilities.mutations is false',
  ]);
}, 120_000);

test('the order machine reads the carrier view and updates the delivery, and kills a delivery update that breaks only the second time', async () => {
  const mutant = SEQUENCE_MUTANTS.find((m) => m.id === 'courier-phone-lost-after-second-delivery-update')!;
  const run = async (fetch: typeof mock.fetch): Promise<TestResult> =>
    (
      await runContractSuite({
        baseUrl: IN_PROCESS_URL,
        fetch,
        config: MOCK_CONFIG,
        profile: 'full',
        selection: { ids: ['stateful.orders'] },
        seed: 5,
      })
    ).results[0]!;
  const passed = await run(mock.fetch);
  expect(passed.status).toBe('passed');
  expect(passed.warnings).not.toContainEqual(expect.stringMatching(/skipped: the carrier view/));
  const faulty = createMock();
  try {
    const failed = await run(fetchOf(mutant.wrap(faulty.handle)));
    expect(failed.status).toBe('failed');
    // The shortest sequence: two delivery updates, the second of them sending a courier_phone.
    expect(failed.failure).toMatch(
      /\n {2}1\. updateDelivery\(.*\n {5}1\.1 PUT \/api-delivery\/orders\/\S+\/delivery → 200 /,
    );
    expect(failed.failure).toMatch(/\n {2}2\. updateDelivery\([^\n]*courier_phone=/);
    expect(failed.failure).toMatch(/✘ at step 2: .*delivery block of order \d+/);
  } finally {
    faulty.close();
  }
}, 120_000);
