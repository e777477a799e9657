import { createApiDescription, type ApiDescription, type OperationInfo } from '@restoapi/openapi';
import { authenticate, type Actor } from '../session/actor.js';
import { stateFromJson, stateToJson, type MockStateJson, type MockStateTables } from '../state/mock-state.js';
import { VirtualClock } from './clock.js';
import {
  EngineResponse,
  fromFetchArguments,
  fromFetchRequest,
  toFetchResponse,
  type EngineAnswer,
  type EngineRequest,
} from './engine-request.js';
import { JsonText, type HandlerContext, type HandlerMap, type HandlerResult, type OperationId } from './handler.js';
import {
  HttpError,
  assertDocumentedResponse,
  badRequest,
  errorObject,
  fromIssues,
  methodNotAllowed,
} from './http-error.js';
import { formToObject, readBody, type ParsedBody } from './request-body.js';
import { DEFAULT_CONFIG, OrderEvents, secureToken, type MockConfig, type MockRuntime } from './runtime.js';

export { EngineResponse, type EngineAnswer, type EngineRequest, type HeaderReader } from './engine-request.js';

/**
 * A routed extension of the engine (the control API, docs, console) tried before the API.
 * A route that sets `pathPrefix` is only tried for paths starting with it; the engine then builds no
 * fetch `Request` for the other paths (routes without it see every request).
 */
export type EngineRoute = ((
  request: Request,
  url: URL,
  engine: MockEngine,
) => Promise<Response | undefined> | Response | undefined) & {
  readonly pathPrefix?: string;
};

/** Options of {@link createMockEngine}. */
export interface MockEngineOptions {
  /** Initial state (for example the demo seed); empty when absent. */
  state?: MockStateJson;
  /** Handlers by operationId. */
  handlers: HandlerMap;
  /** Settings; unspecified ones take {@link DEFAULT_CONFIG}. */
  config?: Partial<MockConfig>;
  /** Base URL used in absolute links; adapters set it to where they listen. */
  baseUrl?: string;
  /** Extra routes tried first, in order. */
  routes?: EngineRoute[];
  /** Share a validator between instances (compiled schemas are cached in it). */
  api?: ApiDescription;
  /** Called after each state change (the Node adapter persists the state file here). */
  onChange?: (engine: MockEngine) => void;
  /**
   * A hook that sees only the method and URL, tried first (fault injection): unlike `beforeRequest` it
   * needs no fetch `Request`, so it costs nothing when it has nothing to do (return `undefined` synchronously).
   */
  preflight?: (method: string, url: URL, signal?: AbortSignal) => Promise<Response | undefined> | Response | undefined;
  /** Hooks a request may go through before routing (after `preflight`). */
  beforeRequest?: (request: Request, url: URL) => Promise<Response | undefined> | Response | undefined;
}

/** One mock instance: a `Request → Response` function over its own state. */
export interface MockEngine {
  /** Answers one request. Never throws: every failure becomes a documented error answer. */
  handle(request: Request): Promise<Response>;
  /**
   * The engine itself, for adapters: answers a request given in the engine's light shape with an
   * {@link EngineResponse} (or the `Response` a route or hook returned). `handle` and the node:http
   * adapter are thin conversions around this. Never throws.
   */
  answer(request: EngineRequest): Promise<EngineAnswer>;
  /** A `fetch` bound to this instance, for in-process clients. */
  fetch: typeof fetch;
  readonly runtime: MockRuntime;
  /** Replaces the whole state. */
  loadState(json: MockStateJson): void;
  /** The whole state as JSON. */
  exportState(): MockStateJson;
  /** Stops timers; pending callbacks and jobs stay queued but never run. */
  close(): void;
}

let requestCounter = 0;
const SHARED_API: { value?: ApiDescription } = {};

/** The validator shared by every instance of the process (compiling schemas once keeps new instances cheap). */
export function sharedApiValidator(): ApiDescription {
  SHARED_API.value ??= createApiDescription();
  return SHARED_API.value;
}

let idMs = -1;
let idPrefix = '';

/** A fresh `X-Request-Id` (adapters that answer without the engine, such as an unreadable URL, take one too). */
export function requestId(): string {
  requestCounter = (requestCounter + 1) % 1e9;
  // `req_` + the time in base 36 + the counter: the time part is formatted once per millisecond.
  const now = Date.now();
  if (now !== idMs) {
    idMs = now;
    idPrefix = `req_${now.toString(36)}`;
  }
  return `${idPrefix}${requestCounter.toString(36).padStart(6, '0')}`;
}

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

