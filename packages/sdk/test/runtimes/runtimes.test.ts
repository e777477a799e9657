/**
 * The SDK in every runtime users run it in: one smoke script (./sdk-smoke.ts), bundled once per kind of
 * runtime, run against the HTTP mock over loopback in Node 20 (a fresh process), real Chromium (a page on
 * a second origin, so through CORS), workerd (the Workers runtime), Bun and Deno.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { createMockServer, type MockServer } from '@restoapi/mock-server/node';
import { browserTitle, chromiumTestsRun, launchChromium, servePages } from '../../../../scripts/testing/chromium.js';
import { bundleScript } from '../../../../scripts/bundling.js';
import {
  bunBinary,
  denoBinary,
  runToEnd,
  runtimeTestsRun,
  scratchDir,
  startWorkerd,
  workerdBinary,
} from '../../../../scripts/testing/runtimes.js';
import { SMOKE_STEPS, type SmokeReport } from './sdk-smoke.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/** A script that runs the smoke against `argv[2]` and prints the report (Node, Bun and Deno). */
const CLI_ENTRY = `
import { runSdkSmoke } from './sdk-smoke.ts';
const report = await runSdkSmoke(process.argv[2]);
console.log(JSON.stringify(report));
`;
/** A page script: the smoke as a global for the test to call. */
const PAGE_ENTRY = `
import { runSdkSmoke } from './sdk-smoke.ts';
globalThis.runSdkSmoke = runSdkSmoke;
`;
/** A worker: `GET /?base=URL` runs the smoke against the mock at URL. */
const WORKER_ENTRY = `
import { runSdkSmoke } from './sdk-smoke.ts';
export default {
  async fetch(request) {
    const base = new URL(request.url).searchParams.get('base');
    if (!base) return new Response('ready');
    return Response.json(await runSdkSmoke(base));
  },
};
`;

let mock: MockServer;
beforeAll(async () => {
  mock = await createMockServer({ port: 0, validateResponses: true });
});
afterAll(() => mock.close());
// Every runtime gets the demo world as it was: the smoke creates a dish and consumes a fault.
afterEach(async () => {
  await fetch(`${mock.url}/__mock/reset`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ seed: 'demo' }),
  });
});

function expectPassed(report: SmokeReport): void {
  expect(report.error).toBeUndefined();
  expect(report.steps).toEqual([...SMOKE_STEPS]);
  expect(report.ok).toBe(true);
}

/** Writes the CLI bundle for `target` to a scratch folder and runs it: `command ...args file baseUrl`. */
async function runCli(command: string, target: 'node' | 'browser', args: string[] = []): Promise<SmokeReport> {
  const scratch = await scratchDir('sdk-smoke');
  try {
    const file = path.join(scratch.dir, 'sdk-smoke.mjs');
    await writeFile(file, await bundleScript(CLI_ENTRY, here, target));
    const stdout = await runToEnd(command, [...args, file, mock.url]);
    return JSON.parse(stdout.trim().split('\n').at(-1)!) as SmokeReport;
  } finally {
    await scratch.remove();
  }
}

test('Node 20: the smoke passes in a fresh process', async () => {
  const report = await runCli(process.execPath, 'node');
  expectPassed(report);
  expect(report.runtime).toMatch(/^Node\.js\//);
}, 60_000);

const bun = bunBinary();
describe.skipIf(!runtimeTestsRun('Bun', bun))('Bun', () => {
  test('the smoke passes in Bun', async () => {
    if (!('path' in bun)) throw new Error(bun.missing);
    const report = await runCli(bun.path, 'browser');
    expectPassed(report);
    expect(report.runtime).toMatch(/^Bun\//);
  }, 60_000);
});

const deno = denoBinary();
describe.skipIf(!runtimeTestsRun('Deno', deno))('Deno', () => {
  test('the smoke passes in Deno, allowed the network of loopback only', async () => {
    if (!('path' in deno)) throw new Error(deno.missing);
    const report = await runCli(deno.path, 'browser', ['run', '--quiet', '--allow-net=127.0.0.1']);
    expectPassed(report);
    expect(report.runtime).toMatch(/^Deno\//);
  }, 60_000);
});

const workerd = workerdBinary();
describe.skipIf(!runtimeTestsRun('workerd', workerd))('workerd', () => {
  test('the smoke passes in a worker served by workerd', async () => {
    const worker = await startWorkerd(await bundleScript(WORKER_ENTRY, here, 'workerd'));
    try {
      const res = await fetch(`${worker.url}/?base=${encodeURIComponent(mock.url)}`);
      const report = (await res.json()) as SmokeReport;
      expectPassed(report);
      expect(report.runtime).toBe('Cloudflare-Workers');
    } finally {
      await worker.stop();
    }
  }, 60_000);
});

describe.skipIf(!chromiumTestsRun('sdk runtimes'))(browserTitle('Chromium'), () => {
  test('a page on a second origin runs the smoke through CORS; without CORS the browser blocks it', async () => {
    const bundle = await bundleScript(PAGE_ENTRY, here, 'browser');
    // The page is served from http://localhost:…, the mock listens on http://127.0.0.1:…: two origins.
    const pages = await servePages({
      '/index.html': {
        type: 'text/html',
        body: '<!doctype html><title>SDK smoke</title><script src="/smoke.js"></script>',
      },
      '/smoke.js': { type: 'text/javascript', body: bundle },
    });
    const noCors = await createMockServer({ port: 0, cors: false });
    const browser = await launchChromium();
    try {
      const page = await browser.newPage();
      await page.goto(pages.url);
      expect(new URL(page.url()).origin).not.toBe(new URL(mock.url).origin);
      const run = (base: string): Promise<SmokeReport> =>
        page.evaluate(
          (url) => (globalThis as unknown as { runSdkSmoke: (u: string) => Promise<SmokeReport> }).runSdkSmoke(url),
          base,
        );

      const report = await run(mock.url);
      expectPassed(report);
      expect(report.runtime).toContain('Chrome/');

      const blocked = await run(noCors.url);
      expect(blocked.ok).toBe(false);
      expect(blocked.steps).toEqual([]);
      expect(blocked.error).toMatch(/^login: .*Failed to fetch/);
    } finally {
      await browser.close();
      await noCors.close();
      await pages.close();
    }
  }, 60_000);
});
