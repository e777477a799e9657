import type { ApiDescription, OperationInfo, RouteMatch } from '@restoapi/openapi';
import { authenticate, type Actor } from '../session/actor.js';
import { EngineResponse, type EngineAnswer, type EngineRequest } from './engine-request.js';
import { JsonText, type HandlerContext, type HandlerResult } from './handler.js';
import { HttpError, assertDocumentedResponse, errorObject, fromIssues, methodNotAllowed } from './http-error.js';
import { formToObject, readBody, type ParsedBody } from './request-body.js';
import type { MockConfig, MockRuntime } from './runtime.js';
import type { EngineRoute, MockEngine } from './mock-engine.js';
import { assertRoomFor } from '../state/session-limits.js';

/**
 * One OpenAPI document the engine answers, with its handlers: the service API (main and carrier
 * operations) is one, the control API under `/__mock` another. Both run through the same
 * {@link RequestPipeline}; `services` is what the set's handlers need besides the runtime.
 */
export interface OperationSet<Services = undefined> {
  /** Routes and validates requests and answers of this document. */
  readonly description: ApiDescription;
  /** Handlers by operationId; an operation without one answers 501. */
  readonly handlers: Readonly<Record<string, AnyHandler | undefined>>;
  /** Only paths equal to it or below it reach this set; a path it has no operation at falls through. */
  readonly pathPrefix?: string;
  /** Handed to every handler of the set as `ctx.services`. */
  readonly services?: Services;
  /** The largest body an operation accepts (default: `config.maxBodyBytes`). */
  bodyLimit?(operationId: string, config: MockConfig): number;
  /** Whether a POST of the operation adds records, so that `maxRecords` applies to it (default: every POST). */
  growsState?(operationId: string): boolean;
  /** Refuses a request the set's own access rule does not admit (the control API's token), by throwing. */
  authorize?(request: EngineRequest): void;
}

/** A handler of any operation set, as the pipeline calls it. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each set types its own contexts
export type AnyHandler = (ctx: any) => HandlerResult | PromiseLike<HandlerResult>;

/** Where the route step sent a request: an operation of one set, with its path parameters. */
interface Routed {
  set: OperationSet<unknown>;
  operation: OperationInfo;
  params: RouteMatch['params'];
  /** Path parameters whose percent-encoding is broken: the validate step answers 400 naming them. */
  malformed: RouteMatch['malformed'];
}

const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

/** A JSON answer of the engine. */
export function jsonAnswer(status: number, body: unknown, headers: Record<string, string>): EngineResponse {
  return new EngineResponse(status, { 'Content-Type': JSON_CONTENT_TYPE, ...headers }, JSON.stringify(body));
}

/** The answer to a failure that is not an {@link HttpError}: logged, and a documented 500. */
export function internalError(error: unknown, id: string): EngineResponse {
  console.error('[restoapi-mock] unexpected error', error);
  return jsonAnswer(
    500,
    { errors: [errorObject(500, 'internal', 'Internal error', (error as Error).message)] },
    { 'X-Request-Id': id },
  );
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
    readonly engine: MockEngine,
    readonly services: unknown,
  ) {}

  get request(): Request {
    return this.source.toRequest();
  }
}

/** What the pipeline of one engine works with. */
export interface PipelineParts {
  engine: MockEngine;
  runtime: MockRuntime;
  /** Sets with a path prefix (the control API), tried before the extra routes. */
  prefixedSets: readonly OperationSet<unknown>[];
  /** Extra routes (docs, console, photos), tried after the prefixed sets. */
  routes: readonly EngineRoute[];
  /** The service API, tried last: what no set or route takes is a 404 or 405 of it. */
  api: OperationSet<unknown>;
}

/**
 * The path of every request through the engine, one method per step, called in this order by
 * {@link RequestPipeline.runNow}: route → authenticate → read body → validate → handle → respond.
 * A step that finds the request wrong throws an {@link HttpError}; the engine turns it into the answer.
 */
export class RequestPipeline {
  constructor(private readonly parts: PipelineParts) {}

