import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { AttemptTimeout, Deadlines, slotWidth } from './deadlines.js';

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

test('attempts due in the same slot share one signal, and their timer goes with the last of them', () => {
  const deadlines = new Deadlines();
  const a = deadlines.acquire(30_000);
  const b = deadlines.acquire(30_000);
  expect(b.signal).toBe(a.signal);
  expect(deadlines.armed).toBe(1);
  a.release();
  expect(deadlines.armed).toBe(1);
  b.release();
  b.release(); // idempotent
  expect(deadlines.armed).toBe(0);
  expect(vi.getTimerCount()).toBe(0);
});

test('a deadline aborts its signal and rejects the raced call with an AttemptTimeout, never early', async () => {
  const deadlines = new Deadlines();
  const lease = deadlines.acquire(1_000);
  const hanging = lease.race(new Promise<never>(() => undefined));
  const outcome = hanging.catch((error: unknown) => error);
  vi.advanceTimersByTime(999);
  expect(lease.signal.aborted).toBe(false);
  vi.advanceTimersByTime(slotWidth(1_000) + 1);
  expect(lease.signal.aborted).toBe(true);
  expect(lease.signal.reason).toBeInstanceOf(AttemptTimeout);
  expect(await outcome).toBeInstanceOf(AttemptTimeout);
});

test('a released attempt is not rejected when its slot later expires', async () => {
  const deadlines = new Deadlines();
  const done = deadlines.acquire(1_000);
  const answered = done.race(Promise.resolve('answer'));
  done.release();
  const stillRunning = deadlines.acquire(1_000);
  const pending = stillRunning.race(new Promise<never>(() => undefined)).catch((error: unknown) => error);
  vi.advanceTimersByTime(1_100);
  expect(await answered).toBe('answer');
  expect(await pending).toBeInstanceOf(AttemptTimeout);
});

test('sequential calls re-arm the idle slot instead of making a new signal, and leave no timer behind', () => {
  const deadlines = new Deadlines();
  const first = deadlines.acquire(30_000);
  const signal = first.signal;
  first.release();
  const second = deadlines.acquire(30_000);
  expect(second.signal).toBe(signal);
  second.release();
  vi.advanceTimersByTime(slotWidth(30_000) + 1);
  const later = deadlines.acquire(30_000);
  expect(later.signal).not.toBe(signal);
  later.release();
  expect(vi.getTimerCount()).toBe(0);
});

test('different timeouts get their own deadlines', () => {
  const deadlines = new Deadlines();
  const short = deadlines.acquire(100);
  const long = deadlines.acquire(30_000);
  expect(short.signal).not.toBe(long.signal);
  vi.advanceTimersByTime(100 + slotWidth(100));
  expect(short.signal.aborted).toBe(true);
  expect(long.signal.aborted).toBe(false);
  long.release();
});
