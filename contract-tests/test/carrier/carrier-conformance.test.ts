import { runSimulator, type RunningSimulator } from '@restoapi/carrier-kit/node';
import { expect, test } from 'vitest';
import { runCarrierConformance, type CarrierRunOptions } from '../../src/carrier/run-carrier.js';
import type { Profile, SuiteResult } from '../../src/runner/types.js';
import { startTestCarrier, type CarrierFault } from './test-carrier.js';

// Short, so that the whole file takes seconds; a faulty carrier's late answer is well past `ackMs`.
const timings = { ackMs: 2000, deliveryMs: 3000, graceMs: 300, quietMs: 300 };

const failedIds = (result: SuiteResult) => result.results.filter((r) => r.status === 'failed').map((r) => r.id);
const warned = (result: SuiteResult, id: string) => result.results.find((r) => r.id === id)!.warnings;

/** Runs the conformance checks against the simulator of @restoapi/carrier-kit, fast enough for a test. */
async function againstSimulator(profile: Profile, secret?: string): Promise<SuiteResult> {
  let simulator: RunningSimulator | undefined;
  try {
    return await runCarrierConformance({
      profile,
      timings,
      ...(secret ? { secret } : {}),
      async onListening(serviceUrl) {
        simulator = await runSimulator({
          baseUrl: serviceUrl,
          speedKmh: 20_000,
          tickMs: 50,
          minIntervalMs: 0,
          stopTimeoutMs: 0,
          tty: false,
          output: { write: () => true },
          ...(secret ? { secret } : {}),
        });
        return simulator.callbackUrl;
      },
    });
  } finally {
    await simulator?.stop();
  }
}

/** Runs the conformance checks against the test carrier, with one fault or none. */
async function againstTestCarrier(profile: Profile, fault?: CarrierFault): Promise<SuiteResult> {
  let carrierApi = '';
  const carrier = await startTestCarrier({
    carrierApi: () => carrierApi,
    lateAckMs: 4000,
    ...(fault ? { fault } : {}),
  });
  try {
    const options: CarrierRunOptions = {
      profile,
      timings,
      callbackUrl: carrier.callbackUrl,
      onListening(serviceUrl) {
        carrierApi = `${serviceUrl}/api-delivery`;
      },
    };
    return await runCarrierConformance(options);
  } finally {
    await carrier.close();
  }
}

test.concurrent(
  'the simulator of @restoapi/carrier-kit passes the spec profile',
  async () => {
    const result = await againstSimulator('spec');
    expect(failedIds(result)).toEqual([]);
    expect(result.ok).toBe(true);
    expect(result.summary.warnings).toBe(0);
  },
  60_000,
);

test.concurrent(
  'the simulator with a signing secret passes the full profile, signatures included',
  async () => {
    const result = await againstSimulator(
      'full',
      `whsec_${Buffer.from('a secret of the simulator, 32 bytes').toString('base64')}`,
    );
    expect(failedIds(result)).toEqual([]);
    expect(result.results.filter((r) => r.status === 'skipped').map((r) => r.id)).toEqual([]);
    expect(result.ok).toBe(true);
  },
  60_000,
);

test.concurrent(
  'the test carrier without a fault passes the full profile',
  async () => {
    const result = await againstTestCarrier('full');
    expect(failedIds(result)).toEqual([]);
    expect(result.ok).toBe(true);
  },
  60_000,
);

const FAULTS: [CarrierFault, string][] = [
  ['handles-duplicates-twice', 'carrier.duplicates'],
  ['ignores-retry-after', 'carrier.retry-after'],
  ['sends-unstated-status', 'carrier.delivery-updates'],
  ['never-delivers', 'carrier.delivered-last'],
  ['updates-cancelled-order', 'carrier.cancelled'],
  ['acknowledges-late', 'carrier.acknowledges'],
];

for (const [fault, check] of FAULTS)
  test.concurrent(
    `a carrier that ${fault.replace(/-/g, ' ')} fails ${check} under full`,
    async () => {
      const result = await againstTestCarrier('full', fault);
      const failures = result.results.filter((r) => r.status === 'failed').map((r) => `${r.id}: ${r.failure}`);
      expect(failedIds(result), failures.join('\n')).toEqual([check]);
      expect(result.ok).toBe(false);
      const failure = result.results.find((r) => r.id === check)!;
      expect(failure.failure).toBeTruthy();
    },
    60_000,
  );

test.concurrent(
  'under spec, ignoring Retry-After (a decision) is a warning, and an unstated status a failure',
  async () => {
    const [retry, status] = await Promise.all([
      againstTestCarrier('spec', 'ignores-retry-after'),
      againstTestCarrier('spec', 'sends-unstated-status'),
    ]);
    expect(failedIds(retry)).toEqual([]);
    expect(warned(retry, 'carrier.retry-after').join('\n')).toMatch(
      /Retry-After: 1, and the carrier tried again after \d+ ms/,
    );
    expect(failedIds(status)).toEqual(['carrier.delivery-updates']);
    expect(status.results.find((r) => r.id === 'carrier.delivery-updates')!.failure).toMatch(
      /"picked_up" is not one the spec lists/,
    );
    // The report's reproducer sends the carrier's refused update again.
    expect(status.results.find((r) => r.id === 'carrier.delivery-updates')!.reproducers?.[0]).toMatch(
      /^curl -sS -i -X PUT 'http:\/\/127\.0\.0\.1:\d+\/api-delivery\/orders\/[\w-]+\/delivery' -H 'content-type: application\/json' --data-binary '\{"status":"picked_up"\}'$/,
    );
  },
  60_000,
);
