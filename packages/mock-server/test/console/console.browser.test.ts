/**
 * The console page and the documentation site in real headless Chromium (Debian's `chromium`, driven
 * by playwright-core). Screenshots go to reports/screenshots/ at the repository root.
 */
import { mkdir } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { browserTitle, chromiumTestsRun, launchChromium } from '../../../../scripts/testing/chromium.js';
import { createMockServer, type MockServer } from '../../src/node.js';
import { consoleRoute } from '../../src/static/console-route.js';
import { loadDocsRoute } from '../../src/static/docs-route.js';
import { FRIDAY_EVENING, margheritaOrder, type Loose } from '../support/storefront.js';

const SCREENSHOTS = fileURLToPath(new URL('../../../../reports/screenshots/', import.meta.url));

/** A carrier's callback endpoint: acknowledges everything with 204 and keeps the query strings. */
async function callbackReceiver(): Promise<{ url: string; received: URLSearchParams[]; server: Server }> {
  const received: URLSearchParams[] = [];
  const server = createServer((req, res) => {
    received.push(new URL(req.url ?? '/', 'http://receiver').searchParams);
    req.resume();
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/callbacks`, received, server };
}

async function until<T>(
  what: string,
  check: () => T | undefined | Promise<T | undefined>,
  timeoutMs = 10_000,
): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const BROWSER_SUITE = browserTitle('console and docs in headless Chromium');
describe.skipIf(!chromiumTestsRun('console.browser.test'))(BROWSER_SUITE, () => {
  let server: MockServer;
  let receiver: Awaited<ReturnType<typeof callbackReceiver>>;
  let browser: Browser;
  let context: BrowserContext;
  /** Every URL the browser requested, and every error it printed. */
  const requests: string[] = [];
  const problems: string[] = [];

  const json = async (method: string, path: string, body?: unknown): Promise<{ status: number; body: Loose }> => {
    const res = await fetch(`${server.url}${path}`, {
      method,
      ...(body === undefined ? {} : { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  };

  const open = async (path: string): Promise<Page> => {
    const page = await context.newPage();
    page.on('request', (request) => requests.push(request.url()));
    page.on('pageerror', (error) => problems.push(`${path}: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`${path}: ${message.text()}`);
    });
    await page.goto(`${server.url}${path}`, { waitUntil: 'load' });
    return page;
  };

  /** Everything the pages loaded came from the mock itself (data: and blob: URLs never leave the page). */
  const expectSameOrigin = (): void => {
    const foreign = requests.filter((url) => !url.startsWith(`${server.url}/`) && !/^(data|blob):/.test(url));
    expect(foreign).toEqual([]);
    for (const url of requests.filter((u) => /^https?:/.test(u))) expect(new URL(url).hostname).toBe('127.0.0.1');
  };

  beforeAll(async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    const docs = await loadDocsRoute();
    if (!docs.route) throw new Error(`the docs route did not load: ${docs.note}`);
    receiver = await callbackReceiver();
    server = await createMockServer({ port: 0, routes: [consoleRoute(), docs.route] });
    browser = await launchChromium();
    context = await browser.newContext({ viewport: { width: 1440, height: 1100 }, reducedMotion: 'reduce' });
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
    await new Promise<void>((resolve) => (receiver ? receiver.server.close(() => resolve()) : resolve()));
  });

  test('the console shows a placed order and the carrier courier moving', async () => {
    // Friday evening in Berlin (every demo zone open), running on from there.
    expect((await json('PUT', '/__mock/clock', { now: FRIDAY_EVENING, frozen: false })).status).toBe(200);
    expect((await json('POST', '/__mock/carriers', { name: 'Kurier Berlin', callback_url: receiver.url })).status).toBe(
      201,
    );

    const page = await open('/console/');
    await page.locator('#connection[data-state="live"]').waitFor();
    await page.locator('[data-column="delivery"] [data-order-id="5001"]').waitFor(); // a demo order
    expect(await page.locator('#zones-table tbody tr').count()).toBe(4);
    expect(await page.locator('#layer-zones polygon').count()).toBe(4);

    // A customer orders on the storefront.
    const placed = await json('POST', '/__mock/orders', margheritaOrder());
    expect(placed.status).toBe(201);
    const { id, number } = placed.body.order as { id: number; number: string };
    const card = page.locator(`[data-column="pending"] [data-order-id="${id}"]`);
    await card.waitFor({ timeout: 5_000 });
    expect(await card.locator('.order-number').textContent()).toBe(number);
    await page.locator('#notifications-table tbody tr[data-notification-id]').first().waitFor();
    expect(await page.locator('#notifications-table').textContent()).toContain('+49 170 1112233');
    await page.screenshot({ path: `${SCREENSHOTS}console-order-placed.png`, fullPage: true });

    // The carrier got order_created (its secure_id is its handle on the order); the log shows it delivered.
    const created = await until('order_created', () =>
      receiver.received.find((q) => q.get('type') === 'order_created' && q.get('order_id') === String(id)),
    );
    const secureId = created.get('order_secure_id');
    expect(secureId).toBeTruthy();
    await page.locator(`#callbacks-table tr[data-state="delivered"]`).first().waitFor({ timeout: 5_000 });
    expect(await page.locator('#callbacks-table tbody').textContent()).toContain('order_created');

    // The carrier assigns a courier, who reports a first position…
    const first = await json('PUT', `/api-delivery/orders/${secureId}/delivery`, {
      status: 'courier_assigned',
      courier_name: 'Tom Richter',
      courier_phone: '+49 160 9876543',
      lat: 52.4995,
      lon: 13.4125,
    });
    expect(first.status).toBe(200);
    const marker = page.locator(`[data-marker="carrier-order-${id}"]`);
    await marker.waitFor({ timeout: 5_000 });
    await page.waitForFunction(
      (key) => document.querySelector(`[data-marker="${key}"]`)?.getAttribute('data-lat') === '52.4995',
      `carrier-order-${id}`,
    );
    const before = { x: Number(await marker.getAttribute('data-x')), y: Number(await marker.getAttribute('data-y')) };
    expect(await page.locator(`[data-marker-row="carrier-order-${id}"]`).textContent()).toContain('Tom Richter');
    await page.screenshot({ path: `${SCREENSHOTS}console-courier-assigned.png`, fullPage: true });

    // …then sets off towards the customer and reports again: the dot moves.
    const second = await json('PUT', `/api-delivery/orders/${secureId}/delivery`, {
      status: 'delivering',
      lat: 52.4982,
      lon: 13.4262,
    });
    expect(second.status).toBe(200);
    await page.waitForFunction(
      (key) => document.querySelector(`[data-marker="${key}"]`)?.getAttribute('data-lat') === '52.4982',
      `carrier-order-${id}`,
    );
    const after = { x: Number(await marker.getAttribute('data-x')), y: Number(await marker.getAttribute('data-y')) };
    expect(after.x).toBeGreaterThan(before.x); // further east
    expect(after.y).toBeGreaterThan(before.y); // further south
    const box = await marker.locator('.dot').boundingBox();
    expect(box).not.toBeNull();
    // The order went out for delivery with the carrier's courier.
    await page
      .locator(`[data-column="delivery"] [data-order-id="${id}"] [data-delivery-status="delivering"]`)
      .waitFor({ timeout: 5_000 });
    expect(await page.locator(`[data-trail="carrier-order-${id}"]`).count()).toBe(1);
    await page.screenshot({ path: `${SCREENSHOTS}console-courier-moved.png`, fullPage: true });

    // Screen readers heard about it.
    expect(await page.locator('#announcer').textContent()).toContain(number);
    expectSameOrigin();
    expect(problems).toEqual([]);
    await page.close();
  }, 60_000);

  test('the documentation site and the API reference render offline', async () => {
    const landing = await open('/docs/');
    expect(await landing.locator('h1').first().textContent()).toBe('RestoAPI toolkit');
    await landing.screenshot({ path: `${SCREENSHOTS}docs-landing.png`, fullPage: true });
    await landing.getByRole('link', { name: 'Carriers', exact: true }).first().click();
    await landing.waitForURL(/\/docs\/guides\/carriers\.html$/);
    expect(await landing.locator('h1').first().textContent()).toContain('Carriers');
    await landing.close();

    const reference = await open('/docs/reference/');
    await reference
      .locator('h2', { hasText: /^\s*List orders\s*$/ })
      .first()
      .waitFor({ state: 'visible', timeout: 20_000 });
    expect(await reference.locator('#redoc h1').first().textContent()).toContain('Online Restaurant Ordering Service');
    await reference.screenshot({ path: `${SCREENSHOTS}docs-reference.png` });
    await reference.close();

    const control = await open('/docs/reference/control/');
    await control
      .locator('h2', { hasText: /^\s*Place an order as the storefront would\s*$/ })
      .first()
      .waitFor({ state: 'visible', timeout: 20_000 });
    await control.close();

    expectSameOrigin();
    expect(requests.some((url) => url.endsWith('/docs/reference/redoc.standalone.js'))).toBe(true);
    expect(problems).toEqual([]);
  }, 60_000);
});
