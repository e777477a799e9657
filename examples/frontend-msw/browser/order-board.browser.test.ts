/**
 * The browser example in real headless Chromium: the page is served locally, the stateful mock runs in
 * it behind MSW's service worker, and the test uses the page as a person would.
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import {
  browserTitle,
  chromiumTestsRun,
  launchChromium,
  servePages,
  type PageServer,
} from '../../../scripts/testing/chromium.js';
import { orderBoardPage } from './page-files.js';

const SCREENSHOTS = fileURLToPath(new URL('../../../reports/screenshots/', import.meta.url));

const BROWSER_SUITE = browserTitle('the order board with MSW in the browser');
describe.skipIf(!chromiumTestsRun('frontend-msw browser'))(BROWSER_SUITE, () => {
  let pages: PageServer;
  let browser: Browser;
  let page: Page;
  /** Answers that came from the network: only the page's own files may. */
  const network: string[] = [];
  const problems: string[] = [];

  beforeAll(async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    pages = await servePages(await orderBoardPage());
    browser = await launchChromium();
    page = await browser.newPage();
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      // The injected 500s and 503s are logged by Chromium as failed loads: expected, not problems.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource'))
        problems.push(message.text());
    });
    page.on('response', (response) => {
      // Answers the service worker made never came from the network; those it let through did.
      if (!response.fromServiceWorker()) network.push(response.url());
    });
    await page.goto(pages.url);
    await page.locator('body[data-ready="true"]').waitFor({ timeout: 20_000 });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await pages?.close();
  });

  const items = () => page.locator('#board li');
  /** Clicks `selector` and waits for the board to finish rendering once more. */
  const clickAndRender = async (selector: string): Promise<void> => {
    const before = Number(await page.locator('body').getAttribute('data-loads'));
    await page.locator(selector).click();
    await page.locator(`body[data-loads="${before + 1}"]`).waitFor({ timeout: 10_000 });
  };

  test('the mock answers in the page: login and the restaurant’s orders', async () => {
    expect(await page.locator('#status').textContent()).toBe(
      "Signed in as Anna Schmidt (mock in this page, answered by MSW's service worker)",
    );
    expect(await page.locator('#board h2').textContent()).toMatch(/^Orders \(\d+\)$/);
    expect(await items().count()).toBeGreaterThan(0);
    expect((await items().allTextContents()).some((text) => text.startsWith('PP-5001 · Out for delivery'))).toBe(true);
    // The API calls went to https://api.pizza-piccolo.test, which does not exist: the worker answered them.
    const api = await page.evaluate(async () => (await fetch('https://api.pizza-piccolo.test/__mock/faults')).status);
    expect(api).toBe(200);
  });

  test('a 503 armed through the in-page control client is retried by the SDK; the user never sees it', async () => {
    await clickAndRender('#fail-once');
    const faults = await page.evaluate(async () => {
      const res = await fetch('https://api.pizza-piccolo.test/__mock/faults');
      return ((await res.json()) as { faults: unknown[] }).faults.length;
    });
    expect(faults).toBe(0); // the 503 was answered, then the SDK's retry got the orders
    expect(await page.locator('#board [role=alert]').count()).toBe(0);
    expect(await items().count()).toBeGreaterThan(0);
  });

  test('the mock renders a PDF receipt in the page too (pdfkit’s browser build, loaded on demand)', async () => {
    const pdf = await page.evaluate(async () => {
      const api = 'https://api.pizza-piccolo.test';
      const login = await fetch(`${api}/api/session?login=admin@pizza.demo&password=demo`, { method: 'POST' });
      const { meta } = (await login.json()) as { meta: { token: string } };
      const res = await fetch(`${api}/api/orders/5001/receipt.pdf`, {
        headers: { Authorization: `Token token="${meta.token}"` },
      });
      const bytes = new Uint8Array(await res.arrayBuffer());
      return {
        status: res.status,
        type: res.headers.get('content-type'),
        start: new TextDecoder().decode(bytes.slice(0, 5)),
        size: bytes.length,
      };
    });
    expect(pdf).toMatchObject({ status: 200, type: 'application/pdf', start: '%PDF-' });
    expect(pdf.size).toBeGreaterThan(1000);
  });

  test('three 500s are shown with Retry, and Retry loads the board', async () => {
    await clickAndRender('#fail-all');
    const alert = page.locator('#board [role=alert]');
    expect(await alert.textContent()).toBe('Could not load the orders (500: Internal error).');
    await page.screenshot({ path: `${SCREENSHOTS}frontend-msw-browser-retry.png` });
    await page.getByRole('button', { name: 'Retry', exact: true }).click();
    await page.locator('#board h2').waitFor({ timeout: 10_000 });
    expect(await items().count()).toBeGreaterThan(0);
    expect(problems).toEqual([]);
    expect(network.filter((url) => !url.startsWith(`${pages.url}/`))).toEqual([]);
  }, 30_000);
});
