/**
 * `npm run bench -w @restoapi/contract-tests`: how long both profiles take against the in-process
 * mock, with and without the stateful tests (target: under 60 s on a 2-core machine), and the full
 * profile over HTTP on loopback, measured in one run. Printed, never asserted.
 */
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
    `${label.padEnd(32)} ${seconds.toFixed(1).padStart(6)} s   ${count('passed')} passed, ${count('failed')} failed, ${count('skipped')} skipped`,
  );
  return seconds;
}

const selections: [string, Selection][] = [
  ['with the stateful tests', 'all'],
  ['without', { kinds: ['conformance', 'behaviour', 'decision', 'negative'] }],
];
const seconds: Record<string, number> = {};
for (const profile of ['full', 'spec'] as const) {
  for (const [what, selection] of selections) {
    const mock = createMock();
    seconds[`${profile} ${what}`] = await timed(`${profile} profile, in-process, ${what}`, () =>
      runContractSuite({ baseUrl: IN_PROCESS_URL, fetch: mock.fetch, config: MOCK_CONFIG, profile, selection }),
    );
    mock.close();
  }
}
const inProcess = seconds['full with the stateful tests']!;

const server = await createMockServer({ port: 0 });
const overHttp = await timed('full profile, HTTP on loopback', () =>
  runContractSuite({ baseUrl: server.url, config: MOCK_CONFIG, profile: 'full' }),
);
await server.close();

console.log(
  `\nin-process, full: ${inProcess.toFixed(1)} s of the 60 s budget (${((inProcess / 60) * 100).toFixed(0)} %) ${inProcess < 60 ? 'ok' : 'OVER BUDGET'}; spec: ${seconds['spec with the stateful tests']!.toFixed(1)} s`,
);
console.log(`HTTP / in-process: ${(overHttp / inProcess).toFixed(2)}×`);
