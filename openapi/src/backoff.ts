/** Exponential backoff with jitter: the shape of the callbacks' `x-retry-policy`, shared by the mock and the carrier kit. */
export interface Backoff {
  /** Delay before the first retry, in ms. */
  initialDelayMs: number;
  /** Growth of each further delay. */
  factor: number;
  /** Longest delay, in ms (jitter included). */
  maxDelayMs: number;
  /** Relative spread: 0.2 spreads each delay over ±20 %. */
  jitter: number;
}

/**
 * Delay before the attempt that follows `failures` failed attempts: `initialDelayMs × factor^(failures-1)`,
 * spread by ±`jitter` with `random` (a number in [0, 1)), rounded, and never above `maxDelayMs`.
 * @example
 * backoffDelayMs({ initialDelayMs: 1000, factor: 2, maxDelayMs: 60_000, jitter: 0.2 }, 3, 0.5); // 4000
 */
export function backoffDelayMs(policy: Backoff, failures: number, random: number): number {
  const base = Math.min(policy.initialDelayMs * policy.factor ** Math.max(0, failures - 1), policy.maxDelayMs);
  return Math.round(Math.min(base * (1 + policy.jitter * (2 * random - 1)), policy.maxDelayMs));
}
