import { mkdtemp, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createMockServer, type MockServer } from '@restoapi/mock-server/node';
import { integratorSync } from './integrator-sync.js';

let server: MockServer;
beforeAll(async () => {
  server = await createMockServer({ port: 0, config: { importDurationMs: 600 } });
});
afterAll(() => server.close());

test('the sync imports, publishes, confirms an order, assigns a courier and writes a real PDF receipt', async () => {
  const outDir = await mkdtemp(path.join(tmpdir(), 'integrator-sync-'));
  const lines: string[] = [];
  const report = await integratorSync({ baseUrl: server.url, outDir, log: (line) => lines.push(line) });

  // The menu from menu.json is what the storefront now sees.
  const published = server.mock.runtime.state.publishedMenus.get(1)!;
  expect(published.version).toBe(report.publishedVersion);
  expect(published.dishes.map((d) => d.name).sort()).toEqual([
    'Cola 0.33 l',
    'Diavolo',
    'Margherita',
    'Tagliatelle al ragù',
  ]);
  // The Margherita kept its id through the import (same external_id as in the seed).
  expect(published.dishes.find((d) => d.name === 'Margherita')!.id).toBe(10001);

  // Every order of today, newest first, and the confirmed one has its timestamp and courier.
  const created = report.todaysOrders.map((o) => Date.parse(o.created_at));
  expect(created).toEqual([...created].sort((a, b) => b - a));
  expect(report.confirmed.restaurant_confirmed_at).not.toBeNull();
  expect(report.confirmed.courier_id).not.toBeNull();

  const pdf = await readFile(report.receiptFile);
  expect(pdf.subarray(0, 5).toString()).toBe('%PDF-');
  expect(lines.join('\n')).toContain(`Receipt saved to ${report.receiptFile}`);
});
