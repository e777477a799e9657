import { expect, test } from 'vitest';
import { allowanceFor, IncompleteSignal, TestBudget } from './budget.js';

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** A fetch that answers after `ms`, or rejects with the signal's reason when it is aborted first. */
function slowFetch(ms: number): typeof fetch {
  return ((_input: RequestInfo | URL, init?: RequestInit) =>
    new Promise<Response>((resolve, reject) => {
      const timer = setTimeout(() => resolve(new Response('{}')), ms);
      init?.signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(init.signal!.reason);
      });
    })) as typeof fetch;
}

test('the allowance per request is four round trips, at least 20 ms', () => {
  expect(allowanceFor(0.4)).toBe(20);
  expect(allowanceFor(42)).toBe(168);
});

test('a budget grows with the requests made: many slow-ish requests within their allowance pass', async () => {
  const budget = new TestBudget('t', 10, 1_000);
  const work = (async () => {
    for (let i = 0; i < 6; i += 1) await budget.send(slowFetch(20), 'http://x/');
    return 'done';
  })();
  // 6 × 20 ms is beyond the base of 10 ms, but well within 10 + 6 × 1000 ms (timers run late on a busy machine).
  expect(await budget.watch(work)).toEqual({ value: 'done' });
});

test('a service slower than its allowance makes the test incomplete, and its request in flight is aborted', async () => {
  const budget = new TestBudget('t', 20, 5);
  const work = budget.send(slowFetch(1_000), 'http://x/');
  const outcome = await budget.watch(work);
  expect(outcome).toMatchObject({ overrun: { verdict: 'incomplete' } });
  await expect(work).rejects.toBeInstanceOf(IncompleteSignal);
  // Once stopped, no further request starts.
  await expect(budget.send(slowFetch(1), 'http://x/')).rejects.toBeInstanceOf(IncompleteSignal);
  expect(budget.requests).toBe(1);
});

test('a test that takes the time itself (not waiting for answers) fails', async () => {
  const budget = new TestBudget('t', 20, 50);
  const outcome = await budget.watch(sleep(200));
  expect(outcome).toMatchObject({ overrun: { verdict: 'failed' } });
  expect('overrun' in outcome && outcome.overrun.message).toMatch(/did not finish within its budget/);
});
