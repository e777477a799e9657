import { runSimulator, type RunningSimulator } from '@restoapi/carrier-kit/node';
import { expect, test } from 'vitest';
import { judgeCarrier, recordCarrier, type CarrierRecording } from '../../src/carrier/run-carrier.js';
import type { SuiteResult } from '../../src/runner/types.js';
import { startTestCarrier, type CarrierFault, type CarrierStyle } from './test-carrier.js';

// The document's decided times, test-sized so that the file takes seconds: a faulty carrier's late answer is well
// past `ackMs`. Each leaves room for five runs side by side in one event loop on a machine busy with other work (a
// correct carrier answers at once and delivers in about a second). Only a carrier that fails a time waits it out.
// The position interval stays the document's 30 s, longer than any delivery here: a missing position is
// carrier-checks.test.ts's to find, on recorded calls, where a starved event loop cannot fake a gap.
const timings = { ackMs: 5000, deliveryMs: 10_000, graceMs: 500, quietMs: 300 };
/**
 * A carrier that leaves orders undelivered makes each scenario wait out `deliveryMs`: shorter for those, as
 * their verdict is the same whether or not a slow machine also made them late with an order they delivered.
 */
const UNDELIVERED: Partial<Record<CarrierFault, number>> = { 'never-delivers': 4000, 'delivers-only-first': 4000 };

const failedIds = (result: SuiteResult) => result.results.filter((r) => r.status === 'failed').map((r) => r.id);
const warned = (result: SuiteResult, id: string) => result.results.find((r) => r.id === id)!.warnings;

/** Records a conformance run against the simulator of @restoapi/carrier-kit, fast enough for a test. */
async function againstSimulator(secret: string): Promise<CarrierRecording> {
  let simulator: RunningSimulator | undefined;
  try {
    return await recordCarrier({
      timings,
      secret,
      async onListening(serviceUrl) {
        simulator = await runSimulator({
          baseUrl: serviceUrl,
          speedKmh: 20_000,
          tickMs: 50,
          minIntervalMs: 0,
          stopTimeoutMs: 0,
          tty: false,
          output: { write: () => true },
          secret,
        });
        return simulator.callbackUrl;
      },
    });
  } finally {
    await simulator?.stop();
  }
}

/** Records a conformance run against the test carrier, with one fault or none, in one style; judged after. */
async function againstTestCarrier(fault?: CarrierFault, style?: CarrierStyle): Promise<CarrierRecording> {
  let carrierApi = '';
  const carrier = await startTestCarrier({
    carrierApi: () => carrierApi,
    lateAckMs: 10_000,
    // Twice the grace: late for certain, and still within the next order's delivery, which the run records.
    lateUpdateMs: 2 * timings.graceMs,
    ...(fault ? { fault } : {}),
    ...(style ? { style } : {}),
  });
  try {
    return await recordCarrier({
      timings: { ...timings, deliveryMs: (fault && UNDELIVERED[fault]) ?? timings.deliveryMs },
      callbackUrl: carrier.callbackUrl,
      onListening(serviceUrl) {
        carrierApi = `${serviceUrl}/api-delivery`;
      },
    });
  } finally {
    await carrier.close();
  }
}

/** Both verdicts of one recording. */
const judged = async (recording: CarrierRecording) => ({
  spec: await judgeCarrier(recording, 'spec'),
  full: await judgeCarrier(recording, 'full'),
});
const failures = (result: SuiteResult) =>
  result.results.filter((r) => r.status === 'failed').map((r) => `${r.id}: ${r.failure}`);

test.concurrent(
  'the simulator of @restoapi/carrier-kit, with a signing secret, passes both profiles, signatures included',
  async () => {
    const { spec, full } = await judged(
      await againstSimulator(`whsec_${Buffer.from('a secret of the simulator, 32 bytes').toString('base64')}`),
    );
    expect(failures(full)).toEqual([]);
    expect(full.results.filter((r) => r.status === 'skipped').map((r) => r.id)).toEqual([]);
    expect(full.ok).toBe(true);
    expect(spec.ok).toBe(true);
    expect(spec.summary.warnings).toBe(0);
  },
  60_000,
);

const STYLES: CarrierStyle[] = ['plain', 'resends-status', 'through-problem'];

for (const style of STYLES)
  test.concurrent(
    `a correct test carrier in the ${style} style passes both profiles, with no warning`,
    async () => {
      const { spec, full } = await judged(await againstTestCarrier(undefined, style));
      expect(failures(full)).toEqual([]);
      expect(full.ok).toBe(true);
      expect(spec.ok).toBe(true);
      expect(spec.results.flatMap((r) => r.warnings)).toEqual([]);
      // Every scenario's delivery was judged: the next orders after the cancelled and refused ones too.
      expect(full.results.find((r) => r.id === 'carrier.delivered-last')!.status).toBe('passed');
    },
    60_000,
  );

/** Each fault, the one check it trips, and its verdict under `spec`: a failure (stated) or a warning (decided). */
const FAULTS: [CarrierFault, string, 'fails' | 'warns'][] = [
  ['handles-duplicates-twice', 'carrier.duplicates', 'warns'],
  ['ignores-retry-after', 'carrier.retry-after', 'warns'],
  ['sends-unstated-status', 'carrier.delivery-updates', 'fails'],
  ['never-delivers', 'carrier.delivered-last', 'warns'],
  ['updates-cancelled-order', 'carrier.cancelled', 'warns'],
  ['acknowledges-late', 'carrier.acknowledges', 'warns'],
  ['delivers-only-first', 'carrier.delivered-last', 'warns'],
];

for (const [fault, check, underSpec] of FAULTS)
  test.concurrent(
    `a carrier that ${fault.replace(/-/g, ' ')} fails ${check} under full, and ${underSpec === 'fails' ? 'fails it' : 'passes with a warning'} under spec`,
    async () => {
      const { spec, full } = await judged(await againstTestCarrier(fault));
      expect(failedIds(full), failures(full).join('\n')).toEqual([check]);
      expect(full.ok).toBe(false);
      if (underSpec === 'fails') {
        expect(failedIds(spec), failures(spec).join('\n')).toEqual([check]);
      } else {
        expect(failures(spec)).toEqual([]);
        expect(spec.ok).toBe(true);
        expect(warned(spec, check).length).toBeGreaterThan(0);
        // Each warning names the decision it departs from.
        for (const warning of warned(spec, check)) expect(warning).toMatch(/\(departs from the decision \//);
      }
      if (fault === 'delivers-only-first') {
        // Named for each order it left, with the decided time limit.
        const warnings = warned(spec, check).join('\n');
        for (const scenario of ['duplicates', 'reordered', 'cancelled', 'retry-after', 'refused'])
          expect(warnings).toContain(`${scenario}: order `);
        expect(warnings).toContain('was not reported delivered within 4000 ms');
        expect(warnings).toContain('/webhooks/order_created/post/x-carrier-timing/delivery');
      }
      if (fault === 'sends-unstated-status') {
        const failed = spec.results.find((r) => r.id === check)!;
        expect(failed.failure).toMatch(/"picked_up" is not one the spec lists/);
        // The report's reproducer sends the carrier's refused update again.
        expect(failed.reproducers?.[0]).toMatch(
          /^curl -sS -i -X PUT 'http:\/\/127\.0\.0\.1:\d+\/api-delivery\/orders\/[\w-]+\/delivery' -H 'content-type: application\/json' --data-binary '\{"status":"picked_up"\}'$/,
        );
      }
    },
    60_000,
  );
