import type { MockStateJson } from '../state/mock-state.js';
import type { EngineAnswer, EngineRequest } from './engine-request.js';
import type { MockRuntime } from './runtime.js';

/**
 * A routed extension of the engine (docs, console, photos), tried after the operation sets with a path
 * prefix (the control API) and before the service API.
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
  /**
   * {@link answer}, given at once when nothing makes the request wait (no body to read, no injected latency,
   * no asynchronous hook or handler), else as a promise: for adapters that write a ready answer in the same
   * turn, as the node:http adapter does. Never throws, and the promise never rejects.
   */
  answerNow(request: EngineRequest): EngineAnswer | Promise<EngineAnswer>;
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
