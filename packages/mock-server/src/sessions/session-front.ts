import { fetchResponseOf, requestId } from '../engine/engine.js';
import { EngineResponse, type EngineAnswer, type EngineRequest } from '../engine/engine-request.js';
import { HttpError } from '../engine/http-error.js';
import type { MockEngine } from '../engine/mock-engine.js';
import { jsonAnswer } from '../engine/pipeline.js';
import { SESSION_HEADER, type SessionRegistry } from './session-registry.js';

/** A mock with sessions: the default session's instance, answering each request from the session it names. */
export interface Mock extends MockEngine {
  /**
   * The instance of a named session, created from the mock's seed on first use: its `fetch`, `handle` and
   * `runtime` work on that session without sending `X-Mock-Session`. `session('default')` is the mock itself.
   * Throws for a bad name or when a new session would pass the limit.
   */
  session(name: string): MockEngine;
  /** The sessions of this mock (`GET /__mock/sessions` lists them). */
  readonly sessions: SessionRegistry;
}

const HEADER = SESSION_HEADER.toLowerCase();
// The session endpoints manage the registry itself: they never create the session a request names.
const REGISTRY_PATH = '/__mock/sessions';

/** The `X-Mock-Session` of a `fetch(input, init)` call, read without building a `Request`. */
function sessionOfFetch(input: RequestInfo | URL, init: RequestInit | undefined): string | null {
  const headers = init?.headers;
  if (headers === undefined) return input instanceof Request ? input.headers.get(HEADER) : null;
  if (headers instanceof Headers) return headers.get(HEADER);
  // Whatever `Headers` accepts (pairs, records) reads the same through it; only rare calls get here with a header.
  if (Array.isArray(headers)) return new Headers(headers).get(HEADER);
  for (const name in headers) if (name.toLowerCase() === HEADER) return new Headers(headers).get(HEADER);
  return null;
}

function pathOf(href: string): string {
  try {
    return new URL(href).pathname;
  } catch {
    return '';
  }
}

function errorAnswer(error: HttpError): EngineResponse {
  return jsonAnswer(error.status, error.body(), { 'X-Request-Id': requestId(), ...error.headers });
}

/**
 * Puts the registry in front of the default instance: a request's `X-Mock-Session` picks (or creates) the
 * instance that answers it, before any routing; a request without it goes to the default instance unchanged.
 */
export function sessionFront(defaultInstance: MockEngine, sessions: SessionRegistry): Mock {
  /**
   * The instance a request's `X-Mock-Session` names: the default one without a header (or for the session
   * endpoints, which manage the registry itself), else the named session, created on first use; a refusal (bad
   * name, limit) as the error answer.
   */
  function instanceFor(header: string | null, url: URL | string): MockEngine | EngineResponse {
    if (header === null) {
      sessions.touchDefault();
      return defaultInstance;
    }
    const path = typeof url === 'string' ? pathOf(url) : url.pathname;
    if (path === REGISTRY_PATH || path.startsWith(`${REGISTRY_PATH}/`)) return defaultInstance;
    try {
      return sessions.pick(header);
    } catch (error) {
      if (error instanceof HttpError) return errorAnswer(error);
      throw error;
    }
  }

  /** Runs a call on the instance the header names (see {@link instanceFor}); a refusal in the caller's shape. */
  function dispatch<T>(
    header: string | null,
    url: URL | string,
    run: (instance: MockEngine) => T | Promise<T>,
    refuse: (answer: EngineResponse) => T,
  ): T | Promise<T> {
    const instance = instanceFor(header, url);
    return instance instanceof EngineResponse ? refuse(instance) : run(instance);
  }

  /** {@link MockEngine.answerNow} of the instance a request names, without a function made per request. */
  function answerNow(request: EngineRequest): EngineAnswer | Promise<EngineAnswer> {
    const instance = instanceFor(request.headers.get(HEADER), request.url);
    return instance instanceof EngineResponse ? instance : instance.answerNow(request);
  }

  const mock: Mock = Object.create(defaultInstance) as Mock;
  Object.defineProperties(mock, {
    sessions: { value: sessions, enumerable: true },
    session: {
      value: (name: string): MockEngine => {
        try {
          return sessions.get(name);
        } catch (error) {
          throw error instanceof HttpError
            ? new RangeError(`mock.session(${JSON.stringify(name)}): ${error.message}`)
            : error;
        }
      },
    },
    answer: { value: async (request: EngineRequest): Promise<EngineAnswer> => answerNow(request) },
    answerNow: { value: answerNow },
    handle: {
      value: async (request: Request): Promise<Response> =>
        dispatch(request.headers.get(HEADER), request.url, (instance) => instance.handle(request), fetchResponseOf),
    },
    fetch: {
      value: async (input: RequestInfo | URL, init?: RequestInit): Promise<Response> =>
        dispatch(
          sessionOfFetch(input, init),
          input instanceof Request ? input.url : String(input),
          (instance) => instance.fetch(input, init),
          fetchResponseOf,
        ),
    },
    close: {
      value: (): void => {
        sessions.close();
        defaultInstance.close();
      },
    },
  });
  return mock;
}
