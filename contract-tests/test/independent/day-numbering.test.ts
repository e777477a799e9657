import { expect, test } from 'vitest';
import { DEPARTURES, createIndependentService } from '../../../scripts/testing/independent-service.js';
import { runContractSuite, type SuiteResult } from '../../src/index.js';
import { MOCK_CONFIG } from '../helpers.js';

const DAY = DEPARTURES['days-from-sunday'].decision;

/** The zone list without timetables, so the suite must learn the numbering from a zone it writes. */
function withoutListedTimetables(handle: (request: Request) => Promise<Response>): typeof fetch {
  return (async (input: RequestInfo | URL, init?: RequestInit) => {
    const request = new Request(input, init);
    const response = await handle(request);
    if (request.method !== 'GET' || new URL(request.url).pathname !== '/api/delivery_zones') return response;
    const body = (await response.json()) as { delivery_zones: Record<string, unknown>[] };
    for (const zone of body.delivery_zones) zone.timetables = [];
    return Response.json(body, { status: response.status });
  }) as typeof fetch;
}

async function runZones(
  departures: 'days-from-sunday'[],
  profile: 'spec' | 'full',
  hideListed = false,
): Promise<SuiteResult> {
  const service = createIndependentService({ departures });
  try {
    return await runContractSuite({
      baseUrl: 'http://independent.local',
      fetch: hideListed ? withoutListedTimetables(service.handle) : service.fetch,
      config: MOCK_CONFIG,
      profile,
      seed: 23,
      selection: { ids: ['zones.timetable', 'zones.day-numbering'] },
    });
  } finally {
    await service.close();
  }
}

function failures(result: SuiteResult): string[] {
  return result.results.filter((r) => r.status === 'failed').map((r) => `${r.id}: ${r.failure}`);
}

test('spec learns 0 = Sunday from the service and passes it, warning about the decided ISO numbering', async () => {
  const result = await runZones(['days-from-sunday'], 'spec');
  expect(failures(result)).toEqual([]);
  expect(result.results.map((r) => [r.id, r.status])).toEqual([
    ['zones.timetable', 'passed'],
    ['zones.day-numbering', 'passed'],
  ]);
  const numbering = result.results.find((r) => r.id === 'zones.day-numbering')!;
  // Besides the schema check's warnings about each day 0 it reads, the test names what it learnt.
  expect(numbering.decisionWarnings?.map((w) => [w.decision, w.entry, w.message])).toContainEqual([
    DAY,
    'DECISIONS.md#decision-components-schemas-timetable-properties-day',
    "the service numbers timetable days from 0 = Sunday (the organization's zones use days 0, 1, 2, 3, 4, 5, 6)",
  ]);
}, 60_000);

test('without Sunday in the listed zones, spec learns the numbering from a zone it writes and reads back', async () => {
  const result = await runZones(['days-from-sunday'], 'spec', true);
  expect(failures(result)).toEqual([]);
  const numbering = result.results.find((r) => r.id === 'zones.day-numbering')!;
  expect(numbering.warnings).toContain(
    `the service numbers timetable days from 0 = Sunday (a zone created by the suite keeps a timetable entry for day 0) (departs from the decision ${DAY} (openapi/DECISIONS.md#decision-components-schemas-timetable-properties-day): The numbering base of \`day\` is not shown.)`,
  );
  const mock = await runZones([], 'spec', true);
  expect(failures(mock)).toEqual([]);
  expect(mock.warningsByDecision.map((g) => g.decision)).not.toContain(DAY);
}, 60_000);

test('full fails a service numbering days from 0 = Sunday, naming the decision', async () => {
  const result = await runZones(['days-from-sunday'], 'full');
  const numbering = result.results.find((r) => r.id === 'zones.day-numbering')!;
  expect(numbering.status).toBe('failed');
  expect(numbering.failure).toContain(`breaks the decision ${DAY} (openapi/DECISIONS.md#`);
  expect(numbering.failure).toContain('numbers timetable days from 0 = Sunday');
}, 60_000);

test('the mock (ISO days, 7 = Sunday) passes both profiles without a day warning', async () => {
  for (const profile of ['spec', 'full'] as const) {
    const result = await runZones([], profile);
    expect(failures(result)).toEqual([]);
    expect(result.summary.passed).toBe(2);
    expect(result.warningsByDecision.map((g) => g.decision)).not.toContain(DAY);
  }
}, 60_000);
