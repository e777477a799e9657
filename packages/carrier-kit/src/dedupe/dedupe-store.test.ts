import { expect, test } from 'vitest';
import { createManualScheduler } from '../time/scheduler.js';
import { createMemoryDedupeStore } from './dedupe-store.js';

test('a key is claimed once, locked while in flight, remembered for its TTL, and released on failure', () => {
  const clock = createManualScheduler();
  const store = createMemoryDedupeStore({ scheduler: clock });
  expect(store.claim('5001|order_created|', 1000)).toBe('claimed');
  expect(store.claim('5001|order_created|', 1000)).toBe('in_flight');
  store.complete('5001|order_created|', 60_000);
  expect(store.claim('5001|order_created|', 1000)).toBe('done');
  clock.advance(60_001);
  expect(store.claim('5001|order_created|', 1000)).toBe('claimed');
  store.release('5001|order_created|');
  expect(store.claim('5001|order_created|', 1000)).toBe('claimed');
});

test('an in-flight lock expires after its lease, so a crashed worker does not block the key forever', () => {
  const clock = createManualScheduler();
  const store = createMemoryDedupeStore({ scheduler: clock });
  expect(store.claim('k', 5_000)).toBe('claimed');
  clock.advance(5_001);
  expect(store.claim('k', 5_000)).toBe('claimed');
});

test('keeps at most maxKeys keys', () => {
  const store = createMemoryDedupeStore({ maxKeys: 3 });
  for (let i = 0; i < 10; i++) store.complete(`k${i}`, 60_000);
  store.claim('another', 1000);
  expect(store.size).toBeLessThanOrEqual(3);
});
