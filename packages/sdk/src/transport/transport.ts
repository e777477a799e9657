import {
  createQuerySerializer,
  defaultBodySerializer,
  defaultPathSerializer,
  type MaybeOptionalInit,
} from 'openapi-fetch';
import type { CallSettings, Pipeline, PlainRequest } from './pipeline.js';

/*
 * The one transport of a client: every call, from a resource method or from the raw openapi-fetch client, goes
 * through it to the request pipeline, and it is the one place that adds the session token.
 *
 * - Resource methods call `send` with the operation (`'GET /api/orders/{id}'`) and openapi-fetch's own init
 *   (`{ params, body }`, typed from the generated `paths`). The URL and body are made by openapi-fetch's exported
 *   serialisers (plain `{id}` path parameters by a shortcut that writes the same, see `pathOf`), so the wire
 *   format is openapi-fetch's: path parameters `encodeURIComponent`-ed,
 *   query arrays as repeated keys (form/explode), objects as `key[sub]=v` (deepObject), `null`/`undefined`/`[]`
 *   left out; JSON bodies with `Content-Type: application/json`, `FormData` bodies without (fetch sets the
 *   boundary). What is skipped is openapi-fetch's per-call `Request`, `Headers` and middleware chain (~25–35 µs a
 *   call against the in-process mock, more than the SDK's whole overhead budget): the request goes to the
 *   pipeline as plain data `{ url, method, headers, body }` with a plain header record.
 * - The raw client (`api.raw`) is openapi-fetch itself, whose `fetch` is this transport's `fetch`: it adds the
 *   same token to openapi-fetch's `Request` and hands it to the same pipeline.
 */

/** How the body of a success answer is read (openapi-fetch's `parseAs`). */
export type ParseAs = 'json' | 'text' | 'blob' | 'arrayBuffer' | 'stream';

/** What a call tells the pipeline, plus how its success body is read. */
export interface TransportCallSettings extends CallSettings {
  parseAs?: ParseAs | undefined;
}

type HttpMethod = 'get' | 'put' | 'post' | 'delete';

/** What a resource may add to openapi-fetch's init. */
interface InitExtras {
  parseAs?: ParseAs;
  /** The resource's own headers (they win over the caller's). */
  headers?: Record<string, string>;
}

/**
 * openapi-fetch's init of the operation `K` (`'GET /api/orders/{id}'`) of `Paths`, typed from the generated
 * `paths` (a wrong parameter name or type fails to compile), always given (`{}` when empty).
 */
export type OperationInit<Paths, K extends string> = K extends `${infer M} ${infer P}`
  ? P extends keyof Paths
    ? Lowercase<M> extends HttpMethod
      ? NonNullable<MaybeOptionalInit<Paths[P] & Record<HttpMethod, unknown>, Lowercase<M>>> & InitExtras
      : never
    : never
  : never;

/** The init as the transport reads it. */
export interface SendInit extends InitExtras {
  params?: { path?: Record<string, unknown>; query?: Record<string, unknown> };
  body?: unknown;
  bodySerializer?: (body: unknown) => unknown;
}

/** A session token source, read before every request (may be async). */
export type TokenSource = () => string | null | undefined | Promise<string | null | undefined>;

/** Settings shared by every call of one client. */
export interface TransportOptions {
  /** Base address without a trailing slash. */
  baseUrl: string;
  /** Headers added to every request. */
  headers?: Record<string, string> | undefined;
  /** The session token, read before every request. */
  token?: TokenSource | undefined;
  /** Where the token goes. */
  tokenIn?: 'header' | 'query' | undefined;
  /** Where every request goes: timeouts, retries, errors. */
  pipeline: Pipeline;
}

/** One client's transport: `send` for the resource methods, `fetch` for the raw openapi-fetch client. */
export interface Transport {
  /**
   * Sends the operation `operation` (`METHOD path`) with openapi-fetch's `init` (or a promise of it, for bodies
   * that are read first) through the pipeline; resolves to what the call's reader makes of the answer.
   */
  send(
    operation: string,
    init: SendInit | Promise<SendInit>,
    settings: TransportCallSettings,
    callerHeaders: Record<string, string> | undefined,
  ): Promise<unknown>;
  /** openapi-fetch's `fetch`: the token added to its `Request`, then the pipeline. */
  fetch(request: Request): Promise<Response>;
}

/** Formats the spec's authorization header: `Token token="<ACCESS_TOKEN>"`. */
export function authorizationHeader(token: string): string {
  return `Token token="${token}"`;
}

/** `request` carrying the session token `token` in the `Authorization` header or the `token` query parameter. */
export function authorizeRequest(request: Request, token: string, tokenIn: 'header' | 'query' = 'header'): Request {
  if (tokenIn === 'query') {
    const url = new URL(request.url);
    url.searchParams.set('token', token);
    return new Request(url, request);
  }
  request.headers.set('Authorization', authorizationHeader(token));
  return request;
}

/** An operation split once: its method, its path template, and the template's literal parts and parameter names. */
interface Target {
  method: string;
  path: string;
  /** Literal parts at even indexes, parameter names at odd ones (`'/a/{id}/b'` → `['/a/', 'id', '/b']`). */
  parts: string[];
  /** Whether every parameter is a plain `{name}` (simple style, no explode): the only kind the fast path writes. */
  simple: boolean;
}

