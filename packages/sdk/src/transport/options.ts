import type { Sleep } from '../resilience/abort.js';

/** Where log lines go; `console` fits. Retries are logged with `warn`, each attempt's outcome with `debug`. */
export interface Logger {
  /** Each attempt's outcome: `{ operation, attempt, status, durationMs, requestId }`. */
  debug(message: string, details?: Record<string, unknown>): void;
  /** Not used by the SDK today; part of the usual logger shape. */
  info(message: string, details?: Record<string, unknown>): void;
  /** Each retry: `{ operation, retry, nextAttempt, maxRetries, delayMs, reason, status, retryAfterMs }`. */
  warn(message: string, details?: Record<string, unknown>): void;
  /** Not used by the SDK today; part of the usual logger shape. */
  error(message: string, details?: Record<string, unknown>): void;
}

/**
 * A `fetch`-compatible function (the global one, `mock.fetch`, undici's…). Resource methods call it with a URL
 * string and a plain init (`method`, `headers`, `body`, `signal`); `api.raw` calls it with a `Request`.
 */
export type FetchLike = (input: string | Request, init?: RequestInit) => Promise<Response>;

/** Settings of the request pipeline shared by the main and the carrier client. */
export interface PipelineOptions {
  /** A `fetch` to use instead of the global one. */
  fetch?: FetchLike;
  /** Time allowed for each attempt (request and whole answer), in ms, counted from the start of each attempt (fires at most 20 ms late). Default 30 000. */
  timeoutMs?: number;
  /** Retries after the first attempt (connection errors, timeouts, 408, 429, 5xx). Default 2. */
  maxRetries?: number;
  /** `true`: retry every method (also POST); `false`: never retry; default: only idempotent methods (GET, PUT, DELETE, HEAD, OPTIONS). */
  retry?: boolean;
  /** Upper bound of the first backoff delay in ms (doubles each retry, full jitter). Default 500. */
  retryInitialDelayMs?: number;
  /** Upper bound of any backoff delay in ms. Default 8 000. */
  retryMaxDelayMs?: number;
  /** Longest `Retry-After` obeyed in ms; longer ones are cut to this. Default 60 000. */
  maxRetryAfterMs?: number;
  /** Receives a `warn` per retry (attempt, delay, reason) and a `debug` per attempt. */
  logger?: Logger;
  /** Headers added to every request. */
  headers?: Record<string, string>;
  /** Waits between retries; replace it in tests to skip real waiting. */
  sleep?: Sleep;
  /** Source of randomness for the jitter (0 ≤ x < 1); replace it in tests for fixed delays. */
  random?: () => number;
}

/**
 * Options of one call; every resource method takes them last.
 * @example
 * await api.orders.get(5001, { timeoutMs: 2_000, maxRetries: 0, signal: controller.signal });
 */
export interface RequestOptions {
  /** Aborts the call (also during a backoff wait); the call rejects with the signal's reason. */
  signal?: AbortSignal;
  /** Time allowed for each attempt of this call, in ms. */
  timeoutMs?: number;
  /** Retries of this call. */
  maxRetries?: number;
  /** `true` retries this call even when it is a POST; `false` never retries it. */
  retry?: boolean;
  /** Extra headers of this call. */
  headers?: Record<string, string>;
  /** `false`: resolve to `{ data, error, response }` instead of throwing on an HTTP error answer. */
  throwOnError?: boolean;
}
