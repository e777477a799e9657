import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { AttemptTimeout, Deadlines, slotWidth } from './deadlines.js';

beforeEach(() => {
  vi.useFakeTimers({ now: 1_000_000 });
});
afterEach(() => {
  vi.useRealTimers();
});

test('attempts due in the same slot share one signal, and their slot goes idle with the last of them', () => {
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
  // The idle slot keeps its timer for the next call; when it fires, nobody holds it and nothing is aborted.
  expect(deadlines.timers).toBe(1);
  vi.advanceTimersByTime(30_000 + slotWidth(30_000));
  expect(a.signal.aborted).toBe(false);
  expect(deadlines.timers).toBe(0);
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

test('sequential calls hold the idle slot again without a new timer, and a later slot replaces it', () => {
  const deadlines = new Deadlines();
  const first = deadlines.acquire(30_000);
  const signal = first.signal;
  first.release();
  const second = deadlines.acquire(30_000);
  expect(second.signal).toBe(signal);
  expect(vi.getTimerCount()).toBe(1);
  second.release();
  vi.advanceTimersByTime(slotWidth(30_000) + 1);
  const later = deadlines.acquire(30_000);
  expect(later.signal).not.toBe(signal);
  later.release();
  // The new slot went idle in place of the old one, whose timer was cleared.
  expect(deadlines.timers).toBe(1);
  expect(vi.getTimerCount()).toBe(1);
});

test('an idle slot held again still times out its new attempt', async () => {
  const deadlines = new Deadlines();
  deadlines.acquire(1_000).release();
  const again = deadlines.acquire(1_000);
  const outcome = again.race(new Promise<never>(() => undefined)).catch((error: unknown) => error);
  vi.advanceTimersByTime(1_000 + slotWidth(1_000));
  expect(await outcome).toBeInstanceOf(AttemptTimeout);
  expect(again.signal.aborted).toBe(true);
});

test('with real timers, a deadline never keeps the process alive by itself', () => {
  vi.useRealTimers();
  const timeouts = (): number => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
  const before = timeouts();
  const deadlines = new Deadlines();
  const lease = deadlines.acquire(30_000);
  expect(deadlines.timers).toBe(1);
  expect(timeouts()).toBe(before);
  lease.release();
  expect(timeouts()).toBe(before);
});

test('many attempts in one slot: releasing some in any order leaves the others to time out', async () => {
  const deadlines = new Deadlines();
  const leases = Array.from({ length: 5 }, () => deadlines.acquire(1_000));
  const outcomes = leases.map((lease) =>
    lease.race(new Promise<never>(() => undefined)).catch((error: unknown) => error),
  );
  leases[2]!.release();
  leases[0]!.release();
  leases[4]!.release();
  vi.advanceTimersByTime(1_000 + slotWidth(1_000));
  expect(await outcomes[1]).toBeInstanceOf(AttemptTimeout);
  expect(await outcomes[3]).toBeInstanceOf(AttemptTimeout);
  const settled = await Promise.race([outcomes[0], Promise.resolve('pending')]);
  expect(settled).toBe('pending');
});
