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
  const initial = policy.initialDelayMs ?? 1000;
  const max = policy.maxDelayMs ?? 60_000;
  const jitter = policy.jitter ?? 0.2;
  const base = Math.min(initial * (policy.factor ?? 2) ** Math.max(0, failures - 1), max);
  const spread = Math.round(Math.min(base * (1 + jitter * (2 * random - 1)), max));
  return Math.max(spread, retryAfterMs ?? 0);
}
