/**
 * The engine's own request and answer shapes. Every adapter (fetch `Request`, node:http, MSW) is a
 * thin conversion to and from these, so there is one engine. They exist for speed: building a fetch
 * `Request` (web streams, an AbortSignal, header validation) and a `Response` for every call cost more
 * than routing, authenticating, validating and answering together, so the node:http adapter builds
 * neither unless a route or handler asks for the `Request`.
 */

/** Reads one header: `Headers.get` semantics (case-insensitive name, repeats joined by `", "`, `null` when absent). */
export interface HeaderReader {
  get(name: string): string | null;
}

/** A request as the engine reads it. */
export interface EngineRequest {
  /** The method as a fetch `Request` normalizes it (`GET`, `POST`, …). */
  readonly method: string;
  /** The absolute URL, parsed once by the adapter. */
  readonly url: URL;
  readonly headers: HeaderReader;
  /** Whether there is a body stream at all (`Request.body !== null`); GET and HEAD never have one. */
  readonly hasBody: boolean;
  /** Reads the whole body (at most once). */
  bytes(): Promise<Uint8Array>;
  /**
   * The whole body when the adapter already holds it (a string body given to the in-process `fetch`, a small
   * body the node:http adapter read first), else `undefined`: the engine then reads it with {@link bytes}.
   * Reading it here does not use it up.
   */
  bytesNow?(): Uint8Array | undefined;
  /** The caller's signal, when the adapter has one (the in-process `fetch`): waits end early when it aborts. */
  readonly signal?: AbortSignal | undefined;
  /**
   * The same request as a fetch `Request`, built on first use: extra routes, the `beforeRequest` hook
   * and `ctx.request` receive this. The fetch adapter hands back the very object it was given.
   */
  toRequest(): Request;
}

/**
 * An answer of the engine, before an adapter writes it. `headers` is exactly what the engine would
 * have passed to `new Response(body, { status, headers })`; `body` is a JSON text, raw bytes, or null.
 */
export class EngineResponse {
  constructor(
    readonly status: number,
    readonly headers: Record<string, string>,
    readonly body: string | Uint8Array | null,
  ) {}
}

/** What the engine answers: its own {@link EngineResponse}, or the `Response` a route or hook returned (passed through untouched). */
export type EngineAnswer = EngineResponse | Response;

/** A fetch `Request` as an {@link EngineRequest}: its own headers, body and identity. */
class FetchEngineRequest implements EngineRequest {
  readonly method: string;
  readonly headers: HeaderReader;
  readonly hasBody: boolean;

  constructor(
    private readonly request: Request,
    readonly url: URL,
  ) {
    this.method = request.method;
    this.headers = request.headers;
    this.hasBody = request.body !== null;
  }

  async bytes(): Promise<Uint8Array> {
    return new Uint8Array(await this.request.arrayBuffer());
  }

  toRequest(): Request {
    return this.request;
  }
}

/** A fetch `Request` as an {@link EngineRequest}; `url` is the request's URL, already parsed by the caller. */
export function fromFetchRequest(request: Request, url: URL): EngineRequest {
  return new FetchEngineRequest(request, url);
}

/** Builds the fetch `Response` of an engine answer (what `handle` returns). */
export function toFetchResponse(answer: EngineResponse): Response {
  return new Response(answer.body as BodyInit | null, { status: answer.status, headers: answer.headers });
}

// The methods `fetch` upper-cases (any case); others go the `Request` way, which keeps or refuses them.
const NORMALIZED_METHOD = /^(?:get|post|put|delete|head|options)$/i;
// Header names are tokens; values may not hold CR, LF or NUL. Anything else goes the `Request` way (a TypeError).
const HEADER_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BAD_HEADER_VALUE = /[\r\n\0]/;
// The whitespace `Headers` strips from both ends of a value (HTTP tab, space, CR, LF), and nothing else.
const HTTP_WHITESPACE = /^[\t\n\r ]+|[\t\n\r ]+$/g;
const isHttpWhitespace = (code: number): boolean => code === 32 || code === 9 || code === 10 || code === 13;

