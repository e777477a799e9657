/** A task the scheduler runs once the virtual clock reaches its time. */
interface Task {
  id: number;
  at: number;
  run: () => void | Promise<void>;
}

/**
 * Virtual time: real time plus an offset that `set` and `advance` move.
 * Import jobs, callback retries and working hours all read this clock, so a
 * test can jump an hour ahead instead of waiting for it.
 */
export class VirtualClock {
  private offsetMs = 0;
  private frozenAt: number | undefined;
  private readonly tasks: Task[] = [];
  private nextTaskId = 1;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;
  private running: Promise<void> = Promise.resolve();
  /** `runDue` calls whose run has not finished yet. */
  private queuedRuns = 0;

  /** The current virtual time in milliseconds since the epoch. */
  nowMs(): number {
    return this.frozenAt ?? Date.now() + this.offsetMs;
  }

  /** The current virtual time. */
  now(): Date {
    return new Date(this.nowMs());
  }

  /** Whether time only moves when told to. */
  get frozen(): boolean {
    return this.frozenAt !== undefined;
  }

  /** Jumps to a time; `freeze` stops real time from moving it further. */
  async set(at: Date, freeze = this.frozen): Promise<void> {
    if (freeze) this.frozenAt = at.getTime();
    else {
      this.frozenAt = undefined;
      this.offsetMs = at.getTime() - Date.now();
    }
    await this.runDue();
  }

  /** Moves time forward and runs every task that fell due, in time order. */
  async advance(ms: number): Promise<void> {
    if (this.frozenAt !== undefined) this.frozenAt += ms;
    else this.offsetMs += ms;
    await this.runDue();
  }

  /** Runs `run` when the clock reaches `at` (milliseconds since the epoch). */
  schedule(at: number, run: Task['run']): number {
    const task = { id: this.nextTaskId++, at, run };
    this.tasks.push(task);
    this.tasks.sort((a, b) => a.at - b.at || a.id - b.id);
    this.arm();
    return task.id;
  }

  /** Drops a scheduled task. */
  cancel(id: number): void {
    const index = this.tasks.findIndex((task) => task.id === id);
    if (index >= 0) this.tasks.splice(index, 1);
  }

  /** Number of tasks waiting. */
  get pending(): number {
    return this.tasks.length;
  }

  /** Runs due tasks now, after any run still in progress. */
  runDue(): Promise<void> {
    this.queuedRuns += 1;
    this.running = this.running.then(async () => {
      try {
        for (;;) {
          const next = this.tasks[0];
          if (!next || next.at > this.nowMs()) break;
          this.tasks.shift();
          try {
            await next.run();
          } catch (error) {
            console.error('[restoapi-mock] scheduled task failed', error);
          }
        }
        this.arm();
      } finally {
        this.queuedRuns -= 1;
      }
    });
    return this.running;
  }

  /**
   * What every request calls before its handler, so lazily-due work is never stale: {@link runDue} when a
   * task is due or a run is still in progress (the request then waits for it, as before), otherwise
   * `undefined` at once. Skipping the idle case saves a promise chain per request; the timer needs no
   * re-arming then, since `schedule`, `set`, `advance` and every finished run arm it.
   */
  runDueIfAny(): Promise<void> | undefined {
    const next = this.tasks[0];
    if (this.queuedRuns === 0 && (!next || next.at > this.nowMs())) return undefined;
    return this.runDue();
  }

  /** Stops the real-time timer; pending tasks stay queued but never run. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }

  private arm(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    const next = this.tasks[0];
    if (!next || this.closed || this.frozenAt !== undefined) return;
    const delay = Math.max(0, Math.min(next.at - this.nowMs(), 2 ** 31 - 1));
    this.timer = setTimeout(() => void this.runDue(), delay);
    // A waiting retry must not keep a test process alive.
    (this.timer as { unref?: () => void }).unref?.();
  }
}
