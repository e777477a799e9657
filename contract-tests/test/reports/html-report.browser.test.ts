/**
 * The HTML report as QA open it in the morning, in real headless Chromium from a file (no server): the
 * verdict first, then the failure with its reason, requests, answers and curl reproducer, then the
 * warnings grouped, then coverage; the filters work offline. The run behind it is the suite's own,
 * in-process, against a mock that keeps a deleted session alive (a failure) and answers 404 with
 * another error body (a departure from a decision: warnings under `spec`). The screenshot goes to
 * reports/screenshots/contract-report.png.
 */
import { mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createMock } from '@restoapi/mock-server';
import { browserTitle, chromiumTestsRun, launchChromium } from '../../../scripts/testing/chromium.js';
import { fileReporter, runContractSuite, type SuiteResult } from '../../src/index.js';
import { IN_PROCESS_URL, MOCK_CONFIG, fetchOf } from '../helpers.js';
import { MUTANTS } from '../mutants/mutants.js';

const SCREENSHOTS = fileURLToPath(new URL('../../../reports/screenshots/', import.meta.url));
const mock = createMock();
const reports = mkdtempSync(path.join(tmpdir(), 'restoapi-report-'));
let result: SuiteResult;

beforeAll(async () => {
  const keepsSessions = MUTANTS.find((m) => m.id === 'token-valid-after-delete')!.wrap((r) => mock.fetch(r));
  const otherNotFound = async (request: Request): Promise<Response> => {
    const answer = await keepsSessions(request);
    if (answer.status !== 404) return answer;
    return new Response(JSON.stringify({ error: 'not found' }), {
      status: 404,
      headers: { 'Content-Type': 'application/json' },
    });
  };
  result = await runContractSuite({
    baseUrl: IN_PROCESS_URL,
    fetch: fetchOf(otherNotFound),
    config: MOCK_CONFIG,
    profile: 'spec',
    selection: {
      ids: [
        'session.lifecycle',
        'scope.by-id-never-shows-foreign-records',
        'scope.courier-sees-only-its-orders',
        'organization.*',
      ],
    },
    seed: 7,
    reporters: [fileReporter(reports)],
  });
}, 60_000);
afterAll(() => mock.close());

test('the run behind the report has one failure and warnings from the other 404 body', () => {
  expect(result.results.filter((r) => r.status === 'failed').map((r) => r.id)).toEqual(['session.lifecycle']);
  expect(result.summary.warnings).toBeGreaterThan(2);
  const failed = result.results.find((r) => r.status === 'failed')!;
  expect(failed.exchanges!.at(-1)).toMatchObject({ request: `GET ${IN_PROCESS_URL}/api/session`, status: 200 });
});

