/**
 * @restoapi/mock-server/node: serves a mock instance over node:http.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { Readable } from 'node:stream';
import { fetchResponseOf, requestId } from './engine/engine.js';
import { badRequest } from './engine/http-error.js';
import {
  EngineResponse,
  headerValue,
  type EngineAnswer,
  type EngineRequest,
  type HeaderReader,
} from './engine/engine-request.js';
import { createCorsPolicy, type CorsOption } from './cors/cors-policy.js';
import { createMock, type Mock, type MockOptions } from './index.js';
import { SESSION_HEADER } from './sessions/session-registry.js';
import { isLoopbackHost, nodeOutbound } from './net/node-outbound.js';

export { createOutboundFetch, isLoopbackHost, nodeOutbound, type OutboundFetchOptions } from './net/node-outbound.js';
export { CORS_ALLOWED_METHODS, CORS_EXPOSED_HEADERS, type CorsOption, type CorsOptions } from './cors/cors-policy.js';

/** Options of {@link createMockServer}. */
export interface MockServerOptions extends MockOptions {
  /** Port to listen on; 0 picks a free one (default). */
  port?: number;
  /** Interface to listen on (default `127.0.0.1`). */
  host?: string;
  /**
   * CORS, so that pages on other origins can call the mock: on by default for every origin,
   * `{ origins: ['http://localhost:5173'] }` limits it, `false` switches it off.
   */
  cors?: CorsOption;
  /**
   * Start on an interface other than loopback without a `controlToken`, leaving the control API open to
   * everyone who can reach the port. Refused otherwise (`restoapi-mock --insecure-control`).
   */
  insecureControl?: boolean;
  /** The resolver outbound connections use (`dns.lookup` by default); tests simulate DNS rebinding with one. */
  outboundLookup?: LookupFunction;
}

/** A server on a non-loopback interface without a control token, not allowed by `insecureControl`. */
export class OpenControlError extends Error {
  constructor(host: string) {
    super(
      `the mock would listen on ${host}, reachable from the network, with its control API (/__mock) open to everyone: ` +
        'give a token with --control-token (or RESTOAPI_MOCK_CONTROL_TOKEN), listen on 127.0.0.1, ' +
        'or pass --insecure-control to accept it',
    );
    this.name = 'OpenControlError';
  }
}

/** A running mock server. */
export interface MockServer {
  /** Base URL of the main API, e.g. `http://127.0.0.1:4010`. */
  url: string;
  /** The mock behind the server (its default session; `mock.session(name)` for a named one). */
  mock: Mock;
  server: Server;
  /** Stops listening and stops the instance's timers. */
  close(): Promise<void>;
}

/** `rawHeaders` as `[name, value]` pairs: repeated headers stay separate pairs, which `Headers` accepts as tuples. */
function headerPairs(raw: readonly string[]): [string, string][] {
  const headers: [string, string][] = [];
  for (let i = 0; i < raw.length; i += 2) headers.push([raw[i]!, raw[i + 1]!]);
  return headers;
}

/** Converts a node:http request into a fetch `Request`. */
export function toFetchRequest(req: IncomingMessage, origin: string): Request {
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(origin + (req.url ?? '/'), {
    method,
    headers: headerPairs(req.rawHeaders),
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream, duplex: 'half' } : {}),
  } as RequestInit);
}

/** Writes a fetch `Response` to a node:http response. */
export async function writeFetchResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  // The engine's answers are complete in memory; one buffer and one write beat streaming chunks.
  const body = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
  if (body) headers['content-length'] = String(body.byteLength);
  res.writeHead(response.status, headers);
  res.end(body);
}

/**
 * `Headers.get` over a node:http message without building `Headers`: names compared case-insensitively,
 * repeated headers joined with `", "` (node's own `req.headers` keeps only the first of some, such as
 * Authorization, where a fetch `Headers` joins them; this keeps the fetch behaviour). A scan of the raw pairs
 * per read, comparing lengths first: a request has a handful of headers and the engine reads about seven, and
 * a map of them built per request (a lower-cased copy of each name) cost more than the scans (profiled).
 */
class RawHeaderReader implements HeaderReader {
  constructor(private readonly raw: readonly string[]) {}

  get(name: string): string | null {
    const raw = this.raw;
    let found: string | null = null;
    for (let i = 0; i < raw.length; i += 2) {
      const key = raw[i]!;
      if (key.length !== name.length || !sameName(key, name)) continue;
      found = found === null ? raw[i + 1]! : `${found}, ${raw[i + 1]!}`;
    }
    return found;
  }
}

