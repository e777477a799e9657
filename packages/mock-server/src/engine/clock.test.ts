import { expect, test } from 'vitest';
import { VirtualClock } from './clock.js';

test('runDueIfAny does nothing while no task is due, and runs the due ones like runDue', async () => {
  const clock = new VirtualClock();
  await clock.set(new Date('2026-11-20T18:00:00Z'), true);
  expect(clock.runDueIfAny()).toBeUndefined();
  const ran: string[] = [];
  clock.schedule(clock.nowMs() + 1000, () => void ran.push('later'));
  expect(clock.runDueIfAny()).toBeUndefined();
  clock.schedule(clock.nowMs() - 1, () => void ran.push('due'));
  const run = clock.runDueIfAny();
  expect(run).toBeInstanceOf(Promise);
  await run;
  expect(ran).toEqual(['due']);
  expect(clock.pending).toBe(1);
  await clock.advance(1000);
  expect(ran).toEqual(['due', 'later']);
  expect(clock.runDueIfAny()).toBeUndefined();
  clock.close();
});

test('while a task is still running, a request waits for it even though nothing else is due', async () => {
  const clock = new VirtualClock();
  await clock.set(new Date('2026-11-20T18:00:00Z'), true);
  let release!: () => void;
  const events: string[] = [];
  clock.schedule(clock.nowMs(), async () => {
    events.push('task started');
    await new Promise<void>((resolve) => (release = resolve));
    events.push('task finished');
  });
  const first = clock.runDue();
  await new Promise((resolve) => setTimeout(resolve, 0));
  expect(events).toEqual(['task started']);
  const waiting = clock.runDueIfAny();
  expect(waiting).toBeInstanceOf(Promise);
  void waiting!.then(() => events.push('request goes on'));
  await new Promise((resolve) => setTimeout(resolve, 0));
  expect(events).toEqual(['task started']);
  release();
  await first;
  await waiting;
  expect(events).toEqual(['task started', 'task finished', 'request goes on']);
  expect(clock.runDueIfAny()).toBeUndefined();
  clock.close();
});
