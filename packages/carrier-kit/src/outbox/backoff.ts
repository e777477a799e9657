import { backoffDelayMs } from '@restoapi/openapi';

/** Exponential backoff with jitter. */
export interface BackoffPolicy {
  /** Delay before the first retry (default 1 s). */
  initialDelayMs?: number;
  /** Growth of each further delay (default 2). */
  factor?: number;
  /** Longest delay (default 60 s). */
  maxDelayMs?: number;
  /** Relative spread: 0.2 spreads each delay over ±20 % (default 0.2). */
  jitter?: number;
}

/**
 * Delay before the retry that follows `failures` failed attempts, never below `retryAfterMs` when the
 * service asked for a pause.
 * @example
 * backoffDelay({}, 3, 0.5); // 4000
 */
export function backoffDelay(policy: BackoffPolicy, failures: number, random: number, retryAfterMs?: number): number {
  // The formula is the document's callback backoff (@restoapi/openapi); only the defaults and Retry-After are ours.
  const delay = backoffDelayMs(
    {
      initialDelayMs: policy.initialDelayMs ?? 1000,
      factor: policy.factor ?? 2,
      maxDelayMs: policy.maxDelayMs ?? 60_000,
      jitter: policy.jitter ?? 0.2,
    },
    failures,
    random,
  );
  return Math.max(delay, retryAfterMs ?? 0);
}