/** Whether two header names of the same length are equal ignoring ASCII case (header names are tokens). */
function sameName(a: string, b: string): boolean {
  if (a === b) return true;
  for (let i = 0; i < a.length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    // Only letters may differ by case: `x | 0x20` also maps `@` to `` ` `` and `^` to `~`.
    const lower = x | 0x20;
    if (lower !== (y | 0x20) || lower < 0x61 || lower > 0x7a) return false;
  }
  return true;
}

/** Collects a node:http body and hands it over whole, in one buffer, once it has ended. */
function collect(req: IncomingMessage, done: (body: Buffer) => void): void {
  const chunks: Buffer[] = [];
  let size = 0;
  req.on('data', (chunk: Buffer) => {
    chunks.push(chunk);
    size += chunk.length;
  });
  req.on('end', () => done(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)));
}

/** Reads a whole node:http body into one buffer. */
function readAll(req: IncomingMessage): Promise<Uint8Array> {
  return new Promise((resolve, reject) => {
    collect(req, resolve);
    req.on('error', reject);
  });
}

/**
 * A node:http request as the engine's {@link EngineRequest}: the method, URL, headers and body that
 * {@link toFetchRequest} would give, without building a fetch `Request` (web streams, an AbortSignal,
 * header validation) unless a route, hook or handler asks for one. A class, so that nothing is created
 * per request but the object itself.
 */
class NodeEngineRequest implements EngineRequest {
  readonly method: string;
  readonly headers: HeaderReader;
  readonly hasBody: boolean;
  #request: Request | undefined;
  #reading: Promise<Uint8Array> | undefined;
  #body: Uint8Array | undefined;

  constructor(
    private readonly req: IncomingMessage,
    private readonly origin: string,
    private readonly href: string,
    readonly url: URL,
  ) {
    this.method = req.method ?? 'GET';
    this.headers = new RawHeaderReader(req.rawHeaders);
    this.hasBody = this.method !== 'GET' && this.method !== 'HEAD';
  }

  bytes(): Promise<Uint8Array> {
    // Once a route holds the fetch Request, the body belongs to it (as when every request was one).
    if (this.#request) return this.#request.arrayBuffer().then((buffer) => new Uint8Array(buffer));
    if (this.#body !== undefined) return Promise.resolve(this.#body);
    this.#reading ??= readAll(this.req).then((bytes) => (this.#body = bytes));
    return this.#reading;
  }

  bytesNow(): Uint8Array | undefined {
    return this.#request ? undefined : this.#body;
  }

  /**
   * Reads the body before the engine sees the request, as a hand-written server does, then answers the request
   * (never when the client aborts: there is nobody to answer). Only for small declared bodies (see
   * {@link readsBodyFirst}), so the engine's size limits still refuse a large one before it is read. Two
   * closures per request, the listeners a hand-written server makes too; a `then` callback handed in and a
   * generic collector made two more, and a settled promise of the body one more object.
   */
  readFirstThenAnswer(mock: Mock, res: ServerResponse, decorate: Readonly<Record<string, string>> | undefined): void {
    const chunks: Buffer[] = [];
    let size = 0;
    this.req.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
    });
    this.req.on('end', () => {
      this.#body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      answerRequest(mock, this, res, decorate);
    });
  }

  toRequest(): Request {
    // After the engine read the body from the socket, the Request carries those bytes.
    this.#request ??=
      this.#reading !== undefined || this.#body !== undefined
        ? new Request(this.href, {
            method: this.method,
            headers: headerPairs(this.req.rawHeaders),
            body: (this.#body ?? null) as BodyInit | null,
          })
        : toFetchRequest(this.req, this.origin);
    return this.#request;
  }
}

/** Bodies up to this size, declared by `Content-Length`, are read before the engine runs (see `readFirst`). */
const READ_FIRST_BYTES = 64 * 1024;

/**
 * Whether a request's body is small and declared, so that reading it first changes nothing but the time of
 * the answer: within the default instance's body limit (a body declared larger is refused before it is sent,
 * as before), and for the default instance only (a named session may have a limit of its own).
 */
function readsBodyFirst(request: EngineRequest, limit: number): request is NodeEngineRequest {
  if (!(request instanceof NodeEngineRequest) || !request.hasBody) return false;
  if (request.headers.get('transfer-encoding') !== null || request.headers.get(SESSION_HEADER) !== null) return false;
  const declared = request.headers.get('content-length');
  // node's parser has already refused a Content-Length that is not a decimal number.
  return declared !== null && declared !== '0' && Number(declared) <= Math.min(READ_FIRST_BYTES, limit);
}

/**
 * A node:http request as the engine's {@link EngineRequest} (see {@link NodeEngineRequest}). `undefined`
 * when the URL cannot be parsed; the caller then takes the fetch path, which fails the way it always has.
 */
export function toEngineRequest(req: IncomingMessage, origin: string): EngineRequest | undefined {
  const href = origin + (req.url ?? '/');
  let url: URL;
  try {
    url = new URL(href);
  } catch {
    return undefined;
  }
  return new NodeEngineRequest(req, origin, href, url);
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});

