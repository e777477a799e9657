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