const targets = new Map<string, Target>();

function targetOf(operation: string): Target {
  let target = targets.get(operation);
  if (target === undefined) {
    const space = operation.indexOf(' ');
    const path = operation.slice(space + 1);
    // `split` with a capturing group keeps the names.
    const parts = path.split(/\{([^{}]+)\}/g);
    const simple = parts.every((part, i) => i % 2 === 0 || /^[^.;*][^*]*$/.test(part));
    target = { method: operation.slice(0, space), path, parts, simple };
    targets.set(operation, target);
  }
  return target;
}

/**
 * The path of a call. A template of plain `{name}` parameters with primitive values is written from its parts
 * split once, which is what openapi-fetch's `defaultPathSerializer` writes for them (`encodeURIComponent` of the
 * value; the test compares the two); anything else goes to `defaultPathSerializer` itself. The shortcut exists
 * because that serialiser's regex match and `replace` per call cost ~1.3 µs of a ~2 µs per-call budget in the
 * overhead bench (its garbage included).
 */
function pathOf(target: Target, params: Record<string, unknown>): string {
  if (!target.simple) return defaultPathSerializer(target.path, params);
  const parts = target.parts;
  let url = parts[0]!;
  for (let i = 1; i < parts.length; i += 2) {
    const value = params[parts[i]!];
    // Ids are integers, which need no encoding.
    if (Number.isSafeInteger(value)) url += String(value);
    else if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean')
      url += encodeURIComponent(value);
    else return defaultPathSerializer(target.path, params);
    url += parts[i + 1]!;
  }
  return url;
}

/**
 * Copies `from` into `to` with lower-cased names, so that a caller's `authorization` replaces the SDK's. A plain
 * record, not openapi-fetch's `mergeHeaders`: that one builds a `Headers` object per call, which `fetch` then copies.
 */
function mergeInto(to: Record<string, string>, from: Record<string, string> | undefined): void {
  if (from) for (const name in from) to[name.toLowerCase()] = from[name]!;
}

/** Creates the transport of one client. */
export function createTransport(options: TransportOptions): Transport {
  const { baseUrl, token, tokenIn = 'header', pipeline } = options;
  const baseHeaders: Record<string, string> = {};
  mergeInto(baseHeaders, options.headers);
  const hasBaseHeaders = Object.keys(baseHeaders).length > 0;
  const querySerializer = createQuerySerializer();

  // The header value of the last token seen, so that the string is built once per token, not per call.
  let lastToken: string | undefined;
  let lastAuthorization = '';

  function build(
    operation: string,
    init: SendInit,
    settings: TransportCallSettings,
    callerHeaders: Record<string, string> | undefined,
    tokenValue: string | null | undefined,
  ): Promise<unknown> {
    const target = targetOf(operation);
    const params = init.params;
    let url = baseUrl + (params?.path ? pathOf(target, params.path) : target.path);
    let search = params?.query ? querySerializer(params.query) : '';
    if (tokenValue && tokenIn === 'query') search += `${search ? '&' : ''}token=${encodeURIComponent(tokenValue)}`;
    if (search) url += `?${search}`;
    const headers: Record<string, string> = {};
    let body: BodyInit | undefined;
    if (init.body !== undefined) {
      body = (init.bodySerializer ? init.bodySerializer(init.body) : defaultBodySerializer(init.body)) as BodyInit;
      if (!(body instanceof FormData)) headers['content-type'] = 'application/json';
    }
    if (hasBaseHeaders) Object.assign(headers, baseHeaders);
    mergeInto(headers, callerHeaders);
    mergeInto(headers, init.headers);
    // Set last, as on the raw client: the session token wins over a call's header.
    if (tokenValue && tokenIn === 'header') {
      if (tokenValue !== lastToken) {
        lastToken = tokenValue;
        lastAuthorization = authorizationHeader(tokenValue);
      }
      headers.authorization = lastAuthorization;
    }
    if (init.parseAs !== undefined) settings.parseAs = init.parseAs;
    const request: PlainRequest = { url, method: target.method, headers, body };
    return pipeline(request, settings);
  }

  // Apart from `send`: a closure inside it would make every call allocate a context for its arguments.
  function buildLater(
    operation: string,
    init: SendInit | Promise<SendInit>,
    settings: TransportCallSettings,
    callerHeaders: Record<string, string> | undefined,
    value: string | null | undefined | Promise<string | null | undefined>,
  ): Promise<unknown> {
    return Promise.all([value, init]).then(([t, i]) => build(operation, i, settings, callerHeaders, t));
  }

  return {
    send(operation, init, settings, callerHeaders) {
      try {
        const value = token?.();
        // Only an async token or init costs a promise hop; the common call is built at once.
        if (value instanceof Promise || init instanceof Promise)
          return buildLater(operation, init, settings, callerHeaders, value);
        return build(operation, init, settings, callerHeaders, value);
      } catch (error) {
        // A token source or body serializer that throws fails the call, never its caller.
        return Promise.reject(error);
      }
    },
    async fetch(request) {
      const value = await token?.();
      return pipeline(value ? authorizeRequest(request, value, tokenIn) : request);
    },
  };
}