/** Header names lower-cased, remembered: the engine uses a handful of names on every answer. */
const LOWER_CASE = new Map<string, string>();

function lowerCase(name: string): string {
  let lower = LOWER_CASE.get(name);
  if (lower === undefined) {
    lower = name.toLowerCase();
    // Bounded: names come from handlers and routes, not from requests, but a route could make them up.
    if (LOWER_CASE.size < 256) LOWER_CASE.set(name, lower);
  }
  return lower;
}

/**
 * Sorts `names` (unique) into the order `Array.prototype.sort` puts them (the order `Headers` iterates),
 * moving `values` along. In place, by insertion: an answer has a handful of headers, and a sort with a
 * comparator closure and an index array cost the created dish about 1 µs a request under load (profiled).
 */
function sortHeaders(names: string[], values: string[]): void {
  for (let i = 1; i < names.length; i++) {
    const name = names[i]!;
    if (names[i - 1]! <= name) continue;
    const value = values[i]!;
    let j = i - 1;
    while (j >= 0 && names[j]! > name) {
      names[j + 1] = names[j]!;
      values[j + 1] = values[j]!;
      j--;
    }
    names[j + 1] = name;
    values[j + 1] = value;
  }
}

/** Below this many characters a text body is written as a string, from it on as a buffer (see {@link writeEngineResponse}). */
const SMALL_TEXT = 16 * 1024;

/**
 * Writes an engine answer to a node:http response with exactly the header lines {@link writeFetchResponse}
 * would write for the `Response` of it: lower-case names in the sorted order `Headers` iterates, values
 * trimmed as `Headers` trims them, repeated names joined (set-cookie: the last one, as `forEach` into a
 * record leaves it), then `content-length`. Returns false, having written nothing, when node refuses a
 * header, so that the caller can take the fetch path, which answers such a case exactly as before.
 */
export function writeEngineResponse(
  answer: EngineResponse,
  res: ServerResponse,
  leading: Readonly<Record<string, string>> = NO_HEADERS,
): boolean {
  // Names and values side by side: an answer has a handful of headers, and a null-prototype record (a
  // dictionary object in V8) cost more to fill and probe than a scan of so few names.
  const names: string[] = [];
  const values: string[] = [];
  for (const name in answer.headers) {
    const key = lowerCase(name);
    const value = headerValue(answer.headers[name]);
    const seen = names.indexOf(key);
    if (seen === -1) {
      names.push(key);
      values.push(value);
    } else values[seen] = key !== 'set-cookie' ? `${values[seen]!}, ${value}` : value;
  }
  sortHeaders(names, values);
  // A flat [name, value, …] list, which node takes as it is: measured on loopback, writing the header
  // block from an object cost about 5 µs more per request. The `leading` headers (CORS) go first, as
  // `setHeader` before `writeHead` would place them; when the answer repeats one of them, `setHeader` is
  // used, so that the answer's value replaces it in place exactly as node does it.
  const headers: string[] = [];
  let collides = false;
  for (const name in leading) if (names.includes(lowerCase(name))) collides = true;
  for (const name in leading) {
    if (collides) res.setHeader(name, leading[name]!);
    else headers.push(name, leading[name]!);
  }
  for (let i = 0; i < names.length; i++) headers.push(names[i]!, values[i]!);
  // Measured on loopback: a small text goes out faster as a string (node sends it in the same write as the
  // header block), a large one (list pages) faster encoded once into a buffer.
  const text = typeof answer.body === 'string' ? answer.body : undefined;
  const body = text !== undefined && text.length >= SMALL_TEXT ? Buffer.from(text) : answer.body;
  if (body !== null)
    headers.push('content-length', String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength));
  try {
    res.writeHead(answer.status, headers);
  } catch {
    return false;
  }
  res.end(body ?? undefined);
  return true;
}

