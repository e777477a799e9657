import { ConnectionError, TimeoutError, type RestoApiError } from '../errors/api-error.js';
import { anySignal, sleep as defaultSleep } from '../resilience/abort.js';
import { AttemptTimeout, Deadlines } from '../resilience/deadlines.js';
import {
  DEFAULT_BACKOFF,
  isRetryableStatus,
  mayRetry,
  parseRetryAfter,
  retryDelay,
  type BackoffOptions,
} from '../resilience/retry-policy.js';
import type { FetchLike, PipelineOptions, RequestOptions } from './options.js';

/** What one call tells the pipeline beyond the request itself. */
export interface CallSettings extends Pick<RequestOptions, 'timeoutMs' | 'maxRetries' | 'retry'> {
  /** The caller's signal. When the key is present (even as `undefined`) it replaces `request.signal`. */
  signal?: AbortSignal | undefined;
  /** `METHOD path` of the operation, for errors and logs. */
  operation?: string;
  /**
   * Receives `release` for the answer that is returned: the attempt's timer and abort wiring stay armed
   * until it is called, so that the timeout also covers reading the body. Without `hold` they are released
   * as soon as the answer's headers arrive.
   */
  hold?: (release: () => void) => void;
}

/**
 * A request as plain data, sent as `fetch(url, { method, headers, body, signal })`: what the resource methods
 * send. No `Request` object is built (building one, and the copy `fetch` makes of it, is a large part of a
 * call's cost); the body is a string, `URLSearchParams` or `FormData`, which every attempt can send again.
 */
export interface PlainRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: BodyInit | undefined;
}

/** Sends one request with timeouts and retries; answers with the response or throws {@link ConnectionError}/{@link TimeoutError}. */
export type Pipeline = (request: Request | PlainRequest, call?: CallSettings) => Promise<Response>;

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_RETRIES = 2;

/**
 * Creates the request pipeline: one place for per-attempt timeouts, retries with backoff and `Retry-After`,
 * abort handling, connection errors and logging. Both clients pass it to openapi-fetch as `fetch`.
 */
