import { createApiDescription } from '@restoapi/openapi';
import { expect, test } from 'vitest';
import { CheckingHttp, CoverageRecorder, type RequestSink } from './http.js';
import type { Profile } from './types.js';

const validator = createApiDescription();
const finishedJob = { status: 'idle', job_id: 'a1', job_status: 'finished', job_message: null, job_percent: 100 };

/** A client whose every answer is `body` with `status`, and the sink it reports to. */
function clientAnswering(profile: Profile, status: number, body: unknown): { http: CheckingHttp; sink: RequestSink } {
  const http = new CheckingHttp({
    fetch: (async () => Response.json(body, { status })) as typeof fetch,
    baseUrl: 'http://service.local',
    carrierBaseUrl: 'http://service.local/api-delivery',
    validator,
    profile,
    coverage: new CoverageRecorder(),
    requestMs: 1000,
    notImplemented: 'fail',
  });
  const sink: RequestSink = { violations: [], failures: [], warnings: [], decisionWarnings: [], requests: 0, log: [] };
  http.sink = sink;
  return { http, sink };
}

test('under spec a decided departure is a structured warning naming the decision, not a violation', async () => {
  const { http, sink } = clientAnswering('spec', 200, finishedJob);
  await http.request({ path: '/api/organizations/1/import/menu', token: 't' });
  expect(sink.violations).toEqual([]);
  expect(sink.decisionWarnings).toContainEqual({
    decision: '/components/schemas/ImportJobStatus',
    entry: 'DECISIONS.md#decision-components-schemas-importjobstatus',
    summary: 'Values of job_status other than `working` are not shown.',
    operationId: 'getMenuImport',
    method: 'GET',
    path: '/api/organizations/1/import/menu',
    status: 200,
    message: expect.stringContaining('/job_status'),
  });
  expect(sink.warnings[0]).toContain('departs from the decision /components/schemas/ImportJobStatus');
});

test('under full the same departure is a violation naming the decision and its DECISIONS.md entry', async () => {
  const { http, sink } = clientAnswering('full', 200, finishedJob);
  await http.request({ path: '/api/organizations/1/import/menu', token: 't' });
  expect(sink.warnings).toEqual([]);
  expect(sink.violations[0]).toMatchObject({
    decisionOnly: true,
    decision: { pointer: '/components/schemas/ImportJobStatus' },
    message: expect.stringContaining('openapi/DECISIONS.md#decision-components-schemas-importjobstatus'),
  });
});

test('under spec a stated departure stays a violation: a singular restaurant root', async () => {
  const { http, sink } = clientAnswering('spec', 200, { restaurant: { id: 11 } });
  await http.request({ path: '/api/restaurants/11', token: 't' });
  expect(sink.warnings).toEqual([]);
  expect(sink.violations).toEqual([
    expect.objectContaining({
      operationId: 'getRestaurant',
      decisionOnly: false,
      message: expect.stringContaining('restaurants'),
    }),
  ]);
});
