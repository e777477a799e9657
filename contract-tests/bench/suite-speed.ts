/**
 * `npm run bench -w @restoapi/contract-tests`: how long both profiles take against the mock over HTTP on
 * loopback, with and without the stateful tests (target: both profiles together under 60 s on a 2-core
 * machine), and the full profile in-process for comparison, measured in one run with the load average
 * beside the figures (the machine may be shared). Printed, never asserted.
 */
import { loadavg } from 'node:os';
import { createMock } from '@restoapi/mock-server';
import { createMockServer } from '@restoapi/mock-server/node';
import { runContractSuite, type Selection } from '../src/index.js';
import { IN_PROCESS_URL, MOCK_CONFIG } from '../test/helpers.js';

async function timed(label: string, run: () => Promise<{ results: { status: string }[] }>): Promise<number> {
  const started = performance.now();
  const result = await run();
  const seconds = (performance.now() - started) / 1000;
  const count = (status: string): number => result.results.filter((r) => r.status === status).length;
  console.log(
    `${label.padEnd(44)} ${seconds.toFixed(1).padStart(6)} s   ${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped`,
  );
  return seconds;
}

const load = (): string =>
  loadavg()
    .map((n) => n.toFixed(2))
    .join(' ');
console.log(`load average before: ${load()}`);

const selections: [string, Selection][] = [
  ['with the stateful tests', 'all'],
  ['without', { kinds: ['conformance', 'behaviour', 'decision', 'negative'] }],
];
const seconds: Record<string, number> = {};
for (const profile of ['full', 'spec'] as const) {
  for (const [what, selection] of selections) {
    const server = await createMockServer({ port: 0 });
    seconds[`${profile} ${what}`] = await timed(`${profile} profile, HTTP on loopback, ${what}`, () =>
      runContractSuite({ baseUrl: server.url, config: MOCK_CONFIG, profile, selection, seed: 1 }),
    );
    await server.close();
  }
}
const mock = createMock();
const inProcess = await timed('full profile, in-process, with the stateful tests', () =>
  runContractSuite({ baseUrl: IN_PROCESS_URL, fetch: mock.fetch, config: MOCK_CONFIG, profile: 'full', seed: 1 }),
);
mock.close();

const both = seconds['full with the stateful tests']! + seconds['spec with the stateful tests']!;
const without = seconds['full without']! + seconds['spec without']!;
console.log(
  `\nboth profiles over HTTP: ${both.toFixed(1)} s with the stateful tests, ${without.toFixed(1)} s without; ` +
    `${((both / 60) * 100).toFixed(0)} % of the 60 s budget ${both < 60 ? 'ok' : 'OVER BUDGET'}`,
);
console.log(`HTTP / in-process (full): ${(seconds['full with the stateful tests']! / inProcess).toFixed(2)}×`);
console.log(`load average after: ${load()}`);
