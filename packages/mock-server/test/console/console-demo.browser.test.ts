/**
 * The console of the running demo (`npm start`), as a newcomer first sees it, at 1280 px wide in headless
 * Chromium: the mock's clock, the order times and the order of the cards agree, and no table is cut off.
 * The screenshot goes to reports/screenshots/console-demo-1280.png.
 */
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Browser } from 'playwright-core';
import { afterAll, expect, test } from 'vitest';
import { freePort, localArgv, startCli, type RunningCli } from '../../../../scripts/testing/run-cli.js';
import { browserTitle, chromiumTestsRun, launchChromium } from '../../../../scripts/testing/chromium.js';

const SCREENSHOTS = fileURLToPath(new URL('../../../../reports/screenshots/', import.meta.url));
const WIDTH = 1280;

let demo: RunningCli | undefined;
let browser: Browser | undefined;
afterAll(async () => {
  await browser?.close();
  await demo?.stop('SIGINT');
});

test.skipIf(!chromiumTestsRun('console-demo.browser.test'))(
  browserTitle('the demo console at 1280 px: times agree with the mock clock, newest order first, every table whole'),
  async () => {
    await mkdir(SCREENSHOTS, { recursive: true });
    demo = startCli([...localArgv('npm start -- --order-every 2'), '--port', String(await freePort())]);
    const [, base] = await demo.waitFor(/^RestoAPI mock listening on (\S+)$/, 60_000);
    // Wait until the storefront placed a few orders and the demo carrier picked one up.
    for (let i = 0; i < 3; i++) await demo.waitFor(new RegExp(`placed [A-Z]{2}-${5007 + i} `), 30_000);
    await demo.waitFor(/\[carrier\] .* delivering /, 30_000);

    browser = await launchChromium();
    const page = await browser.newPage({ viewport: { width: WIDTH, height: 900 }, reducedMotion: 'reduce' });
    await page.goto(`${base}/console/`, { waitUntil: 'load' });
    await page.locator('#connection[data-state="live"]').waitFor();
    await page.locator('#callbacks-table tbody tr[data-callback-id]').first().waitFor();
    await page.locator('#notifications-table tbody tr[data-notification-id]').first().waitFor();

    // The clock the console shows is the mock's (the demo runs on a Friday evening of virtual time)…
    const clockText = (await page.locator('#clock').textContent())!;
    const shown = /^Mock time: (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) UTC$/.exec(clockText);
    expect(shown, clockText).not.toBeNull();
    const clock = (await (await fetch(`${base}/__mock/clock`)).json()) as { now: string };
    const mockNow = Date.parse(clock.now);
    expect(Math.abs(Date.parse(`${shown![1]!.replace(' ', 'T')}Z`) - mockNow)).toBeLessThan(10_000);
    expect(clock.now.slice(0, 10)).toBe('2026-11-20');

    // …and every order, the seed's included, was created before it: none is dated in the mock's future.
    const cards = await page.locator('.order-card').evaluateAll((elements) =>
      elements.map((el) => ({
        column: el.closest('[data-column]')!.getAttribute('data-column')!,
        number: el.querySelector('.order-number')!.textContent!,
        createdAt: el.getAttribute('data-created-at')!,
        label: el.querySelector('.order-tags .tag')!.textContent!,
      })),
    );
    expect(cards.length).toBeGreaterThan(6);
    for (const card of cards) {
      expect(Date.parse(card.createdAt), `${card.number} created ${card.createdAt}`).toBeLessThanOrEqual(
        mockNow + 1000,
      );
      expect(card.label, card.number).toMatch(/^(just now|\d+ min ago|\d+ h ago|\d+ days ago)$/);
    }
    // Newest first in every column; the storefront's latest order tops its column.
    const columns = new Map<string, number[]>();
    for (const card of cards)
      columns.set(card.column, [...(columns.get(card.column) ?? []), Date.parse(card.createdAt)]);
    for (const [column, times] of columns) expect(times, column).toEqual([...times].sort((a, b) => b - a));
    const newest = cards.reduce((a, b) => (Date.parse(b.createdAt) > Date.parse(a.createdAt) ? b : a));
    expect(cards.find((card) => card.column === newest.column)!.number).toBe(newest.number);
    expect(newest.number).toMatch(/^[A-Z]{2}-50\d\d$/);
    expect(Number(newest.number.slice(3))).toBeGreaterThanOrEqual(5009);

    // No table reaches past its panel or the window: nothing to scroll sideways, nothing cut off.
    const tables = await page.locator('table').evaluateAll((elements) =>
      elements.map((table) => {
        const wrap = table.closest('.table-wrap') ?? table.parentElement!;
        return {
          id: table.id,
          right: table.getBoundingClientRect().right,
          wrapRight: wrap.getBoundingClientRect().right,
          overflow: wrap.scrollWidth - wrap.clientWidth,
        };
      }),
    );
    expect(tables.map((t) => t.id)).toEqual(
      expect.arrayContaining(['callbacks-table', 'notifications-table', 'couriers-table', 'zones-table']),
    );
    for (const table of tables) {
      expect(table.overflow, table.id).toBeLessThanOrEqual(0);
      expect(table.right, table.id).toBeLessThanOrEqual(table.wrapRight + 0.5);
      expect(table.right, table.id).toBeLessThanOrEqual(WIDTH);
    }
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(WIDTH);
    await page.screenshot({ path: `${SCREENSHOTS}console-demo-1280.png`, fullPage: true });
  },
  120_000,
);