function jsonAnswer(status: number, body: unknown, headers: Record<string, string>): EngineResponse {
  return new EngineResponse(status, { 'Content-Type': JSON_CONTENT_TYPE, ...headers }, JSON.stringify(body));
}

/** The answer to a failure that is not an {@link HttpError}: logged, and a documented 500. */
function internalError(error: unknown, id: string): EngineResponse {
  console.error('[restoapi-mock] unexpected error', error);
  return jsonAnswer(
    500,
    { errors: [errorObject(500, 'internal', 'Internal error', (error as Error).message)] },
    { 'X-Request-Id': id },
  );
}

/**
 * The fetch `Response` of an answer. Building it can still fail (a header value a `Headers` refuses);
 * that is the same 500 as any unexpected error inside the engine.
 */
export function fetchResponseOf(answer: EngineAnswer): Response {
  if (!(answer instanceof EngineResponse)) return answer;
  try {
    return toFetchResponse(answer);
  } catch (error) {
    return toFetchResponse(internalError(error, answer.headers['X-Request-Id'] ?? requestId()));
  }
}

/**
 * What a handler receives. A class so that `request` can be a getter: the fetch `Request` is only
 * built when a handler reads it (the node:http adapter has none to begin with).
 */
class Context implements HandlerContext {
  constructor(
    readonly operation: OperationInfo,
    readonly params: never,
    readonly query: never,
    readonly body: never,
    readonly form: FormData | undefined,
    readonly actor: Actor,
    readonly runtime: MockRuntime,
    private readonly source: EngineRequest,
    readonly url: URL,
    readonly requestId: string,
  ) {}

  get request(): Request {
    return this.source.toRequest();
  }
}

