/** An opaque handle of a timer set with a {@link Scheduler}. */
export type TimerHandle = object | number;

/**
 * The clock and timers the kit's own waiting goes through (outbox retries, position intervals,
 * order reloads), so tests can replace real time with {@link createManualScheduler}.
 */
export interface Scheduler {
  /** The current time in milliseconds since the epoch. */
  now(): number;
  /** Runs `run` once after `ms` milliseconds. */
  setTimer(run: () => void, ms: number): TimerHandle;
  /** Cancels a timer that has not run yet. */
  clearTimer(handle: TimerHandle): void;
}

/** The real clock and `setTimeout`; timers are unref'd so a waiting retry never keeps a process alive. */
export const systemScheduler: Scheduler = {
  now: () => Date.now(),
  setTimer(run, ms) {
    const timer = setTimeout(run, Math.max(0, Math.min(ms, 2 ** 31 - 1)));
    (timer as { unref?: () => void }).unref?.();
    return timer as unknown as TimerHandle;
  },
  clearTimer(handle) {
    clearTimeout(handle as unknown as ReturnType<typeof setTimeout>);
  },
};

/** Waits `ms` on a scheduler; rejects with the signal's reason when aborted. */
export function sleep(scheduler: Scheduler, ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = (): void => {
      scheduler.clearTimer(handle);
      reject(signal?.reason);
    };
    const handle = scheduler.setTimer(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A {@link Scheduler} whose time moves only when told to. */
export interface ManualScheduler extends Scheduler {
  /** Moves time forward, running every timer that falls due on the way, each at its own time. */
  advance(ms: number): void;
  /** Moves time to the next timer and runs it; returns false when none is waiting. */
  runNext(): boolean;
  /** Number of timers waiting. */
  readonly pending: number;
}

interface ManualTimer {
  id: number;
  at: number;
  run: () => void;
}

/**
 * Creates a scheduler for tests: virtual time that only moves with `advance`.
 * @example
 * const clock = createManualScheduler();
 * const outbox = createOutbox({ api, scheduler: clock });
 * clock.advance(10_000); // the position interval passes at once
 */
export function createManualScheduler(startMs = Date.UTC(2026, 10, 20, 17, 30)): ManualScheduler {
  let now = startMs;
  let nextId = 1;
  const timers: ManualTimer[] = [];
  const take = (limit: number): ManualTimer | undefined => {
    timers.sort((a, b) => a.at - b.at || a.id - b.id);
    const first = timers[0];
    if (!first || first.at > limit) return undefined;
    timers.shift();
    return first;
  };
  return {
    now: () => now,
    setTimer(run, ms) {
      const timer = { id: nextId++, at: now + Math.max(0, ms), run };
      timers.push(timer);
      return timer;
    },
    clearTimer(handle) {
      const index = timers.indexOf(handle as ManualTimer);
      if (index >= 0) timers.splice(index, 1);
    },
    advance(ms) {
      const target = now + ms;
      for (let timer = take(target); timer; timer = take(target)) {
        now = Math.max(now, timer.at);
        timer.run();
      }
      now = target;
    },
    runNext() {
      const timer = take(Number.POSITIVE_INFINITY);
      if (!timer) return false;
      now = Math.max(now, timer.at);
      timer.run();
      return true;
    },
    get pending() {
      return timers.length;
    },
  };
}
