import type { Client } from 'openapi-fetch';
import { authorizationHeader } from '../raw/raw-client.js';
import type { CallSettings, Pipeline, PlainRequest } from './pipeline.js';

/*
 * The lean transport behind the resource methods.
 *
 * openapi-fetch builds a `Request`, merges headers through `Headers` objects and runs its middleware chain on
 * every call; profiled against the in-process mock that alone costs ~25–35 µs per call, more than the whole
 * 10 % budget. The resource methods know their path template and parameters already, so this transport only
 * builds the URL string and a plain header object and hands `{ url, method, headers, body }` to the pipeline,
 * which calls `fetch(url, init)` — no `Request` is made on the SDK side. The signatures are openapi-fetch's own
 * (`Client<Paths>['GET']`…), so every path, parameter and body stays typed from `src/generated/`.
 * `api.raw` is still the full openapi-fetch client for everything else.
 *
 * Wire format is openapi-fetch's default: path parameters `encodeURIComponent`-ed, query arrays as repeated keys
 * (`status=a&status=b`, form/explode), objects as `key[sub]=v` (deepObject), `null`/`undefined`/`[]` left out;
 * JSON bodies get `Content-Type: application/json`, `FormData` bodies none (fetch sets the boundary);
 * answers are parsed like openapi-fetch (`204`/`Content-Length: 0` → no data, error bodies JSON when they parse).
 */

/** How a resource call reaches the pipeline (added by `Core.invoke` to the call's init). */
export interface Dispatch {
  pipeline: Pipeline;
  settings: CallSettings;
}

/** What a lean call resolves to (openapi-fetch's result shape). */
export interface LeanOutcome {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** The typed methods the resources call: openapi-fetch's signatures, the lean implementation. */
export type LeanClient<Paths extends object> = Pick<Client<Paths>, 'GET' | 'PUT' | 'POST' | 'DELETE'>;

/** Settings shared by every call of one client. */
export interface TransportOptions {
  /** Base address without a trailing slash. */
  baseUrl: string;
  /** Headers added to every request. */
  headers?: Record<string, string> | undefined;
  /** The session token, read before every request (may be async). */
  token?: (() => string | null | undefined | Promise<string | null | undefined>) | undefined;
  /** Where the token goes. */
  tokenIn?: 'header' | 'query' | undefined;
}

interface LeanInit {
  params?: { path?: Record<string, unknown>; query?: Record<string, unknown> };
  body?: unknown;
  bodySerializer?: (body: unknown) => unknown;
  parseAs?: 'json' | 'text' | 'blob' | 'arrayBuffer' | 'stream';
  headers?: Record<string, string>;
  dispatch: Dispatch;
}

const PATH_PARAM = /\{([^}]+)\}/g;

/** `name=value` pairs of one query parameter, as openapi-fetch's default serializer writes them. */
function appendQuery(parts: string[], name: string, value: unknown): void {
  if (value === undefined || value === null) return;
  // Names go as they are and values encoded, as openapi-fetch's default serializer does.
  if (Array.isArray(value)) {
    for (const item of value) parts.push(`${name}=${encodeURIComponent(String(item))}`);
  } else if (typeof value === 'object') {
    for (const [sub, item] of Object.entries(value as Record<string, unknown>))
      // deepObject: `name[sub]=value`, the brackets unencoded as openapi-fetch writes them.
      if (item !== undefined && item !== null) parts.push(`${name}[${sub}]=${encodeURIComponent(String(item))}`);
  } else {
    parts.push(`${name}=${encodeURIComponent(String(value))}`);
  }
}

/** A path template split once: literal parts at even indexes, parameter names at odd ones. */
const templates = new Map<string, string[]>();

function templateOf(path: string): string[] {
  let parts = templates.get(path);
  if (parts === undefined) {
    // `split` with a capturing group keeps the names: '/a/{id}/b' → ['/a/', 'id', '/b'].
    parts = path.split(PATH_PARAM);
    templates.set(path, parts);
  }
  return parts;
}