/** Creates an instance. Cheap: state is plain maps and the validator is shared. */
export function createMockEngine(options: MockEngineOptions): MockEngine {
  const api = options.api ?? sharedApiValidator();
  const clock = new VirtualClock();
  const config: MockConfig = { ...DEFAULT_CONFIG, ...options.config };
  let state: MockStateTables = stateFromJson(options.state);
  const runtime: MockRuntime = {
    get state() {
      return state;
    },
    clock,
    config,
    api,
    baseUrl: options.baseUrl ?? 'http://localhost:4010',
    secureToken,
    nowIso: () => clock.now().toISOString(),
    changed: () => options.onChange?.(engine),
    notify: (notification) => state.notifications.insert({ ...notification, created_at: clock.now().toISOString() }),
    events: new OrderEvents(),
  };

  const routes = options.routes ?? [];

  async function dispatch(request: EngineRequest, url: URL, id: string): Promise<EngineAnswer> {
    // Read once: each read of the URL getter slices the href again.
    const { pathname } = url;
    for (const route of routes) {
      if (route.pathPrefix !== undefined && !pathname.startsWith(route.pathPrefix)) continue;
      const answer = await route(request.toRequest(), url, engine);
      if (answer) return answer;
    }
    const match = api.match(request.method, pathname);
    if (!match) {
      const allowed = api.allowedMethods(pathname);
      if (allowed.length > 0) {
        throw methodNotAllowed(request.method, pathname, allowed);
      }
      throw new HttpError(404, [
        errorObject(404, 'not_found', 'Not found', `No operation at ${request.method} ${pathname}.`),
      ]);
    }
    const op = match.operation;
    const handler = options.handlers[op.operationId as OperationId];
    // Authentication comes before validation: an anonymous caller learns nothing about the body rules.
    const actor = op.authenticated ? authenticate(runtime, request, url) : undefined;
    const read = readBody(request, op, config.maxBodyBytes);
    const body = read instanceof Promise ? await read : read;
    const validated = api.validateRequest(op.operationId, {
      params: match.params,
      malformed: match.malformed,
      // The raw query, which the validator decodes strictly (an absent query reads as an empty one).
      query: url.search === '' ? undefined : url.search,
      headers: request.headers,
      contentType: body.kind === 'none' ? undefined : body.kind === 'json' ? 'application/json' : body.mediaType,
      body: bodyForValidation(body),
    });
    if (!validated.valid) throw fromIssues(validated.issues);
    if (!handler) {
      throw new HttpError(501, [
        errorObject(501, 'not_implemented', 'Not implemented', `The mock does not implement ${op.operationId}.`),
      ]);
    }
    const due = clock.runDueIfAny();
    if (due) await due;
    const ctx = new Context(
      op,
      validated.value.params as never,
      validated.value.query as never,
      (body.kind === 'json' || body.kind === 'form' ? body.value : undefined) as never,
      body.kind === 'multipart' ? body.value : undefined,
      actor as Actor,
      runtime,
      request,
      url,
      id,
    );
    // A synchronous answer (most handlers) is used as is; anything thenable is awaited as before.
    const returned = (handler as (c: HandlerContext) => HandlerResult | PromiseLike<HandlerResult>)(ctx);
    const result =
      typeof (returned as PromiseLike<HandlerResult>).then === 'function'
        ? await returned
        : (returned as HandlerResult);
    if (request.method !== 'GET') runtime.changed();
    return toResponse(op, result, id);
  }

  function toResponse(op: OperationInfo, result: HandlerResult, id: string): EngineResponse {
    const headers: Record<string, string> = { 'X-Request-Id': id, ...result.headers };
    const text = result.body instanceof JsonText ? result.body.text : undefined;
    if (config.validateResponses && result.raw === undefined) {
      assertDocumentedResponse(api, op.operationId, result.status, text === undefined ? result.body : JSON.parse(text));
    }
    if (result.raw !== undefined) {
      return new EngineResponse(
        result.status,
        { 'Content-Type': result.contentType ?? 'application/octet-stream', ...headers },
        result.raw,
      );
    }
    if (result.body === undefined) return new EngineResponse(result.status, headers, null);
    if (text !== undefined)
      return new EngineResponse(result.status, { 'Content-Type': JSON_CONTENT_TYPE, ...headers }, text);
    return jsonAnswer(result.status, result.body, headers);
  }

  async function answer(request: EngineRequest): Promise<EngineAnswer> {
    const id = requestId();
    const { url } = request;
    try {
      const preflight = options.preflight?.(request.method, url, request.signal);
      const early = preflight === undefined ? undefined : await preflight;
      if (early) return early;
      if (options.beforeRequest) {
        const hooked = await options.beforeRequest(request.toRequest(), url);
        if (hooked) return hooked;
      }
      return await dispatch(request, url, id);
    } catch (error) {
      if (error instanceof HttpError)
        return jsonAnswer(error.status, error.body(), { 'X-Request-Id': id, ...error.headers });
      return internalError(error, id);
    }
  }

  /**
   * The in-process `fetch`. Common calls skip building a `Request` (see `fromFetchArguments`); the caller's
   * signal is honoured as `fetch` honours it: an aborted call rejects with the signal's reason, and a wait
   * inside the engine (an injected latency) ends early.
   */
  async function boundFetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    const plain = fromFetchArguments(input, init);
    if (!plain) {
      const request = new Request(input, init);
      if (request.signal.aborted) throw request.signal.reason;
      const response = await engine.handle(request);
      if (request.signal.aborted) throw request.signal.reason;
      return response;
    }
    const signal = plain.signal;
    if (signal?.aborted) throw signal.reason;
    const answered = await answer(plain);
    if (signal?.aborted) throw signal.reason;
    return fetchResponseOf(answered);
  }

  const engine: MockEngine = {
    runtime,
    answer,
    async handle(request) {
      let url: URL;
      try {
        url = new URL(request.url);
      } catch {
        return toFetchResponse(
          jsonAnswer(400, badRequest('invalid_url', 'The request URL cannot be parsed.').body(), {
            'X-Request-Id': requestId(),
          }),
        );
      }
      return fetchResponseOf(await answer(fromFetchRequest(request, url)));
    },
    fetch: boundFetch,
    loadState(json) {
      state = stateFromJson(json);
    },
    exportState() {
      return stateToJson(state);
    },
    close() {
      clock.close();
    },
  };
  return engine;
}

function bodyForValidation(body: ParsedBody): unknown {
  switch (body.kind) {
    case 'none':
      return undefined;
    case 'json':
    case 'form':
      return body.value;
    case 'multipart':
      return formToObject(body.value);
  }
}