export function createPipeline(options: PipelineOptions = {}): Pipeline {
  const fetchImpl: FetchLike = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const backoff: BackoffOptions = {
    initialDelayMs: options.retryInitialDelayMs ?? DEFAULT_BACKOFF.initialDelayMs,
    maxDelayMs: options.retryMaxDelayMs ?? DEFAULT_BACKOFF.maxDelayMs,
    maxRetryAfterMs: options.maxRetryAfterMs ?? DEFAULT_BACKOFF.maxRetryAfterMs,
  };
  const wait = options.sleep ?? defaultSleep;
  const random = options.random ?? Math.random;
  const logger = options.logger;
  const deadlines = new Deadlines();

  return async function send(request, call = {}) {
    const plain = !(request instanceof Request);
    const operation = call.operation ?? `${request.method} ${new URL(request.url).pathname}`;
    const maxRetries = Math.max(0, call.maxRetries ?? options.maxRetries ?? DEFAULT_MAX_RETRIES);
    const retries = mayRetry(request.method, call.retry ?? options.retry) ? maxRetries : 0;
    const timeoutMs = call.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // The caller's signal: the call option's when the call says (resource methods build the request without one),
    // else the request's own (raw calls).
    const callerSignals =
      'signal' in call ? (call.signal ? [call.signal] : []) : plain ? [] : [(request as Request).signal];
    // Only a `Request`'s body is a one-time stream; a plain request's body can be sent again as it is.
    const hasBody = !plain && request.body !== null;

    for (let attempt = 1; ; attempt++) {
      const aborted = callerSignals.find((s) => s.aborted);
      if (aborted) throw aborted.reason;
      const last = attempt > retries;
      const started = logger ? Date.now() : 0;
      // The attempt's own deadline (a shared slot, see deadlines.ts). Without a caller's signal that slot's
      // signal is all `fetch` needs; with one, both are joined, which costs a signal only on such calls.
      const deadline = deadlines.acquire(timeoutMs);
      let signal = deadline.signal;
      let abandoned: Promise<never> | undefined;
      let unlisten: (() => void) | undefined;
      if (callerSignals.length) {
        signal = AbortSignal.any([...callerSignals, deadline.signal]);
        const joined = signal;
        abandoned = new Promise<never>((_, reject) => {
          const onAbort = (): void => reject(joined.reason);
          joined.addEventListener('abort', onAbort, { once: true });
          unlisten = () => joined.removeEventListener('abort', onAbort);
        });
        abandoned.catch(() => undefined);
      }
      const release = (): void => {
        deadline.release();
        unlisten?.();
      };
      let response: Response | undefined;
      let failure: RestoApiError<undefined> | undefined;
      try {
        const pending = plain
          ? fetchImpl(request.url, {
              method: request.method,
              headers: request.headers,
              body: request.body ?? null,
              signal,
            })
          : // A body can be read only once: every attempt but the last sends a copy of it.
            fetchImpl(hasBody && !last ? (request as Request).clone() : request, { signal });
        // Raced as well, for `fetch` implementations that ignore their signal (`Promise.race` also keeps a late
        // rejection of either side from going unhandled).
        response = await deadline.race(abandoned ? Promise.race([pending, abandoned]) : pending);
      } catch (error) {
        release();
        const callerAbort = callerSignals.find((s) => s.aborted);
        if (callerAbort) throw callerAbort.reason;
        const timedOut = signal.reason instanceof AttemptTimeout || deadline.signal.aborted;
        failure = transportError(
          error,
          operation,
          attempt,
          timedOut ? new AttemptTimeout(`${operation} timed out after ${timeoutMs} ms`) : undefined,
        );
      }
      const durationMs = logger ? Date.now() - started : 0;
      logger?.debug(`${operation} ${response ? response.status : failure!.name} in ${durationMs} ms`, {
        operation,
        attempt,
        status: response?.status,
        durationMs,
        requestId: response?.headers.get('x-request-id') ?? undefined,
      });
      const retryable = failure !== undefined || isRetryableStatus(response!.status);
      if (!retryable || last) {
        if (failure) throw failure;
        if (call.hold) call.hold(release);
        else release();
        return response!;
      }
      release();
      response?.body?.cancel().catch(() => undefined);
      const retryAfterMs = response ? parseRetryAfter(response.headers.get('retry-after')) : undefined;
      const delayMs = retryDelay(attempt, retryAfterMs, backoff, random);
      const reason = response
        ? `status ${response.status}`
        : failure instanceof TimeoutError
          ? 'timeout'
          : 'connection error';
      logger?.warn(`Retrying ${operation} in ${delayMs} ms after ${reason} (retry ${attempt} of ${retries})`, {
        operation,
        retry: attempt,
        nextAttempt: attempt + 1,
        maxRetries: retries,
        delayMs,
        reason,
        status: response?.status,
        retryAfterMs,
      });
      await wait(delayMs, anySignal(callerSignals));
    }
  };
}

/**
 * The SDK error for a failure without an answer: {@link TimeoutError} when the attempt's timer fired,
 * {@link ConnectionError} otherwise (the original error is the `cause`).
 */
export function transportError(
  error: unknown,
  operation: string,
  attempt?: number,
  abortReason?: unknown,
): ConnectionError {
  if (error instanceof ConnectionError) return error;
  const timeout = [abortReason, error, (error as { cause?: unknown } | null)?.cause].find(
    (e): e is AttemptTimeout => e instanceof AttemptTimeout,
  );
  if (timeout)
    return new TimeoutError({
      status: undefined,
      operation,
      message: `${timeout.message}${attempt ? ` (attempt ${attempt})` : ''}`,
      cause: error,
    });
  return new ConnectionError({
    status: undefined,
    operation,
    message: `${operation} failed: ${(error as Error)?.message ?? String(error)}`,
    cause: error,
  });
}
