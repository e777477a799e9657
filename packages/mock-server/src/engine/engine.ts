import { createApiValidator, type ApiValidator, type OperationInfo } from '@restoapi/openapi';
import { authenticate, type Actor } from '../session/actor.js';
import { stateFromJson, stateToJson, type MockStateJson, type MockStateTables } from '../state/mock-state.js';
import { VirtualClock } from './clock.js';
import type { HandlerContext, HandlerMap, HandlerResult, OperationId } from './handler.js';
import { HttpError, badRequest, errorObject, fromIssues } from './http-error.js';
import { formToObject, readBody, type ParsedBody } from './request-body.js';
import { DEFAULT_CONFIG, OrderEvents, secureToken, type MockConfig, type MockRuntime } from './runtime.js';

/** A routed extension of the engine (the control API, docs, console) tried before the API. */
export type EngineRoute = (request: Request, url: URL, engine: MockEngine) => Promise<Response | undefined> | Response | undefined;

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
  api?: ApiValidator;
  /** Called after each state change (the Node adapter persists the state file here). */
  onChange?: (engine: MockEngine) => void;
  /** Hooks a request may go through before routing (fault injection). */
  beforeRequest?: (request: Request, url: URL) => Promise<Response | undefined> | Response | undefined;
}

/** One mock instance: a `Request → Response` function over its own state. */
export interface MockEngine {
  /** Answers one request. Never throws: every failure becomes a documented error answer. */
  handle(request: Request): Promise<Response>;
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
const SHARED_API: { value?: ApiValidator } = {};

/** The validator shared by every instance of the process (compiling schemas once keeps new instances cheap). */
export function sharedApiValidator(): ApiValidator {
  SHARED_API.value ??= createApiValidator();
  return SHARED_API.value;
}

function requestId(): string {
  requestCounter = (requestCounter + 1) % 1e9;
  return `req_${Date.now().toString(36)}${requestCounter.toString(36).padStart(6, '0')}`;
}

function jsonResponse(status: number, body: unknown, headers: Record<string, string>): Response {
  return new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers } });
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

  async function dispatch(request: Request, url: URL, id: string): Promise<Response> {
    for (const route of options.routes ?? []) {
      const answer = await route(request, url, engine);
      if (answer) return answer;
    }
    const match = api.match(request.method, url.pathname);
    if (!match) {
      const allowed = api.allowedMethods(url.pathname);
      if (allowed.length > 0) {
        throw new HttpError(405, [errorObject(405, 'method_not_allowed', 'Method not allowed', `${request.method} is not served at ${url.pathname}; use ${allowed.join(', ')}.`)], {
          Allow: allowed.join(', '),
        });
      }
      throw new HttpError(404, [errorObject(404, 'not_found', 'Not found', `No operation at ${request.method} ${url.pathname}.`)]);
    }
    const op = match.operation;
    const handler = options.handlers[op.operationId as OperationId];
    // Authentication comes before validation: an anonymous caller learns nothing about the body rules.
    const actor = op.authenticated ? authenticate(runtime, request, url) : undefined;
    const body = await readBody(request, op, config.maxBodyBytes);
    const validated = api.validateRequest(op.operationId, {
      params: match.params,
      query: url.searchParams,
      headers: request.headers,
      contentType: body.kind === 'none' ? undefined : body.kind === 'json' ? 'application/json' : body.mediaType,
      body: bodyForValidation(body),
    });
    if (!validated.valid) throw fromIssues(validated.issues);
    if (!handler) {
      throw new HttpError(501, [errorObject(501, 'not_implemented', 'Not implemented', `The mock does not implement ${op.operationId}.`)]);
    }
    await clock.runDue();
    const ctx: HandlerContext = {
      operation: op,
      params: validated.value.params as never,
      query: validated.value.query as never,
      body: (body.kind === 'json' || body.kind === 'form' ? body.value : undefined) as never,
      form: body.kind === 'multipart' ? body.value : undefined,
      actor: actor as Actor,
      runtime,
      request,
      url,
      requestId: id,
    };
    const result = await (handler as (c: HandlerContext) => HandlerResult | Promise<HandlerResult>)(ctx);
    if (request.method !== 'GET') runtime.changed();
    return toResponse(op, result, id);
  }

  function toResponse(op: OperationInfo, result: HandlerResult, id: string): Response {
    const headers: Record<string, string> = { 'X-Request-Id': id, ...result.headers };
    if (config.validateResponses && result.raw === undefined) {
      const check = api.validateResponse(op.operationId, {
        status: result.status,
        contentType: result.body === undefined ? undefined : 'application/json',
        body: result.body,
      });
      if (!check.valid) {
        const detail = check.issues.map((i) => i.message).join('; ');
        console.error(`[restoapi-mock] response drift in ${op.operationId}: ${detail}`);
        throw new HttpError(500, [errorObject(500, 'response_drift', 'The mock answered outside the document', `${op.operationId} ${result.status}: ${detail}`)]);
      }
    }
    if (result.raw !== undefined) {
      return new Response(result.raw as BodyInit, { status: result.status, headers: { 'Content-Type': result.contentType ?? 'application/octet-stream', ...headers } });
    }
    if (result.body === undefined) return new Response(null, { status: result.status, headers });
    return jsonResponse(result.status, result.body, headers);
  }

  const engine: MockEngine = {
    runtime,
    async handle(request) {
      const id = requestId();
      let url: URL;
      try {
        url = new URL(request.url);
      } catch {
        return jsonResponse(400, badRequest('invalid_url', 'The request URL cannot be parsed.').body(), { 'X-Request-Id': id });
      }
      try {
        const early = await options.beforeRequest?.(request, url);
        if (early) return early;
        return await dispatch(request, url, id);
      } catch (error) {
        if (error instanceof HttpError) return jsonResponse(error.status, error.body(), { 'X-Request-Id': id, ...error.headers });
        console.error('[restoapi-mock] unexpected error', error);
        return jsonResponse(500, { errors: [errorObject(500, 'internal', 'Internal error', (error as Error).message)] }, { 'X-Request-Id': id });
      }
    },
    fetch: ((input: RequestInfo | URL, init?: RequestInit) => engine.handle(new Request(input, init))) as typeof fetch,
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
