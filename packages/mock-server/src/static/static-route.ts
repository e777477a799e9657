/**
 * Serves a set of files held in memory under a path prefix, as an engine route: the documentation
 * site at `/docs`, the console at `/console`. Browser-safe (no `node:` imports).
 */
import type { EngineRoute } from '../engine/engine.js';

/** One file: its Content-Type and its bytes or text. */
export interface StaticAsset {
  contentType: string;
  body: Uint8Array | string;
}

/** Options of {@link createStaticRoute}. */
export interface StaticRouteOptions {
  /** The path the files are served under, without a trailing slash, e.g. `/docs`. */
  prefix: string;
  /** The files: path relative to the prefix (`index.html`, `guides/qa.html`) → file. */
  assets: ReadonlyMap<string, StaticAsset>;
  /** Headers added to every answer of the route (e.g. a Content-Security-Policy). */
  headers?: Record<string, string>;
  /** The `Cache-Control` of the files (default `no-cache`: revalidated with the ETag on each use). */
  cacheControl?: string;
}

const encoder = new TextEncoder();

/** FNV-1a over the bytes: a cheap, stable validator for an ETag (not a security hash). */
function fnv1a(bytes: Uint8Array): string {
  let hash = 0x811c9dc5;
  for (let i = 0; i < bytes.length; i += 1) {
    hash ^= bytes[i]!;
    hash = Math.imul(hash, 0x01000193);
  }
  return (hash >>> 0).toString(16).padStart(8, '0');
}

interface Prepared {
  contentType: string;
  bytes: Uint8Array<ArrayBuffer>;
  etag: string;
}

function textResponse(status: number, text: string, headers: Record<string, string>): Response {
  return new Response(text, { status, headers: { 'Content-Type': 'text/plain; charset=utf-8', ...headers } });
}

/** The path below the prefix, decoded; `undefined` when it tries to leave the prefix or is not valid. */
function relativePath(pathname: string, prefix: string): string | undefined {
  let rest: string;
  try {
    rest = decodeURIComponent(pathname.slice(prefix.length + 1));
  } catch {
    return undefined;
  }
  const segments = rest.split('/');
  if (segments.some((s) => s === '..' || s === '.' || s.includes('\\') || s.includes('\0'))) return undefined;
  return rest;
}

/**
 * An engine route serving `assets` under `prefix`: `index.html` for directory paths, a redirect to
 * the slashed form for directories asked without their slash (`/docs` → `/docs/`, so relative links
 * work), ETags and 304s, GET and HEAD only (405 otherwise), 404 for unknown paths under the prefix.
 * Paths outside the prefix are not its business: it returns `undefined` and the engine goes on.
 * @example
 * const route = createStaticRoute({ prefix: '/docs', assets: await buildDocsSite() });
 * const server = await createMockServer({ routes: [route] });
 */
export function createStaticRoute(options: StaticRouteOptions): EngineRoute {
  const prefix = options.prefix.replace(/\/+$/, '');
  if (!prefix.startsWith('/')) throw new TypeError(`a static route's prefix starts with "/": ${options.prefix}`);
  const extra = options.headers ?? {};
  const cacheControl = options.cacheControl ?? 'no-cache';
  const prepared = new Map<string, Prepared>();
  const prepare = (path: string): Prepared | undefined => {
    const cached = prepared.get(path);
    if (cached) return cached;
    const asset = options.assets.get(path);
    if (!asset) return undefined;
    // A copy for binary bodies: the route owns its bytes, whatever the caller does with the map later.
    const bytes = typeof asset.body === 'string' ? encoder.encode(asset.body) : new Uint8Array(asset.body);
    const entry = { contentType: asset.contentType, bytes, etag: `"${bytes.byteLength.toString(16)}-${fnv1a(bytes)}"` };
    prepared.set(path, entry);
    return entry;
  };
  const isDirectory = (path: string): boolean => options.assets.has(path ? `${path}/index.html` : 'index.html');

  // pathPrefix lets the engine skip this route (and building a fetch Request) for API calls.
  const route: EngineRoute = (request, url) => {
    const { pathname } = url;
    if (pathname !== prefix && !pathname.startsWith(`${prefix}/`)) return undefined;
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return textResponse(405, `${request.method} is not served at ${pathname}; use GET.\n`, {
        ...extra,
        Allow: 'GET, HEAD',
      });
    }
    if (pathname === prefix) {
      return new Response(null, { status: 308, headers: { ...extra, Location: `${prefix}/${url.search}` } });
    }
    const rest = relativePath(pathname, prefix);
    if (rest === undefined) return textResponse(404, `Nothing at ${pathname}.\n`, extra);
    const file = rest === '' || rest.endsWith('/') ? `${rest}index.html` : rest;
    const asset = prepare(file);
    if (!asset) {
      if (!rest.endsWith('/') && isDirectory(rest)) {
        return new Response(null, { status: 308, headers: { ...extra, Location: `${pathname}/${url.search}` } });
      }
      const notFound = prepare('404.html');
      if (notFound && notFound.contentType.startsWith('text/html')) {
        return new Response(request.method === 'HEAD' ? null : notFound.bytes, {
          status: 404,
          headers: { ...extra, 'Content-Type': notFound.contentType, 'Cache-Control': 'no-store' },
        });
      }
      return textResponse(404, `Nothing at ${pathname}.\n`, extra);
    }
    const headers: Record<string, string> = {
      ...extra,
      'Content-Type': asset.contentType,
      'Cache-Control': cacheControl,
      ETag: asset.etag,
      'X-Content-Type-Options': 'nosniff',
    };
    const match = request.headers.get('if-none-match');
    if (match && match.split(',').some((tag) => tag.trim().replace(/^W\//, '') === asset.etag)) {
      return new Response(null, { status: 304, headers });
    }
    headers['Content-Length'] = String(asset.bytes.byteLength);
    return new Response(request.method === 'HEAD' ? null : asset.bytes, { status: 200, headers });
  };
  return Object.assign(route, { pathPrefix: prefix });
}