/** Builds the URL of a call: base + path template with its parameters + query string. */
export function buildUrl(
  baseUrl: string,
  path: string,
  pathParams: Record<string, unknown> | undefined,
  query: Record<string, unknown> | undefined,
  token?: string,
): string {
  let url = baseUrl;
  if (pathParams) {
    const parts = templateOf(path);
    url += parts[0]!;
    for (let i = 1; i < parts.length; i += 2) {
      const value = pathParams[parts[i]!];
      url += value === undefined || value === null ? `{${parts[i]!}}` : encodeURIComponent(String(value));
      url += parts[i + 1]!;
    }
  } else {
    url += path;
  }
  const parts: string[] = [];
  if (query) for (const name in query) appendQuery(parts, name, query[name]);
  if (token !== undefined) parts.push(`token=${encodeURIComponent(token)}`);
  return parts.length ? `${url}?${parts.join('&')}` : url;
}

/** Copies `from` into `to` with lower-cased names, so that a caller's `authorization` replaces the SDK's. */
function mergeInto(to: Record<string, string>, from: Record<string, string> | undefined): void {
  if (from) for (const name in from) to[name.toLowerCase()] = from[name]!;
}

/** Reads the answer's body the way openapi-fetch does. */
async function readOutcome(response: Response, method: string, parseAs: LeanInit['parseAs']): Promise<LeanOutcome> {
  const length = response.headers.get('content-length');
  if (
    response.status === 204 ||
    method === 'HEAD' ||
    (length === '0' && !response.headers.get('transfer-encoding')?.includes('chunked'))
  )
    return response.ok ? { data: undefined, response } : { error: undefined, response };
  if (response.ok) {
    if (parseAs === 'stream') return { data: response.body, response };
    if ((parseAs === undefined || parseAs === 'json') && !length) {
      // No length announced: the body may be empty, which is no data (as in openapi-fetch).
      const text = await response.text();
      return { data: text ? JSON.parse(text) : undefined, response };
    }
    if (parseAs === undefined) return { data: await response.json(), response };
    return { data: await response[parseAs](), response };
  }
  const text = await response.text();
  let error: unknown = text;
  try {
    error = JSON.parse(text);
  } catch {
    // Not JSON: the error body stays text.
  }
  return { error, response };
}

/** Creates the lean typed client of one API. */
export function createLeanClient<Paths extends object>(options: TransportOptions): LeanClient<Paths> {
  const { baseUrl, token, tokenIn = 'header' } = options;
  const baseHeaders: Record<string, string> = {};
  mergeInto(baseHeaders, options.headers);
  const hasBaseHeaders = Object.keys(baseHeaders).length > 0;

  function call(method: string, path: string, init: LeanInit): Promise<LeanOutcome> {
    const value = token?.();
    // Only an async token source costs a promise hop; a plain token is used at once.
    return value instanceof Promise ? value.then((t) => send(method, path, init, t)) : send(method, path, init, value);
  }

  // The header value of the last token seen, so that the string is built once per token, not per call.
  let lastToken: string | undefined;
  let lastAuthorization = '';

  async function send(
    method: string,
    path: string,
    init: LeanInit,
    tokenValue: string | null | undefined,
  ): Promise<LeanOutcome> {
    const params = init.params;
    const inQuery = tokenValue && tokenIn === 'query' ? tokenValue : undefined;
    const url = buildUrl(baseUrl, path, params?.path, params?.query, inQuery);
    const headers: Record<string, string> = {};
    let payload: BodyInit | undefined;
    if (init.body !== undefined) {
      payload = (init.bodySerializer ? init.bodySerializer(init.body) : JSON.stringify(init.body)) as BodyInit;
      if (!(payload instanceof FormData)) headers['content-type'] = 'application/json';
    }
    if (hasBaseHeaders) Object.assign(headers, baseHeaders);
    if (init.headers) mergeInto(headers, init.headers);
    // Set last, as the raw client's token middleware does: the session token wins over a call's header.
    if (tokenValue && tokenIn === 'header') {
      if (tokenValue !== lastToken) {
        lastToken = tokenValue;
        lastAuthorization = authorizationHeader(tokenValue);
      }
      headers.authorization = lastAuthorization;
    }
    const request: PlainRequest = { url, method, headers, body: payload };
    const response = await init.dispatch.pipeline(request, init.dispatch.settings);
    return await readOutcome(response, method, init.parseAs);
  }

  const method =
    (name: string) =>
    (path: string, init: LeanInit): Promise<LeanOutcome> =>
      call(name, path, init);
  // The implementation is untyped inside; the signatures above (openapi-fetch's) type every call site.
  return {
    GET: method('GET'),
    PUT: method('PUT'),
    POST: method('POST'),
    DELETE: method('DELETE'),
  } as unknown as LeanClient<Paths>;
}
