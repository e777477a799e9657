/**
 * The documentation site at `/docs`. The published package carries it prebuilt (`dist/docs-site.json`,
 * written by the build from `@restoapi/docs`); in the monorepo, run from the sources, `@restoapi/docs`
 * builds it in memory, so it is always current. Without either the mock runs and says why there are no docs.
 */
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EngineRoute } from '../engine/engine.js';
import { createStaticRoute, type StaticAsset } from './static-route.js';

/** The prebuilt site's file name, beside the bundled CLI in `dist/`. */
export const DOCS_SITE_FILE = 'docs-site.json';

/** Where the prebuilt site is when this module runs bundled in `dist/`; `undefined` from the sources. */
function packagedSite(): string | undefined {
  const here = typeof import.meta.url === 'string' ? path.dirname(fileURLToPath(import.meta.url)) : __dirname;
  const file = path.join(here, DOCS_SITE_FILE);
  return existsSync(file) ? file : undefined;
}

/** Reads a site written by `docs/scripts/build.ts --json`: `{ files: { [path]: { contentType, body } } }`. */
export async function readDocsSiteFile(file: string): Promise<Map<string, StaticAsset>> {
  const json = JSON.parse(await readFile(file, 'utf8')) as { files?: Record<string, StaticAsset> };
  if (!json.files || typeof json.files !== 'object') throw new Error(`${file} holds no "files"`);
  return new Map(Object.entries(json.files));
}

/** What `@restoapi/docs` exports (checked at run time). */
interface DocsModule {
  buildDocsSite(): Promise<Map<string, StaticAsset>>;
}

/** The outcome of {@link loadDocsRoute}: the route, or the reason there is none. */
export type DocsRouteResult =
  { route: EngineRoute; files: number; note?: undefined } | { route?: undefined; files: 0; note: string };

/**
 * Serves the documentation site under `prefix`: the prebuilt `siteFile` (default: the one the published
 * package carries), or else the site `@restoapi/docs` builds. Never throws: when neither is there, or the
 * site fails to load, `note` says why.
 * @example
 * const docs = await loadDocsRoute();
 * const server = await createMockServer({ routes: docs.route ? [docs.route] : [] });
 */
export async function loadDocsRoute(
  options: { prefix?: string; specifier?: string; siteFile?: string } = {},
): Promise<DocsRouteResult> {
  const prefix = options.prefix ?? '/docs';
  const siteFile = options.siteFile ?? packagedSite();
  if (siteFile) {
    try {
      const assets = await readDocsSiteFile(siteFile);
      return { route: createStaticRoute({ prefix, assets }), files: assets.size };
    } catch (error) {
      return { files: 0, note: `the documentation site could not be read from ${siteFile} (${firstLine(error)})` };
    }
  }
  // A variable specifier: bundlers leave the import alone and the mock does not depend on the docs.
  const specifier = options.specifier ?? '@restoapi/docs';
  let docs: Partial<DocsModule>;
  try {
    docs = (await import(specifier)) as Partial<DocsModule>;
  } catch (error) {
    return {
      files: 0,
      note: `the documentation site is not available (${specifier} could not be loaded: ${firstLine(error)}); in the RestoAPI repository, npm start serves it, and npm run docs:build writes it to docs/dist`,
    };
  }
  if (typeof docs.buildDocsSite !== 'function')
    return { files: 0, note: `${specifier} has no buildDocsSite(): no documentation site` };
  try {
    const assets = await docs.buildDocsSite();
    return { route: createStaticRoute({ prefix, assets }), files: assets.size };
  } catch (error) {
    return { files: 0, note: `the documentation site could not be built (${firstLine(error)})` };
  }
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}
