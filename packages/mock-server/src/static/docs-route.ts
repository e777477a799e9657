/**
 * The documentation site at `/docs`, built in memory by `@restoapi/docs` when it is there (in the
 * monorepo, run with tsx). The package is not a dependency of the mock: without it the mock runs as
 * before and says why there are no docs.
 */
import type { EngineRoute } from '../engine/engine.js';
import { createStaticRoute, type StaticAsset } from './static-route.js';

/** What `@restoapi/docs` exports (checked at run time). */
interface DocsModule {
  buildDocsSite(): Promise<Map<string, StaticAsset>>;
}

/** The outcome of {@link loadDocsRoute}: the route, or the reason there is none. */
export type DocsRouteResult =
  { route: EngineRoute; files: number; note?: undefined } | { route?: undefined; files: 0; note: string };

/**
 * Builds the documentation site with `@restoapi/docs` and serves it under `prefix`.
 * Never throws: when the package cannot be loaded or fails to build, `note` says why.
 * @example
 * const docs = await loadDocsRoute();
 * const server = await createMockServer({ routes: docs.route ? [docs.route] : [] });
 */
export async function loadDocsRoute(options: { prefix?: string; specifier?: string } = {}): Promise<DocsRouteResult> {
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
    return { route: createStaticRoute({ prefix: options.prefix ?? '/docs', assets }), files: assets.size };
  } catch (error) {
    return { files: 0, note: `the documentation site could not be built (${firstLine(error)})` };
  }
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split('\n')[0] ?? message;
}