/** A header value as `Headers` stores it: converted to a string and trimmed of HTTP whitespace. */
export function headerValue(value: unknown): string {
  const text = String(value);
  return isHttpWhitespace(text.charCodeAt(0)) || isHttpWhitespace(text.charCodeAt(text.length - 1))
    ? text.replace(HTTP_WHITESPACE, '')
    : text;
}

/** `Headers.get` over a plain header record, built as `new Headers(record)` would store it. */
class RecordHeaderReader implements HeaderReader {
  constructor(private readonly byName: Map<string, string>) {}

  get(name: string): string | null {
    return this.byName.get(name.toLowerCase()) ?? null;
  }
}

/**
 * A `fetch(input, init)` call as an {@link EngineRequest}, for the bound in-process `fetch`: the common call
 * (a URL string, a method, a header record or `Headers`, a string body) read as a `Request` would read it
 * (method normalized, header values trimmed, repeated names joined, a string body typed
 * `text/plain;charset=UTF-8` unless the caller says otherwise) without building one, which costs more than
 * answering. The `Request` is still built on first use by a route or hook that wants it.
 */
class InitEngineRequest implements EngineRequest {
  #request: Request | undefined;

  constructor(
    readonly method: string,
    readonly url: URL,
    readonly headers: HeaderReader,
    private readonly body: Uint8Array | undefined,
    private readonly input: string,
    private readonly init: RequestInit | undefined,
  ) {}

  get hasBody(): boolean {
    return this.body !== undefined;
  }

  get signal(): AbortSignal | undefined {
    return this.init?.signal ?? undefined;
  }

  async bytes(): Promise<Uint8Array> {
    if (this.#request) return new Uint8Array(await this.#request.arrayBuffer());
    return this.body ?? new Uint8Array(0);
  }

  bytesNow(): Uint8Array | undefined {
    // Once a route holds the fetch Request, the body belongs to it.
    return this.#request ? undefined : (this.body ?? new Uint8Array(0));
  }

  toRequest(): Request {
    this.#request ??= new Request(this.input, this.init);
    return this.#request;
  }
}

const encoder = new TextEncoder();

/**
 * The {@link EngineRequest} of a `fetch(input, init)` call when it is one of the common shapes (see
 * {@link InitEngineRequest}); `undefined` when it is anything else (a `Request`, a stream or form body, a
 * header list, an unusual method or header), which the caller then hands to `new Request(input, init)`:
 * the same answer, or the same `TypeError`, as before.
 */
export function fromFetchArguments(input: unknown, init: RequestInit | undefined): EngineRequest | undefined {
  if (typeof input !== 'string' && !(input instanceof URL)) return undefined;
  const href = String(input);
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return undefined;
  }
  let method = 'GET';
  if (init?.method !== undefined) {
    if (!NORMALIZED_METHOD.test(init.method)) return undefined;
    method = init.method.toUpperCase();
  }
  let body: Uint8Array | undefined;
  const given = init?.body;
  if (given !== undefined && given !== null) {
    if (typeof given !== 'string' || method === 'GET' || method === 'HEAD') return undefined;
    body = encoder.encode(given);
  }
  let headers: HeaderReader;
  const rawHeaders = init?.headers;
  if (rawHeaders instanceof Headers) {
    if (body !== undefined && !rawHeaders.has('content-type')) return undefined;
    headers = rawHeaders;
  } else if (
    rawHeaders === undefined ||
    (typeof rawHeaders === 'object' && typeof (rawHeaders as Iterable<unknown>)[Symbol.iterator] !== 'function')
  ) {
    const byName = new Map<string, string>();
    if (rawHeaders) {
      const record = rawHeaders as Record<string, unknown>;
      for (const name in record) {
        const value = record[name];
        if (!HEADER_NAME.test(name) || typeof value !== 'string' || BAD_HEADER_VALUE.test(value)) return undefined;
        const key = name.toLowerCase();
        const trimmed = headerValue(value);
        const seen = byName.get(key);
        byName.set(key, seen === undefined ? trimmed : `${seen}, ${trimmed}`);
      }
    }
    if (body !== undefined && !byName.has('content-type')) byName.set('content-type', 'text/plain;charset=UTF-8');
    headers = new RecordHeaderReader(byName);
  } else {
    return undefined;
  }
  return new InitEngineRequest(method, url, headers, body, href, init);
}
