import { expect, test } from 'vitest';
import { backoffDelayMs } from './backoff.js';

const policy = { initialDelayMs: 1000, factor: 2, maxDelayMs: 10_000, jitter: 0.2 };

test('delays double from the initial delay, spread by the jitter, and never pass the longest delay', () => {
  expect([1, 2, 3, 4].map((failures) => backoffDelayMs(policy, failures, 0.5))).toEqual([1000, 2000, 4000, 8000]);
  expect(backoffDelayMs(policy, 1, 0)).toBe(800);
  expect(backoffDelayMs(policy, 1, 0.999999)).toBe(1200);
  expect(backoffDelayMs(policy, 5, 0.999999)).toBe(10_000);
  expect(backoffDelayMs(policy, 5, 0)).toBe(8000);
  expect(backoffDelayMs(policy, 0, 0.5)).toBe(1000);
});
