import { ConnectionError, TimeoutError, type RestoApiError } from '../errors/api-error.js';
import { sleep as defaultSleep } from '../resilience/abort.js';
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
   * Reads the final answer while the attempt's deadline still runs, so that the timeout also covers the body:
   * the pipeline then resolves to what it returns (or rejects with what it throws) instead of the `Response`.
   * Without it the deadline ends as soon as the answer's headers arrive.
   */
  read?: ((response: Response, call: CallSettings) => Promise<unknown>) | undefined;
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

/**
 * Sends one request with timeouts and retries; answers with the response (or what `call.read` makes of it)
 * or throws {@link ConnectionError}/{@link TimeoutError}.
 */
export interface Pipeline {
  (request: Request | PlainRequest, call?: CallSettings & { read?: undefined }): Promise<Response>;
  (request: Request | PlainRequest, call: CallSettings): Promise<unknown>;
}

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

  return async function send(request: Request | PlainRequest, call: CallSettings = {}): Promise<unknown> {
    const plain = !(request instanceof Request);
    const operation = call.operation ?? `${request.method} ${new URL(request.url).pathname}`;
    const maxRetries = Math.max(0, call.maxRetries ?? options.maxRetries ?? DEFAULT_MAX_RETRIES);
    const retries = mayRetry(request.method, call.retry ?? options.retry) ? maxRetries : 0;
    const timeoutMs = call.timeoutMs ?? options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    // The caller's signal: the call option's when the call says (resource methods build the request without one),
    // else the request's own (raw calls).
    const callerSignal: AbortSignal | undefined =
      'signal' in call ? call.signal : plain ? undefined : (request as Request).signal;
    // Only a `Request`'s body is a one-time stream; a plain request's body can be sent again as it is.
    const hasBody = !plain && request.body !== null;
    const read = call.read;

    for (let attempt = 1; ; attempt++) {
      if (callerSignal?.aborted) throw callerSignal.reason;
      const last = attempt > retries;
      const started = logger ? Date.now() : 0;
      // The attempt's own deadline (a shared slot, see deadlines.ts). Without a caller's signal that slot's
      // signal is all `fetch` needs; with one, both are joined, which costs a signal only on such calls.
      const deadline = deadlines.acquire(timeoutMs);
      let signal = deadline.signal;
      let abandoned: Promise<never> | undefined;
      let unlisten: (() => void) | undefined;
      if (callerSignal) {
        signal = AbortSignal.any([callerSignal, deadline.signal]);
        const joined = signal;
        abandoned = new Promise<never>((_, reject) => {
          const onAbort = (): void => reject(joined.reason);
          joined.addEventListener('abort', onAbort, { once: true });
          unlisten = () => joined.removeEventListener('abort', onAbort);
        });
        abandoned.catch(() => undefined);
      }
      let response: Response | undefined;
      // Set once the final answer is handed to `read`: a failure from then on is the reader's, not the exchange's.
      let reading = false;
      let readFailed = false;
      let value: unknown;
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
        // The final answer is read in the same chain, so one race covers the answer and its body.
        const answered =
          read === undefined
            ? pending
            : pending.then((answer) => {
                response = answer;
                if (!last && isRetryableStatus(answer.status)) return answer;
                reading = true;
                return read(answer, call);
              });
        // Raced as well, for `fetch` implementations that ignore their signal (`Promise.race` also keeps a late
        // rejection of either side from going unhandled).
        value = await deadline.race(abandoned ? Promise.race([answered, abandoned]) : answered);
        if (read === undefined) response = value as Response;
      } catch (error) {
        if (callerSignal?.aborted) throw callerSignal.reason;
        const timedOut = signal.reason instanceof AttemptTimeout || deadline.signal.aborted;
        if (reading && !timedOut) {
          // The reader's own errors (a typed error answer, a malformed body) stay as they are.
          readFailed = true;
          value = error;
        } else {
          failure = timedOut ? timeoutError(operation, timeoutMs, attempt, error) : transportError(error, operation);
        }
      } finally {
        // The attempt is over either way: its answer (and body, when read) arrived, or it failed.
        deadline.release();
        unlisten?.();
      }
      const durationMs = logger ? Date.now() - started : 0;
      logger?.debug(`${operation} ${response ? response.status : failure!.name} in ${durationMs} ms`, {
        operation,
        attempt,
        status: response?.status,
        durationMs,
        requestId: response?.headers.get('x-request-id') ?? undefined,
      });
      if (reading) {
        // A final answer is never retried, also when its body timed out.
        if (readFailed) throw value;
        if (failure) throw failure;
        return value;
      }
      const retryable = failure !== undefined || isRetryableStatus(response!.status);
      if (!retryable || last) {
        if (failure) throw failure;
        return response!;
      }
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
      await wait(delayMs, callerSignal);
    }
  } as Pipeline;
}

/** The {@link TimeoutError} of an attempt whose deadline passed (`cause`: what the attempt failed with). */
function timeoutError(operation: string, timeoutMs: number, attempt: number, cause: unknown): TimeoutError {
  return new TimeoutError({
    status: undefined,
    operation,
    message: `${operation} timed out after ${timeoutMs} ms (attempt ${attempt})`,
    cause,
  });
}

/** The SDK error for a failure without an answer: {@link ConnectionError} (the original error is the `cause`). */
export function transportError(error: unknown, operation: string): ConnectionError {
  if (error instanceof ConnectionError) return error;
  return new ConnectionError({
    status: undefined,
    operation,
    message: `${operation} failed: ${(error as Error)?.message ?? String(error)}`,
    cause: error,
  });
}
