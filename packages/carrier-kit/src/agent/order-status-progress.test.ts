import { expect, test } from 'vitest';
import { readOrderStatusProgress } from './order-status-progress.js';

test('orders the carrier-view statuses by the document’s order life cycle', () => {
  const progress = readOrderStatusProgress();
  expect(
    ['new', 'confirmed', 'preparing', 'prepared', 'delivering', 'complete'].map((s) => progress.rank(s as never)),
  ).toEqual([0, 1, 2, 3, 4, 5]);
  expect(progress.isStale('prepared', 'preparing')).toBe(true);
  expect(progress.isStale('preparing', 'delivering')).toBe(false);
  expect(progress.isStale('complete', 'delivering')).toBe(true);
  expect(progress.isStale('cancelled', 'new')).toBe(true);
  expect(progress.isStale('new', 'cancelled')).toBe(false);
});
