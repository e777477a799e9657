/** Methods retried by default: repeating them cannot apply a change twice. */
export const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(['GET', 'PUT', 'DELETE', 'HEAD', 'OPTIONS']);

/** Statuses worth another attempt: timeout, throttling and server failures. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 429 || status >= 500;
}

/**
 * Whether a request may be retried: `retry: true` allows every method, `false` none,
 * `undefined` (the default) only the idempotent ones.
 */
export function mayRetry(method: string, retry: boolean | undefined): boolean {
  // Methods come upper-case from the SDK itself; only a hand-made `Request` may say `get`.
  return retry ?? (IDEMPOTENT_METHODS.has(method) || IDEMPOTENT_METHODS.has(method.toUpperCase()));
}

/**
 * Reads `Retry-After` (RFC 9110 §10.2.3): delay-seconds or an HTTP date; milliseconds from `now`, `undefined` when absent or unreadable.
 * @example
 * parseRetryAfter('2') // 2000
 */
export function parseRetryAfter(value: string | null | undefined, now: number = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed) * 1000;
  // An HTTP date names its weekday and month; anything else (negative numbers, garbage) is unreadable.
  const at = /[a-z]{3}/i.test(trimmed) ? Date.parse(trimmed) : Number.NaN;
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Settings of the backoff. */
export interface BackoffOptions {
  /** Upper bound of the first retry's delay (doubles every retry). */
  initialDelayMs: number;
  /** Upper bound of any backoff delay. */
  maxDelayMs: number;
  /** Longest `Retry-After` obeyed; longer ones are cut to this. */
  maxRetryAfterMs: number;
}

/** The defaults: 0.5 s, doubling, at most 8 s; `Retry-After` obeyed up to 60 s. */
export const DEFAULT_BACKOFF: BackoffOptions = { initialDelayMs: 500, maxDelayMs: 8_000, maxRetryAfterMs: 60_000 };

/**
 * Delay before retry number `retry` (1-based): the answer's `Retry-After` when present (capped),
 * else exponential backoff with full jitter (a random delay between 0 and the capped exponential bound).
 */
export function retryDelay(
  retry: number,
  retryAfterMs: number | undefined,
  backoff: BackoffOptions,
  random: () => number = Math.random,
): number {
  if (retryAfterMs !== undefined) return Math.min(retryAfterMs, backoff.maxRetryAfterMs);
  const bound = Math.min(backoff.maxDelayMs, backoff.initialDelayMs * 2 ** (retry - 1));
  return Math.floor(random() * bound);
}
