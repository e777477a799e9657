/**
 * The console page at `/console` (Node only: it reads the files of `console/` in this package).
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EngineRoute } from '../engine/engine.js';
import { createStaticRoute, type StaticAsset } from './static-route.js';

/** The files of the console and their Content-Types. */
export const CONSOLE_FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'console.js': 'text/javascript; charset=utf-8',
  'console.css': 'text/css; charset=utf-8',
};

/**
 * The page talks to its own origin only (`/__mock/*`), loads nothing else, runs no inline code, and
 * may not be framed: the policy makes the browser enforce it.
 */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

/**
 * Where the console's files are. The same code runs from `src/static/` (tsx, vitest) and bundled into
 * `dist/` (tsup), one or two folders below the package root, so both are tried.
 */
export function consoleDirectory(): string {
  const here = typeof import.meta.url === 'string' ? path.dirname(fileURLToPath(import.meta.url)) : __dirname;
  const candidates = [path.resolve(here, '../../console'), path.resolve(here, '../console')];
  const found = candidates.find((dir) => existsSync(path.join(dir, 'index.html')));
  if (!found)
    throw new Error(`the console's files are not where the package keeps them (looked in ${candidates.join(', ')})`);
  return found;
}

/** Reads the console's files from `directory` (default: the package's `console/`). */
export function readConsoleAssets(directory = consoleDirectory()): Map<string, StaticAsset> {
  const assets = new Map<string, StaticAsset>();
  for (const [file, contentType] of Object.entries(CONSOLE_FILES)) {
    assets.set(file, { contentType, body: readFileSync(path.join(directory, file), 'utf8') });
  }
  return assets;
}

/** Options of {@link consoleRoute}. */
export interface ConsoleRouteOptions {
  /** Where the page is served (default `/console`). */
  prefix?: string;
  /** Where its files are (default: the package's `console/`). */
  directory?: string;
}

/**
 * An engine route serving the live console: orders by status, delivery zones, restaurants and
 * couriers on a map, the callback log and the notification outbox, polled from the control API.
 * @example
 * const server = await createMockServer({ port: 4010, routes: [consoleRoute()] });
 * console.log(`${server.url}/console/`);
 */
export function consoleRoute(options: ConsoleRouteOptions = {}): EngineRoute {
  return createStaticRoute({
    prefix: options.prefix ?? '/console',
    assets: readConsoleAssets(options.directory),
    headers: { 'Content-Security-Policy': CONSOLE_CSP, 'Referrer-Policy': 'no-referrer' },
  });
}
