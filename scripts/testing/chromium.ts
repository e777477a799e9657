/**
 * Real headless Chromium for the browser tests (Debian's `chromium`, driven by playwright-core), and a
 * static file server that gives a test page an origin of its own. Shared by every browser test.
 */
import { existsSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser } from 'playwright-core';
import { FULL_RUN } from './test-mode.js';

/** The browser binary: `CHROMIUM_PATH`, else Debian's. */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why the browser tests are the full run's: each file starts a real Chromium (several seconds of CPU). */
export const BROWSER_FULL_RUN_ONLY = 'full run only: a real Chromium per file; npm run test:all runs it';

/** A browser test's title, saying that it runs in the full run only (scripts/testing/test-mode.ts). */
export function browserTitle(title: string): string {
  return `${title} (${BROWSER_FULL_RUN_ONLY})`;
}

/**
 * Whether the browser tests of `suite` run: only in the full run (`npm run test:all`); `npm test` skips them
 * and says so. Without Chromium they skip with a message saying how to get it, except under CI (`CI=true`,
 * where .ci/run installs it): there they run and fail loudly, so a missing browser can never pass as green.
 */
export function chromiumTestsRun(suite: string): boolean {
  if (!FULL_RUN) {
    console.warn(`[${suite}] SKIPPED (${BROWSER_FULL_RUN_ONLY})`);
    return false;
  }
  if (existsSync(CHROMIUM) || process.env.CI === 'true') return true;
  console.warn(
    `[${suite}] SKIPPED: no Chromium at ${CHROMIUM}. Install Debian's chromium (apt-get install -y chromium) or set CHROMIUM_PATH.`,
  );
  return false;
}

/** Launches headless Chromium quietly: no sandbox (containers), no GPU, no traffic of its own. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM))
    throw new Error(`No Chromium at ${CHROMIUM}: apt-get install -y chromium (CI installs it in .ci/run).`);
  return chromium.launch({
    executablePath: CHROMIUM,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

/** A file a {@link servePages} server answers with. */
export interface PageFile {
  type: string;
  body: string | Uint8Array;
  headers?: Record<string, string>;
}

/** A running page server. */
export interface PageServer {
  /** Its origin, e.g. `http://localhost:41234`. */
  url: string;
  server: Server;
  close(): Promise<void>;
}

/**
 * Serves `files` by path (`/` and `/index.html` are the same) on loopback, on `port` (0: a free one).
 * `host` picks the origin's name: `localhost` by default, so a page is cross-origin to a mock on `127.0.0.1`.
 */
export async function servePages(files: Record<string, PageFile>, host = 'localhost', port = 0): Promise<PageServer> {
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://page').pathname;
    const file = files[path === '/' ? '/index.html' : path];
    if (!file) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end(`no ${path}`);
      return;
    }
    res.writeHead(200, { 'Content-Type': file.type, 'Cache-Control': 'no-store', ...file.headers }).end(file.body);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', resolve);
  });
  const url = `http://${host}:${(server.address() as AddressInfo).port}`;
  return {
    url,
    server,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
