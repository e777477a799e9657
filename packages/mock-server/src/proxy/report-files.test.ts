import { XMLParser } from 'fast-xml-parser';
import { expect, test } from 'vitest';
import type { ProxyReportJson } from './proxy-report.js';
import { junitXml, reportHtml } from './report-files.js';

const hostile = '<script>alert("x&y")</script>';

const report: ProxyReportJson = {
  upstream: 'https://staging.example.com/?a=1&b=<2>',
  startedAt: '2026-11-20T18:30:00.000Z',
  requests: 3,
  failed: 1,
  violations: 1,
  profile: 'spec',
  warnings: 0,
  decisions: [],
  upstreamFailures: {},
  operations: [
    {
      operationId: 'getOrder',
      route: 'GET /api/orders/{id}',
      requests: 2,
      failed: 1,
      violations: [
        {
          at: '2026-11-20T18:31:00.000Z',
          method: 'GET',
          path: `/api/orders/${hostile}`,
          operationId: 'getOrder',
          side: 'response',
          pointer: '/order/number',
          expected: 'type string',
          actual: JSON.stringify(hostile),
          keyword: 'type',
          message: '/order/number must be string',
        },
      ],
      warned: 0,
      warnings: [],
    },
    { operationId: null, route: '(undocumented)', requests: 1, failed: 0, violations: [], warned: 0, warnings: [] },
  ],
};

test('the JUnit report has one test case per operation, the failing one carrying its violations, every value escaped', () => {
  const xml = junitXml(report);
  const parsed = new XMLParser({ ignoreAttributes: false, attributeNamePrefix: '' }).parse(xml) as {
    testsuites: { testsuite: { name: string; tests: string; failures: string; testcase: Record<string, unknown>[] } };
  };
  const suite = parsed.testsuites.testsuite;
  expect(suite).toMatchObject({ tests: '2', failures: '1', name: `restoapi-proxy ${report.upstream}` });
  expect(suite.testcase[0]).toMatchObject({ name: 'GET /api/orders/{id} (getOrder)', failure: expect.anything() });
  expect(JSON.stringify(suite.testcase[0])).toContain(hostile.replace(/"/g, '\\"'));
  expect(suite.testcase[1]).toMatchObject({ name: '(undocumented)' });
  expect(suite.testcase[1]!.failure).toBeUndefined();
});

test('the HTML report escapes everything that came from the wire', () => {
  const page = reportHtml(report);
  expect(page).not.toContain('<script>');
  expect(page).toContain('&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt;');
  expect(page).toContain('https://staging.example.com/?a=1&amp;b=&lt;2&gt;');
});