  /**
   * Runs one request through every step, answering at once when no step has to wait (most requests: no body
   * to read, a synchronous handler), else with a promise. Refusals throw {@link HttpError}s, or reject the
   * promise once a step has waited. Measured over HTTP: the promises and microtask turns of an `await` per
   * step cost the single-order row a few µs a request.
   */
  runNow(request: EngineRequest, url: URL, id: string): EngineAnswer | Promise<EngineAnswer> {
    const routed = this.route(request, url);
    if (routed instanceof Promise)
      return routed.then((found) => (isRouted(found) ? this.afterRoute(found, request, url, id) : found));
    if (!isRouted(routed)) return routed;
    return this.afterRoute(routed, request, url, id);
  }

  private afterRoute(
    routed: Routed,
    request: EngineRequest,
    url: URL,
    id: string,
  ): EngineAnswer | Promise<EngineAnswer> {
    routed.set.authorize?.(request);
    // Authentication comes before validation: an anonymous caller learns nothing about the body rules.
    const actor = this.authenticate(routed, request, url);
    const read = this.readBody(routed, request);
    if (read instanceof Promise) return read.then((body) => this.afterBody(routed, request, url, id, actor, body));
    return this.afterBody(routed, request, url, id, actor, read);
  }

  private afterBody(
    routed: Routed,
    request: EngineRequest,
    url: URL,
    id: string,
    actor: Actor | undefined,
    body: ParsedBody,
  ): EngineAnswer | Promise<EngineAnswer> {
    const validated = this.validate(routed, request, url, body);
    const handled = this.handle(routed, validated, body, actor, request, url, id);
    if (handled instanceof Promise) return handled.then((result) => this.respond(routed, result, id));
    return this.respond(routed, handled, id);
  }

  /**
   * Step 1: which operation (of which set) a request is for. Prefixed sets come first, then the extra
   * routes (which may answer themselves), then the service API, whose 405 or 404 ends the search.
   */
  route(request: EngineRequest, url: URL): Routed | EngineAnswer | Promise<Routed | EngineAnswer> {
    // Read once: each read of the URL getter slices the href again.
    const { pathname } = url;
    for (const set of this.parts.prefixedSets) {
      const prefix = set.pathPrefix!;
      if (pathname !== prefix && !pathname.startsWith(`${prefix}/`)) continue;
      const routed = matchIn(set, request.method, pathname);
      if (routed) return routed;
    }
    const routes = this.parts.routes;
    for (let i = 0; i < routes.length; i++) {
      const route = routes[i]!;
      if (route.pathPrefix !== undefined && !pathname.startsWith(route.pathPrefix)) continue;
      return this.routeFrom(i, request, url);
    }
    return this.routeToApi(request.method, pathname);
  }

  /** The extra routes from the `first` one on (only reached when one of them may take the path). */
  private async routeFrom(first: number, request: EngineRequest, url: URL): Promise<Routed | EngineAnswer> {
    const { pathname } = url;
    const routes = this.parts.routes;
    for (let i = first; i < routes.length; i++) {
      const route = routes[i]!;
      if (route.pathPrefix !== undefined && !pathname.startsWith(route.pathPrefix)) continue;
      const answer = await route(request.toRequest(), url, this.parts.engine);
      if (answer) return answer;
    }
    return this.routeToApi(request.method, pathname);
  }

  private routeToApi(method: string, pathname: string): Routed {
    const api = this.parts.api;
    const routed = matchIn(api, method, pathname);
    if (routed) return routed;
    throw new HttpError(404, [errorObject(404, 'not_found', 'Not found', `No operation at ${method} ${pathname}.`)]);
  }

  /** Step 2: the signed-in account of an operation that requires one (401 otherwise). */
  authenticate(routed: Routed, request: EngineRequest, url: URL): Actor | undefined {
    return routed.operation.authenticated ? authenticate(this.parts.runtime, request, url) : undefined;
  }

