/**
 * CORS for the mock's HTTP adapter. A decision of the mock, not of the API: the service itself says
 * nothing about browsers, but a front end on another origin (a dev server on :5173) can only call a mock
 * that answers preflights and names the page's origin, as Prism does by default.
 */
import type { HeaderReader } from '../engine/engine-request.js';

/** CORS settings of the HTTP mock: `true` (default) allows every origin, `false` switches CORS off. */
export type CorsOption = boolean | CorsOptions;

/** CORS limited to some origins. */
export interface CorsOptions {
  /** Origins allowed to read answers, e.g. `['http://localhost:5173']`; every origin when absent or empty. */
  origins?: readonly string[];
}

/** Methods a preflight allows: every method the API and the control API use. */
export const CORS_ALLOWED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS';

/**
 * Answer headers a page's script may read: the request id (for bug reports), `Retry-After` (the SDK waits
 * as told), `Location` (created resources and import jobs), the 401 challenge and a receipt's file name.
 */
export const CORS_EXPOSED_HEADERS = 'X-Request-Id, Retry-After, Location, WWW-Authenticate, Content-Disposition';

/** How long a browser may cache a preflight answer, in seconds. */
const PREFLIGHT_MAX_AGE = '600';

/** What the adapter does with one request. */
export type CorsDecision =
  /** Answer now: a preflight (204) or a refused preflight (403). */
  | { kind: 'answer'; status: number; headers: Record<string, string>; body: string | null }
  /** Let the engine answer and add these headers to its answer. */
  | { kind: 'decorate'; headers: Record<string, string> };

/** The CORS policy of one server, built once from its option. */
export interface CorsPolicy {
  /** Decides what to do with a request, from its method and headers only. */
  decide(method: string, headers: HeaderReader): CorsDecision;
}

/** An origin as a browser serializes it (`scheme://host[:port]`, lower case, default port dropped). */
export function normalizeOrigin(value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new Error(`CORS origin "${value}" is not an origin such as http://localhost:5173`);
  }
  if (url.origin === 'null' || !/^https?:$/.test(url.protocol) || (url.pathname !== '/' && url.pathname !== ''))
    throw new Error(`CORS origin "${value}" is not an origin such as http://localhost:5173 (scheme, host, port only)`);
  return url.origin;
}

const NO_CORS: CorsPolicy = { decide: () => ({ kind: 'decorate', headers: {} }) };

/**
 * The CORS policy of an option. Every answer varies on `Origin` (so a shared cache never hands one
 * origin's answer to another); an allowed origin is reflected with `Access-Control-Allow-Credentials:
 * true`, which is why it is reflected rather than `*` (browsers refuse `*` with credentials). A request
 * without `Origin` is not a CORS request and gets only `Vary`. Throws, naming the value, on a bad origin.
 */
export function createCorsPolicy(option: CorsOption = true): CorsPolicy {
  if (option === false) return NO_CORS;
  const listed = option === true ? [] : (option.origins ?? []);
  const allowed = listed.length > 0 ? new Set(listed.map(normalizeOrigin)) : undefined;
  const vary = { Vary: 'Origin' };
  return {
    decide(method, headers) {
      const origin = headers.get('origin');
      const preflight = method === 'OPTIONS' && headers.get('access-control-request-method') !== null;
      if (origin === null) return { kind: 'decorate', headers: vary };
      if (allowed && !allowed.has(origin)) {
        if (!preflight) return { kind: 'decorate', headers: vary };
        const detail = `Origin ${origin} is not allowed; the mock allows ${[...allowed].join(', ')} (restoapi-mock --cors-origin).`;
        return {
          kind: 'answer',
          status: 403,
          headers: { 'Content-Type': 'application/json; charset=utf-8', ...vary },
          body: JSON.stringify({
            errors: [{ status: '403', code: 'cors_origin_not_allowed', title: 'Origin not allowed', detail }],
          }),
        };
      }
      const granted: Record<string, string> = {
        'Access-Control-Allow-Origin': origin,
        'Access-Control-Allow-Credentials': 'true',
        ...vary,
      };
      if (!preflight)
        return { kind: 'decorate', headers: { ...granted, 'Access-Control-Expose-Headers': CORS_EXPOSED_HEADERS } };
      const requested = headers.get('access-control-request-headers');
      const answer: Record<string, string> = {
        ...granted,
        'Access-Control-Allow-Methods': CORS_ALLOWED_METHODS,
        'Access-Control-Max-Age': PREFLIGHT_MAX_AGE,
        Vary: 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers',
      };
      if (requested) answer['Access-Control-Allow-Headers'] = requested;
      // Chrome's Private Network Access: a page on a public origin asks before calling a loopback server.
      if (headers.get('access-control-request-private-network') === 'true')
        answer['Access-Control-Allow-Private-Network'] = 'true';
      return { kind: 'answer', status: 204, headers: answer, body: null };
    },
  };
}