/** Writes an answer, with the CORS headers first. */
function send(answer: EngineAnswer, res: ServerResponse, decorate: Readonly<Record<string, string>> | undefined): void {
  if (answer instanceof EngineResponse && writeEngineResponse(answer, res, decorate)) return;
  // Set before the answer is written: node merges them into its header block.
  for (const name in decorate) res.setHeader(name, decorate[name]!);
  writeFetchResponse(fetchResponseOf(answer), res).catch((error: unknown) => fail(error, res, decorate));
}

/** Answers a bug of the mock with a 500 naming it, or ends an answer already under way. */
function fail(error: unknown, res: ServerResponse, decorate: Readonly<Record<string, string>> | undefined): void {
  if (!res.headersSent) {
    for (const name in decorate) res.setHeader(name, decorate[name]!);
    res.writeHead(500, { 'Content-Type': 'application/json' });
  }
  res.end(
    JSON.stringify({
      errors: [{ status: '500', code: 'internal', title: 'Internal error', detail: String(error) }],
    }),
  );
}

/**
 * Answers a request through the engine. A ready answer is written in this turn, as a hand-written server
 * writes it; only an answer that waits (a body still to read, a fault's latency, an async hook) goes
 * through a promise. No function is created per request on the ready path: each one cost the bench a
 * `__name` call under tsx, and an allocation in any build.
 */
function answerRequest(
  mock: Mock,
  request: EngineRequest,
  res: ServerResponse,
  decorate: Readonly<Record<string, string>> | undefined,
): void {
  try {
    const answer = mock.answerNow(request);
    if (answer instanceof Promise)
      answer.then((ready) => send(ready, res, decorate)).catch((error: unknown) => fail(error, res, decorate));
    else send(answer, res, decorate);
  } catch (error) {
    fail(error, res, decorate);
  }
}

/**
 * Starts a mock server on loopback.
 * @example
 * const { url, close } = await createMockServer({ port: 0 });
 * const res = await fetch(`${url}/api/session?login=admin@pizza.demo&password=demo`, { method: 'POST' });
 * await close();
 */
export async function createMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const host = options.host ?? '127.0.0.1';
  if (!isLoopbackHost(host) && !options.controlToken && !options.insecureControl) throw new OpenControlError(host);
  let origin = `http://${host}`;
  const cors = createCorsPolicy(options.cors);
  // Every request of the server's own goes through sockets whose address is checked (node-outbound.ts).
  const outbound = options.outbound ?? nodeOutbound(options.outboundPolicy ?? {}, host, options.outboundLookup);
  const mock = createMock({ ...options, outbound });
  const server = createServer((req, res) => {
    // The CORS headers of the answer: written first in its header block, error answers included.
    let decorate: Readonly<Record<string, string>> | undefined;
    try {
      const request = toEngineRequest(req, origin);
      const decision = cors.decide(req.method ?? 'GET', request?.headers ?? new RawHeaderReader(req.rawHeaders));
      if (decision.kind === 'answer') {
        res.writeHead(decision.status, decision.headers);
        res.end(decision.body ?? undefined);
        return;
      }
      decorate = decision.headers;
      if (!request) {
        // An unreadable request target (`*`, a malformed absolute form): the 400 `handle` gives an unparsable URL.
        const refusal = badRequest('invalid_url', 'The request URL cannot be parsed.');
        const answer = new EngineResponse(
          refusal.status,
          { 'Content-Type': 'application/json; charset=utf-8', 'X-Request-Id': requestId() },
          JSON.stringify(refusal.body()),
        );
        send(answer, res, decorate);
        return;
      }
      if (readsBodyFirst(request, mock.runtime.config.maxBodyBytes)) request.readFirstThenAnswer(mock, res, decorate);
      else answerRequest(mock, request, res, decorate);
    } catch (error) {
      fail(error, res, decorate);
    }
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  origin = `http://${hostInUrl}:${port}`;
  // Absolute links (photo URLs) need the port, known only now.
  mock.runtime.baseUrl = origin;
  return {
    url: origin,
    mock,
    server,
    async close() {
      mock.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
