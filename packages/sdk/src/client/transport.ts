import type { MaybeOptionalInit } from 'openapi-fetch';
import { authorizationHeader } from '../raw/raw-client.js';
import type { CallSettings, Pipeline, PlainRequest } from './pipeline.js';

/*
 * The lean transport behind the resource methods.
 *
 * openapi-fetch builds a `Request`, merges headers through `Headers` objects and runs its middleware chain on
 * every call; profiled against the in-process mock that alone costs ~25–35 µs per call, more than the whole
 * 10 % budget. The resource methods know their path template and parameters already, so this transport only
 * builds the URL string and a plain header object and hands `{ url, method, headers, body }` to the pipeline,
 * which calls `fetch(url, init)` — no `Request` is made on the SDK side — and reads the answer with the call's
 * reader (`Core.invoke`'s), so a call resolves to its data. The parameters are openapi-fetch's own, so every
 * path, parameter and body stays typed from `src/generated/`. `api.raw` is still the full openapi-fetch client
 * for everything else.
 *
 * Wire format is openapi-fetch's default: path parameters `encodeURIComponent`-ed, query arrays as repeated keys
 * (`status=a&status=b`, form/explode), objects as `key[sub]=v` (deepObject), `null`/`undefined`/`[]` left out;
 * JSON bodies get `Content-Type: application/json`, `FormData` bodies none (fetch sets the boundary).
 */

/** How the body of a success answer is read (openapi-fetch's `parseAs`). */
export type ParseAs = 'json' | 'text' | 'blob' | 'arrayBuffer' | 'stream';

/** What a call tells the pipeline, plus how its success body is read. */
export interface LeanCallSettings extends CallSettings {
  parseAs?: ParseAs | undefined;
}

/** How a resource call reaches the pipeline: `Core.invoke` hands it to the resource, which passes it on last. */
export interface Dispatch {
  pipeline: Pipeline;
  settings: LeanCallSettings;
  /** The caller's headers for this call (the call options'). */
  headers?: Record<string, string> | undefined;
}

type HttpMethod = 'get' | 'put' | 'post' | 'delete';
/** The paths of `Paths` that have the method `M`. */
type PathsWith<Paths, M extends HttpMethod> = {
  [P in keyof Paths]: Paths[P] extends { [K in M]: unknown } ? P : never;
}[keyof Paths];
/** What the resources may add to openapi-fetch's init. */
interface LeanExtras {
  parseAs?: ParseAs;
  /** The resource's own headers (they win over the caller's). */
  headers?: Record<string, string>;
}
/**
 * One typed method: openapi-fetch's path and init (here always given, `{}` when empty), then the call's
 * dispatch. It resolves to what the call's reader returns. The dispatch is a separate argument, not a key of
 * the init: an object spread per call (`{ ...init, params }`) costs ~0.5 µs in V8.
 */
type LeanMethod<Paths, M extends HttpMethod> = <
  P extends PathsWith<Paths, M>,
  Init extends MaybeOptionalInit<Paths[P] & Record<HttpMethod, unknown>, M>,
>(
  path: P,
  init: Init & LeanExtras,
  dispatch: Dispatch,
) => Promise<unknown>;

/** The typed methods the resources call. */
export interface LeanClient<Paths> {
  GET: LeanMethod<Paths, 'get'>;
  PUT: LeanMethod<Paths, 'put'>;
  POST: LeanMethod<Paths, 'post'>;
  DELETE: LeanMethod<Paths, 'delete'>;
}

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

interface LeanInit extends LeanExtras {
  params?: { path?: Record<string, unknown>; query?: Record<string, unknown> };
  body?: unknown;
  bodySerializer?: (body: unknown) => unknown;
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
      // Ids are integers, which need no encoding.
      url += Number.isSafeInteger(value)
        ? String(value)
        : value === undefined || value === null
          ? `{${parts[i]!}}`
          : encodeURIComponent(String(value));
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

/** Creates the lean typed client of one API. */
export function createLeanClient<Paths>(options: TransportOptions): LeanClient<Paths> {
  const { baseUrl, token, tokenIn = 'header' } = options;
  const baseHeaders: Record<string, string> = {};
  mergeInto(baseHeaders, options.headers);
  const hasBaseHeaders = Object.keys(baseHeaders).length > 0;

  function call(method: string, path: string, init: LeanInit, dispatch: Dispatch): Promise<unknown> {
    try {
      const value = token?.();
      // Only an async token source costs a promise hop; a plain token is used at once.
      return value instanceof Promise
        ? value.then((t) => send(method, path, init, dispatch, t))
        : send(method, path, init, dispatch, value);
    } catch (error) {
      // A token source or body serializer that throws (a bad upload input…) fails the call, never its caller.
      return Promise.reject(error);
    }
  }

  // The header value of the last token seen, so that the string is built once per token, not per call.
  let lastToken: string | undefined;
  let lastAuthorization = '';

  function send(
    method: string,
    path: string,
    init: LeanInit,
    dispatch: Dispatch,
    tokenValue: string | null | undefined,
  ): Promise<unknown> {
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
    if (dispatch.headers) mergeInto(headers, dispatch.headers);
    if (init.headers) mergeInto(headers, init.headers);
    // Set last, as the raw client's token middleware does: the session token wins over a call's header.
    if (tokenValue && tokenIn === 'header') {
      if (tokenValue !== lastToken) {
        lastToken = tokenValue;
        lastAuthorization = authorizationHeader(tokenValue);
      }
      headers.authorization = lastAuthorization;
    }
    const settings = dispatch.settings;
    if (init.parseAs !== undefined) settings.parseAs = init.parseAs;
    const request: PlainRequest = { url, method, headers, body: payload };
    return dispatch.pipeline(request, settings);
  }

  const method =
    (name: string) =>
    (path: string, init: LeanInit, dispatch: Dispatch): Promise<unknown> =>
      call(name, path, init, dispatch);
  // The implementation is untyped inside; the signatures above type every call site.
  return {
    GET: method('GET'),
    PUT: method('PUT'),
    POST: method('POST'),
    DELETE: method('DELETE'),
  } as unknown as LeanClient<Paths>;
}
