import { expect, test } from 'vitest';
import { CARRIER_DECISIONS, type Finding } from './carrier-checks.js';
import { warningReporter } from './carrier-command.js';
import { CARRIER_CHECKS, judgeCarrier, type CarrierRecording } from './run-carrier.js';

/** A recording where every check found nothing but the ones given. */
function recording(found: Record<string, Partial<Finding>>): CarrierRecording {
  return {
    serviceUrl: 'http://127.0.0.1:4010',
    startedAt: new Date(0),
    durationMs: 10,
    observations: [],
    findings: Object.fromEntries(
      CARRIER_CHECKS.map((c) => [c.id, [{ stated: [], decided: [], calls: [], ...found[c.id] }, 0]]),
    ),
  };
}

const late = {
  message: 'flow: order 5007 was not reported delivered within 60000 ms (statuses sent: courier_assigned)',
  decision: CARRIER_DECISIONS.deliveryLimit,
};

test('one recording: a break of a decision warns under spec, naming its clauses and decision, and fails under full', async () => {
  const lines: string[] = [];
  const spec = await judgeCarrier(recording({ 'carrier.delivered-last': { decided: [late] } }), 'spec', {
    reporters: [warningReporter((text) => lines.push(text))],
  });
  expect(spec.ok).toBe(true);
  expect(spec.summary).toMatchObject({ failed: 0, warnings: 1 });
  expect(lines.join('\n').split('\n')).toEqual([
    expect.stringMatching(/^⚠ carrier\.delivered-last: /),
    '  clauses: Events: order_created | Resources > Carrier order view > The delivery block: status',
    expect.stringMatching(/^ {2}decision \/webhooks\/order_created\/post\/x-carrier-timing\/delivery: The spec states/),
    `  warning: ${late.message}`,
  ]);
  const full = await judgeCarrier(recording({ 'carrier.delivered-last': { decided: [late] } }), 'full');
  expect(full.ok).toBe(false);
  expect(full.results.find((r) => r.id === 'carrier.delivered-last')!.failure).toBe(
    `${late.message}\n(these break the decision ${late.decision} (openapi/DECISIONS.md#decision-webhooks-order-created-post-x-carrier-timing-delivery): The spec states the carrier flow (load the order, keep the delivery status current up to its end) but no time for any of it.)`,
  );
});

test('a stated break fails under both profiles, and a decision the check does not list is a bug', async () => {
  const stated = { stated: ['flow: the carrier updated order 5007 before it loaded it'] };
  for (const profile of ['spec', 'full'] as const)
    expect((await judgeCarrier(recording({ 'carrier.loads-order': stated }), profile)).ok).toBe(false);
  await expect(
    judgeCarrier(
      recording({ 'carrier.loads-order': { decided: [{ ...late, decision: CARRIER_DECISIONS.positions }] } }),
      'spec',
    ),
  ).rejects.toThrow(
    'carrier.loads-order: /webhooks/order_created/post/x-carrier-timing/positions is not among its decisions',
  );
});
