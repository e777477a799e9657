import { expect, test } from 'vitest';
import { retryPolicy, seededRandom } from './retry-policy.js';

test('the policy is the one the document gives both callbacks', () => {
  expect(retryPolicy('order_created')).toEqual({
    initialDelayMs: 1000,
    factor: 2,
    jitter: 0.2,
    maxDelayMs: 300_000,
    maxAttempts: 12,
    timeoutMs: 10_000,
  });
  expect(retryPolicy('order_status_changed')).toEqual(retryPolicy('order_created'));
});

test('seeded randomness repeats for the same inputs and spreads over [0, 1)', () => {
  expect(seededRandom(7, 1, 2)).toBe(seededRandom(7, 1, 2));
  expect(seededRandom(7, 1, 2)).not.toBe(seededRandom(8, 1, 2));
  const values = Array.from({ length: 2000 }, (_, i) => seededRandom(1, i));
  expect(Math.min(...values)).toBeGreaterThanOrEqual(0);
  expect(Math.max(...values)).toBeLessThan(1);
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  expect(mean).toBeGreaterThan(0.45);
  expect(mean).toBeLessThan(0.55);
});
