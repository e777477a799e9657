import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, expect, test } from 'vitest';
import * as sdk from '@restoapi/sdk';
import {
  startIndependentService,
  type RunningIndependentService,
} from '../../../../scripts/testing/independent-service.js';
import { startMock, type MockTarget } from '../support/mock-target.js';

const readme = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../README.md');
let target: MockTarget | undefined;
let independent: RunningIndependentService | undefined;
afterEach(async () => {
  await target?.close();
  await independent?.close();
  target = independent = undefined;
});

/** Runs the README quickstart, as written, against the service at `baseUrl`; returns what it printed. */
async function runQuickstart(baseUrl: string): Promise<string[]> {
  const text = await readFile(readme, 'utf8');
  const quickstart = /## Quickstart\s+```ts sample\n([\s\S]*?)```/.exec(text)![1]!;
  expect(quickstart.split('\n').filter(Boolean).length).toBeLessThanOrEqual(12);
  const body = quickstart
    .replace(/^import \{ createRestoClient \} from '@restoapi\/sdk';$/m, '')
    .replace("'http://localhost:4010'", JSON.stringify(baseUrl));
  const lines: string[] = [];
  const log = { log: (...parts: unknown[]) => lines.push(parts.join(' ')) };
  const AsyncFunction = Object.getPrototypeOf(async () => undefined).constructor as new (
    ...args: string[]
  ) => (...values: unknown[]) => Promise<void>;
  await new AsyncFunction('createRestoClient', 'console', body)(sdk.createRestoClient, log);
  return lines;
}

test('the README quickstart runs as written against the mock over HTTP', async () => {
  target = await startMock('http');
  const lines = await runQuickstart(target.baseUrl);
  expect(lines[0]).toBe('Signed in as Anna Schmidt');
  expect(lines).toContain('PP-5001 delivery 17.50');
  expect(lines.at(-1)).toBe('PP-5002 is now accepted');
});

test('the README quickstart runs as written against an independent implementation (setStatus answered 204)', async () => {
  independent = await startIndependentService();
  const lines = await runQuickstart(independent.url);
  expect(lines[0]).toBe('Signed in as Anna Schmidt');
  expect(lines).toContain('PP-5001 delivery 17.50');
  expect(lines.at(-1)).toBe('PP-5002 is now accepted');
});
