import { describe, expect, test } from 'vitest';
import { DEFAULT_BACKOFF, isRetryableStatus, mayRetry, parseRetryAfter, retryDelay } from './retry-policy.js';

describe('retry policy', () => {
  test('idempotent methods are retried by default; POST and PATCH only when opted in', () => {
    for (const method of ['GET', 'PUT', 'DELETE', 'HEAD', 'OPTIONS', 'get'])
      expect(mayRetry(method, undefined)).toBe(true);
    for (const method of ['POST', 'PATCH']) expect(mayRetry(method, undefined)).toBe(false);
    expect(mayRetry('POST', true)).toBe(true);
    expect(mayRetry('GET', false)).toBe(false);
  });

  test('408, 429 and 5xx are retryable; other statuses are not', () => {
    expect([408, 429, 500, 502, 503, 504, 599].every(isRetryableStatus)).toBe(true);
    expect([200, 400, 401, 403, 404, 409, 413, 415, 422].some(isRetryableStatus)).toBe(false);
  });

  test('Retry-After takes delay-seconds or an HTTP date', () => {
    expect(parseRetryAfter('2')).toBe(2000);
    expect(parseRetryAfter(' 0 ')).toBe(0);
    expect(parseRetryAfter('1.5')).toBe(1500);
    const now = Date.parse('Fri, 20 Nov 2026 17:30:00 GMT');
    expect(parseRetryAfter('Fri, 20 Nov 2026 17:30:07 GMT', now)).toBe(7000);
    expect(parseRetryAfter('Fri, 20 Nov 2026 17:29:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter('-1')).toBeUndefined();
    expect(parseRetryAfter(null)).toBeUndefined();
  });

  test('the delay is Retry-After (capped) or exponential backoff with full jitter', () => {
    const backoff = { ...DEFAULT_BACKOFF, initialDelayMs: 100, maxDelayMs: 1_000, maxRetryAfterMs: 5_000 };
    expect(retryDelay(1, 3_000, backoff)).toBe(3_000);
    expect(retryDelay(1, 60_000, backoff)).toBe(5_000);
    const top = () => 0.999999;
    expect([1, 2, 3, 4, 5, 6].map((retry) => retryDelay(retry, undefined, backoff, top))).toEqual([
      99, 199, 399, 799, 999, 999,
    ]);
    expect(retryDelay(3, undefined, backoff, () => 0)).toBe(0);
    for (let i = 0; i < 100; i++) {
      const delay = retryDelay(2, undefined, backoff);
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(200);
    }
  });
});