  /** Step 3: the body, read and parsed the way the operation takes it, within the set's size limit. */
  readBody(routed: Routed, request: EngineRequest): ParsedBody | Promise<ParsedBody> {
    const { config } = this.parts.runtime;
    const limit = routed.set.bodyLimit?.(routed.operation.operationId, config) ?? config.maxBodyBytes;
    return readBody(request, routed.operation, limit);
  }

  /**
   * Step 4: parameters and body checked against the document; returns the coerced parameters.
   *
   * A request without a body to an operation without header parameters is validated from its path and
   * query alone, and the schemas never change, so its valid outcome is remembered by operation, path and
   * query: list screens and pollers send the same query again and again, and reading it strictly costs
   * more than the lookup that answers it. Each request gets its own copy of what was remembered.
   */
  validate(
    routed: Routed,
    request: EngineRequest,
    url: URL,
    body: ParsedBody,
  ): { params: Record<string, unknown>; query: Record<string, unknown> } {
    const { operation } = routed;
    const key =
      body.kind === 'none' && !hasHeaderParameters(operation)
        ? `${operation.operationId} ${url.pathname}${url.search}`
        : undefined;
    if (key !== undefined) {
      const known = this.#validated.get(key);
      if (known !== undefined && known.set === routed.set) return copyParameters(known.value);
    }
    const value = this.validateFully(routed, request, url, body);
    if (key !== undefined && isFlat(value)) {
      if (this.#validated.size >= VALIDATED_CAPACITY) this.#validated.delete(this.#validated.keys().next().value!);
      this.#validated.set(key, { set: routed.set, value: copyParameters(value) });
    }
    return value;
  }

  /** Valid outcomes of {@link validate} by operation, path and query (see there), oldest first. */
  readonly #validated = new Map<string, { set: OperationSet<unknown>; value: CoercedParameters }>();

  private validateFully(routed: Routed, request: EngineRequest, url: URL, body: ParsedBody): CoercedParameters {
    const validated = routed.set.description.validateRequest(routed.operation.operationId, {
      params: routed.params,
      malformed: routed.malformed,
      // The raw query, which the validator decodes strictly (an absent query reads as an empty one).
      query: url.search === '' ? undefined : url.search,
      headers: request.headers,
      contentType: body.kind === 'none' ? undefined : body.kind === 'json' ? 'application/json' : body.mediaType,
      body: bodyForValidation(body),
    });
    if (!validated.valid) throw fromIssues(validated.issues);
    return validated.value;
  }

  /**
   * Step 5: the operation's handler, once timers that fell due have run (so it sees the state of "now").
   * A write marks the state changed (the node adapter saves its state file).
   */
  handle(
    routed: Routed,
    validated: { params: Record<string, unknown>; query: Record<string, unknown> },
    body: ParsedBody,
    actor: Actor | undefined,
    request: EngineRequest,
    url: URL,
    id: string,
  ): HandlerResult | Promise<HandlerResult> {
    const { operation, set } = routed;
    const handler = set.handlers[operation.operationId];
    if (!handler) {
      throw new HttpError(501, [
        errorObject(501, 'not_implemented', 'Not implemented', `The mock does not implement ${operation.operationId}.`),
      ]);
    }
    const ctx = new Context(
      operation,
      validated.params as never,
      validated.query as never,
      (body.kind === 'json' || body.kind === 'form' ? body.value : undefined) as never,
      body.kind === 'multipart' ? body.value : undefined,
      actor as Actor,
      this.parts.runtime,
      request,
      url,
      id,
      this.parts.engine,
      set.services,
    );
    // A session at its record limit takes no request that adds one (the state is checked, not the body).
    if (request.method === 'POST' && (set.growsState?.(operation.operationId) ?? true))
      assertRoomFor(this.parts.runtime);
    const due = this.parts.runtime.clock.runDueIfAny();
    if (due) return due.then(() => this.call(handler, ctx, request.method));
    return this.call(handler, ctx, request.method);
  }

  private call(handler: AnyHandler, ctx: Context, method: string): HandlerResult | Promise<HandlerResult> {
    const returned = handler(ctx);
    // A synchronous answer (most handlers) is used as is; anything thenable is awaited.
    if (typeof (returned as PromiseLike<HandlerResult>).then === 'function') {
      return Promise.resolve(returned).then((result) => this.changedAfter(method, result));
    }
    return this.changedAfter(method, returned as HandlerResult);
  }

  private changedAfter(method: string, result: HandlerResult): HandlerResult {
    if (method !== 'GET') this.parts.runtime.changed();
    return result;
  }

  /** Step 6: the handler's result as an answer, checked against the document when the config asks for it. */
  respond(routed: Routed, result: HandlerResult, id: string): EngineResponse {
    const json = result.body instanceof JsonText ? result.body : undefined;
    if (this.parts.runtime.config.validateResponses && result.raw === undefined) {
      assertDocumentedResponse(
        routed.set.description,
        routed.operation.operationId,
        result.status,
        json === undefined ? result.body : JSON.parse(json.text),
      );
    }
    // Each answer's header record is built once, in its final order (one spread, not one per step).
    if (result.raw !== undefined) {
      return new EngineResponse(
        result.status,
        { 'Content-Type': result.contentType ?? 'application/octet-stream', 'X-Request-Id': id, ...result.headers },
        result.raw,
      );
    }
    if (result.body === undefined)
      return new EngineResponse(result.status, { 'X-Request-Id': id, ...result.headers }, null);
    const headers = { 'Content-Type': JSON_CONTENT_TYPE, 'X-Request-Id': id, ...result.headers };
    return new EngineResponse(result.status, headers, json !== undefined ? json.content : JSON.stringify(result.body));
  }
}

/** The coerced path and query parameters of a request. */
type CoercedParameters = { params: Record<string, unknown>; query: Record<string, unknown> };

/** How many validated paths and queries a pipeline remembers (see `RequestPipeline.validate`). */
const VALIDATED_CAPACITY = 512;

const HEADER_PARAMETERS = new WeakMap<OperationInfo, boolean>();

/** Whether an operation reads header parameters (its validation then depends on more than path and query). */
function hasHeaderParameters(operation: OperationInfo): boolean {
  let known = HEADER_PARAMETERS.get(operation);
  if (known === undefined) {
    known = operation.parameters.some((parameter) => parameter.in === 'header');
    HEADER_PARAMETERS.set(operation, known);
  }
  return known;
}

/** Whether every parameter is a primitive or a list of them, so that {@link copyParameters} copies it whole. */
function isFlat(value: CoercedParameters): boolean {
  return isFlatRecord(value.params) && isFlatRecord(value.query);
}

function isFlatRecord(record: Record<string, unknown>): boolean {
  for (const name in record) {
    const v = record[name];
    if (Array.isArray(v) ? !v.every(isPrimitive) : !isPrimitive(v)) return false;
  }
  return true;
}

function isPrimitive(value: unknown): boolean {
  return value === null || typeof value !== 'object';
}

/** A copy of flat parameters (lists copied too), so that no handler can change what another receives. */
function copyParameters(value: CoercedParameters): CoercedParameters {
  return { params: copyRecord(value.params), query: copyRecord(value.query) };
}

// Top-level rather than a closure: a closure made per request costs its allocation (and, under tsx, a name).
function copyRecord(record: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const name in record) {
    const v = record[name];
    out[name] = Array.isArray(v) ? v.slice() : v;
  }
  return out;
}

function isRouted(value: Routed | EngineAnswer): value is Routed {
  return (value as Routed).operation !== undefined && (value as Routed).set !== undefined;
}

/** The operation of a set at a method and path; a 405 when the path is served with other methods. */
function matchIn(set: OperationSet<unknown>, method: string, pathname: string): Routed | undefined {
  const match = set.description.match(method, pathname);
  if (match) return { set, operation: match.operation, params: match.params, malformed: match.malformed };
  const allowed = set.description.allowedMethods(pathname);
  if (allowed.length > 0) throw methodNotAllowed(method, pathname, allowed);
  return undefined;
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
