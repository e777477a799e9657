/**
 * The console page against a mock whose control API has a token, in real headless Chromium: it asks for the
 * token, takes it from the form or from `#token=…`, and then shows the world like on an open mock.
 */
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chromiumTestsRun, launchChromium } from '../../../../scripts/testing/chromium.js';
import { createMockServer, type MockServer } from '../../src/node.js';
import { consoleRoute } from '../../src/static/console-route.js';

const TOKEN = 'console-test-control-token-0123456789';

describe.skipIf(!chromiumTestsRun('console-token.browser.test'))('the console with a control token', () => {
  let server: MockServer;
  let browser: Browser;
  let context: BrowserContext;

  beforeAll(async () => {
    server = await createMockServer({ port: 0, routes: [consoleRoute()], controlToken: TOKEN });
    browser = await launchChromium();
    context = await browser.newContext();
  }, 60_000);

  afterAll(async () => {
    await context?.close();
    await browser?.close();
    await server?.close();
  });

  const open = async (path: string): Promise<Page> => {
    const page = await context.newPage();
    await page.goto(`${server.url}${path}`, { waitUntil: 'load' });
    return page;
  };

  test('without the token it says so and shows the form; the typed token brings it live', async () => {
    const page = await open('/console/');
    await page.locator('#connection[data-state="error"]').waitFor();
    expect(await page.locator('#connection').textContent()).toContain('a control token is needed');
    await page.locator('#token-form').waitFor({ state: 'visible' });
    await page.fill('#token-input', TOKEN);
    await page.click('#token-form button[type="submit"]');
    await page.locator('#connection[data-state="live"]').waitFor();
    await page.locator('[data-order-id="5001"]').first().waitFor();
    expect(await page.locator('#token-form').isHidden()).toBe(true);
    await page.close();
  });

  test('with #token= in the address it is live at once, and the token leaves the address bar', async () => {
    const fresh = await browser.newContext();
    const page = await fresh.newPage();
    await page.goto(`${server.url}/console/#token=${TOKEN}`, { waitUntil: 'load' });
    await page.locator('#connection[data-state="live"]').waitFor();
    expect(page.url()).not.toContain(TOKEN);
    await fresh.close();
  });

  test('a wrong token is named as wrong', async () => {
    const fresh = await browser.newContext();
    const page = await fresh.newPage();
    await page.goto(`${server.url}/console/#token=not-the-token`, { waitUntil: 'load' });
    await page.locator('#connection[data-state="error"]').waitFor();
    expect(await page.locator('#connection').textContent()).toContain('the control token is wrong');
    await fresh.close();
  });
});