test('the JUnit report carries each warning in the output of its test case, with counts per case and suite', () => {
  const junit = readFileSync(path.join(reports, 'junit.xml'), 'utf8');
  const escaped = (text: string): string =>
    text
      .replace(/&/g, '&amp;')
      .replace(/"/g, '&quot;')
      .replace(/'/g, '&apos;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;');
  for (const r of result.results.filter((t) => t.warnings.length > 0)) {
    const testcase = junit.slice(junit.indexOf(`name="${escaped(`${r.id}: ${r.title}`)}"`));
    const body = testcase.slice(0, testcase.indexOf('</testcase>'));
    expect(body).toContain(`<property name="warnings" value="${r.warnings.length}"/>`);
    for (const warning of r.warnings) expect(body).toContain(`warning: ${escaped(warning)}`);
    expect(body).not.toContain('<failure');
  }
  const counted = [...junit.matchAll(/<testsuite [^>]*>\s*<properties>.*?<property name="warnings" value="(\d+)"\/>/g)];
  expect(counted.reduce((n, m) => n + Number(m[1]), 0)).toBe(result.summary.warnings);
});

const BROWSER_SUITE = browserTitle('the HTML report in headless Chromium');
describe.skipIf(!chromiumTestsRun('html-report.browser.test'))(BROWSER_SUITE, () => {
  let browser: Browser;
  let page: Page;
  const problems: string[] = [];
  const top = async (selector: string): Promise<number> => (await page.locator(selector).first().boundingBox())!.y;
  const shown = async (selector: string): Promise<string[]> =>
    page.locator(`${selector}:visible`).evaluateAll((els) => els.map((el) => (el as HTMLElement).dataset.id ?? ''));

  beforeAll(async () => {
    browser = await launchChromium();
    page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('request', (request) => {
      if (!request.url().startsWith('file:')) problems.push(`the page fetched ${request.url()}`);
    });
    await page.goto(pathToFileURL(path.join(reports, 'traceability.html')).href);
  }, 30_000);
  afterAll(async () => browser?.close());

  test('it opens with the verdict, then the failure with its reason, requests, answers and curl, then warnings, then coverage', async () => {
    await expect(page.locator('.verdict .big').textContent()).resolves.toBe(
      `FAIL — 1 of ${result.summary.total} tests failed, ${result.summary.warnings} warnings`,
    );
    const card = page.locator('article.card');
    await expect(card.count()).resolves.toBe(1);
    const text = (await card.textContent())!;
    expect(text).toContain('reading a deleted session: GET /api/session answered 200, expected 4xx');
    expect(text).toContain(`Requests and answers`);
    expect(text).toContain(`GET ${IN_PROCESS_URL}/api/session → 200`);
    expect(text).toContain('"api_user"');
    expect(text).toContain('reproduce with curl');
    expect(text).toContain(
      `curl -sS -i -X GET '${IN_PROCESS_URL}/api/session' -H "authorization: Token token=\\"$RESTOAPI_TOKEN\\""`,
    );
    // The login's answer is shown, its token is not.
    expect(text).toContain('"token":"$RESTOAPI_TOKEN"');
    expect(readFileSync(path.join(reports, 'traceability.html'), 'utf8')).not.toMatch(/"token":"(?!\$RESTOAPI_TOKEN)/);
    // Read without scrolling: the failure starts within the first screen.
    expect(await top('article.card h3')).toBeLessThan(900);
    const order = [await top('.verdict'), await top('#failures'), await top('#warnings'), await top('#coverage')];
    expect(order).toEqual([...order].sort((a, b) => a - b));
    // Warnings are grouped by the decision they depart from, naming its pointer and DECISIONS.md entry.
    const [largest] = result.warningsByDecision;
    await expect(page.locator('.group summary').first().textContent()).resolves.toBe(
      `${largest!.summary} ${largest!.count} × in ${largest!.tests.length} test${largest!.tests.length === 1 ? '' : 's'}`,
    );
    await expect(page.locator('.group .decision').first().textContent()).resolves.toBe(
      `decision ${largest!.decision} · openapi/${largest!.entry}`,
    );
    expect(largest!.entry).toMatch(/^DECISIONS\.md#/);
    mkdirSync(SCREENSHOTS, { recursive: true });
    await page.screenshot({ path: `${SCREENSHOTS}contract-report.png` });
    expect(problems).toEqual([]);
  });

  test('the filters show the failed, the warned, the skipped, one clause or one operation, without a server', async () => {
    const warned = result.results.filter((r) => r.warnings.length > 0).map((r) => r.id);
    await page.click('button[data-status=failed]');
    expect(await shown('tr.t')).toEqual(['session.lifecycle']);
    expect(await shown('.group .t')).toEqual([]);
    await page.click('button[data-status=warned]');
    expect(await shown('tr.t')).toEqual(warned);
    expect(await shown('article.card')).toEqual([]);
    await expect(page.locator('#failures .none').isVisible()).resolves.toBe(true);
    await page.click('button[data-status=skipped]');
    expect(await shown('tr.t')).toEqual([]);
    await page.click('button[data-status=all]');
    await page.selectOption('#f-op', { label: 'deleteSession' });
    expect(await shown('tr.t')).toEqual(
      result.results.filter((r) => r.operations.includes('deleteSession')).map((r) => r.id),
    );
    await page.selectOption('#f-op', { label: 'any' });
    await page.selectOption('#f-clause', { label: 'Authentication 4' });
    expect(await shown('tr.t')).toEqual(
      result.results.filter((r) => r.clauses.includes('Authentication 4')).map((r) => r.id),
    );
    await expect(page.locator('#f-shown').textContent()).resolves.toMatch(/^\d+ of \d+ tests shown$/);
    // A filtered view is a link: the hash brings it back.
    expect(new URL(page.url()).hash).toBe('#clause=Authentication%204');
    await page.reload();
    expect(await shown('tr.t')).toEqual(
      result.results.filter((r) => r.clauses.includes('Authentication 4')).map((r) => r.id),
    );
    expect(problems).toEqual([]);
  });
});
