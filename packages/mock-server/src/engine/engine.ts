import { createApiDescription, type ApiDescription } from '@restoapi/openapi';
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
import { urlCheckedOutbound, type OutboundServices } from '../net/outbound-policy.js';
import type { HandlerMap } from './handler.js';
import type { EngineRoute, MockEngine } from './mock-engine.js';
import { HttpError, badRequest } from './http-error.js';
import { RequestPipeline, internalError, jsonAnswer, type OperationSet } from './pipeline.js';
import { DEFAULT_CONFIG, OrderEvents, secureToken, type MockConfig, type MockRuntime } from './runtime.js';

export { EngineResponse, type EngineAnswer, type EngineRequest, type HeaderReader } from './engine-request.js';
export type { OperationSet } from './pipeline.js';
export type { EngineRoute, MockEngine } from './mock-engine.js';

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
  /** Extra routes, in order: after the operation sets with a path prefix, before the service API. */
  routes?: EngineRoute[];
  /**
   * Further documents answered through the same pipeline, each under its own `pathPrefix` (the control
   * API under `/__mock`); tried first.
   */
  operationSets?: readonly OperationSet<unknown>[];
  /** Share a validator between instances (compiled schemas are cached in it). */
  api?: ApiDescription;
  /** The outbound requests' rules and fetches (default: {@link urlCheckedOutbound} of the default policy). */
  outbound?: OutboundServices;
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

let requestCounter = 0;
/**
 * The validator shared by every instance of the process (compiling schemas once keeps new instances cheap):
 * createApiDescription answers the same description for the same document.
 */
export function sharedApiValidator(): ApiDescription {
  return createApiDescription();
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
    outbound: options.outbound ?? urlCheckedOutbound(),
  };

  const prefixedSets = options.operationSets ?? [];
  const pipeline = new RequestPipeline({
    get engine() {
      return engine;
    },
    runtime,
    prefixedSets,
    routes: options.routes ?? [],
    api: { description: api, handlers: options.handlers as OperationSet['handlers'] },
  });

  /** The answer to a refusal (an {@link HttpError}) or to a failure (a logged 500). */
  function refused(error: unknown, id: string): EngineResponse {
    if (error instanceof HttpError)
      return jsonAnswer(error.status, error.body(), { 'X-Request-Id': id, ...error.headers });
    return internalError(error, id);
  }

  /** The answer when a fault (latency, a stall) or a `beforeRequest` hook may make the request wait first. */
  async function answerAfterHooks(
    request: EngineRequest,
    url: URL,
    id: string,
    preflight: Promise<Response | undefined> | undefined,
  ): Promise<EngineAnswer> {
    try {
      const early = preflight === undefined ? undefined : await preflight;
      if (early) return early;
      if (options.beforeRequest) {
        const hooked = await options.beforeRequest(request.toRequest(), url);
        if (hooked) return hooked;
      }
      return await pipeline.runNow(request, url, id);
    } catch (error) {
      return refused(error, id);
    }
  }

  function answerNow(request: EngineRequest): EngineAnswer | Promise<EngineAnswer> {
    const id = requestId();
    const { url } = request;
    try {
      const preflight = options.preflight?.(request.method, url, request.signal);
      if (preflight instanceof Response) return preflight;
      if (preflight !== undefined || options.beforeRequest) return answerAfterHooks(request, url, id, preflight);
      const answered = pipeline.runNow(request, url, id);
      return answered instanceof Promise ? answered.catch((error: unknown) => refused(error, id)) : answered;
    } catch (error) {
      return refused(error, id);
    }
  }

  async function answer(request: EngineRequest): Promise<EngineAnswer> {
    return answerNow(request);
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
    answerNow,
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
