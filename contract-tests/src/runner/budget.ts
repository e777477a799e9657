/**
 * Time budgets of the tests. A service that is far away (or slow) makes every request take longer, and a test
 * makes as many requests as it needs: a fixed time limit per test would fail a correct service only for its
 * distance. So a test's budget grows with the requests it makes: a base for the test's own work plus an
 * allowance per request, scaled by the round trip measured against the service at the start of the run. A test
 * that runs out of budget is stopped (its in-flight requests are aborted and it cannot send another one) and ends
 * as "incomplete" with a warning when the service answered slower than measured, or "failed" when the test
 * itself, not the service, took the time.
 */

/** The round trip measured at the start, and the allowance per request a budget gives. */
export interface RoundTrip {
  /** The median of the probes, in ms. */
  medianMs: number;
  /** The time a budget allows per request, in ms. */
  allowanceMs: number;
}

/** How many times the measured round trip a request may take before the service counts as slower than measured. */
const ALLOWANCE_FACTOR = 4;
/** The smallest allowance per request (a loopback service answers in well under a millisecond). */
const MIN_ALLOWANCE_MS = 20;

/** The allowance per request for a measured median round trip. */
export function allowanceFor(medianMs: number): number {
  return Math.max(MIN_ALLOWANCE_MS, Math.ceil(medianMs * ALLOWANCE_FACTOR));
}

/**
 * Measures the service's round trip with a few cheap requests (`GET url`, whatever it answers).
 * @example const rtt = await measureRoundTrip(fetch, 'https://staging.example.com/api/session');
 */
export async function measureRoundTrip(fetchImpl: typeof fetch, url: string, probes = 5): Promise<RoundTrip> {
  const times: number[] = [];
  for (let i = 0; i < probes; i += 1) {
    const started = performance.now();
    const answer = await fetchImpl(url, { signal: AbortSignal.timeout(10_000) });
    await answer.arrayBuffer();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  const medianMs = times[Math.floor(times.length / 2)] ?? 0;
  return { medianMs, allowanceMs: allowanceFor(medianMs) };
}

/** Thrown when a stopped test tries to send a request, and when a request times out (the service is too slow). */
export class IncompleteSignal extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'IncompleteSignal';
  }
}

/** How a budget ran out. */
export interface Overrun {
  /** `incomplete`: the service answered slower than measured; `failed`: the test itself took the time. */
  verdict: 'incomplete' | 'failed';
  message: string;
}

/**
 * The budget of one test (or of its cleanups): counts the requests it makes and the time spent waiting for
 * their answers, and stops them all when it runs out. Every request of the suite goes through {@link send}.
 */
export class TestBudget {
  private readonly controller = new AbortController();
  private readonly started = performance.now();
  /** Requests sent under this budget (API and control API). */
  requests = 0;
  /** Time spent waiting for answers that came, in ms (overlapping requests counted once each). */
  private waitedMs = 0;
  /** When each request still waiting for its answer was sent. */
  private readonly inFlight = new Set<{ started: number }>();

  constructor(
    readonly what: string,
    readonly baseMs: number,
    readonly allowanceMs: number,
  ) {}

  /** Aborted once the budget ran out or the test ended: no request of this test can start or go on. */
  get signal(): AbortSignal {
    return this.controller.signal;
  }

  /** The budget so far: the base plus the allowance of every request made. */
  get limitMs(): number {
    return this.baseMs + this.requests * this.allowanceMs;
  }

  get elapsedMs(): number {
    return performance.now() - this.started;
  }

  /** Stops everything the test still has running. */
  stop(reason: string): void {
    if (!this.signal.aborted) this.controller.abort(new IncompleteSignal(reason));
  }

  /** Sends one request with `fetchImpl`, counted against this budget and ended when it stops. */
  async send(fetchImpl: typeof fetch, input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    if (this.signal.aborted) throw this.signal.reason as Error;
    this.requests += 1;
    const signal = init?.signal ? AbortSignal.any([init.signal, this.signal]) : this.signal;
    const request = { started: performance.now() };
    this.inFlight.add(request);
    try {
      return await fetchImpl(input, { ...init, signal });
    } finally {
      this.inFlight.delete(request);
      this.waitedMs += performance.now() - request.started;
    }
  }

  /** Time spent waiting for answers so far, in ms, the requests still waiting included. */
  get waitingMs(): number {
    const now = performance.now();
    let waiting = this.waitedMs;
    for (const request of this.inFlight) waiting += now - request.started;
    return waiting;
  }

  /** Why the budget ran out: the service was slower than measured, or the test took the time itself. */
  overrun(): Overrun {
    const waiting = this.waitingMs;
    const figures = `${Math.round(this.elapsedMs)} ms for ${this.requests} requests (budget ${this.baseMs} ms + ${this.requests} × ${this.allowanceMs} ms; ${Math.round(waiting)} ms waiting for answers)`;
    if (waiting > this.requests * this.allowanceMs)
      return {
        verdict: 'incomplete',
        message: `${this.what} stopped unfinished: the service answered slower than the round trip measured at the start, ${figures}`,
      };
    return { verdict: 'failed', message: `${this.what} did not finish within its budget: ${figures}` };
  }

  /**
   * Waits for `work`, re-arming as the budget grows with the requests made. When it runs out, stops the work
   * and answers the overrun; else the work's own outcome.
   */
  async watch<T>(work: Promise<T>): Promise<{ value: T } | { overrun: Overrun }> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const expired = new Promise<{ overrun: Overrun }>((resolve) => {
      const arm = (): void => {
        const left = this.limitMs - this.elapsedMs;
        if (left > 0) {
          timer = setTimeout(arm, left);
          return;
        }
        const overrun = this.overrun();
        this.stop(overrun.message);
        resolve({ overrun });
      };
      arm();
    });
    try {
      return await Promise.race([work.then((value) => ({ value })), expired]);
    } finally {
      clearTimeout(timer);
    }
  }
}

/** Waits for a stopped test's promise to settle (its requests fail at once), at most `ms`. */
export async function settled(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([
      work.then(
        () => true,
        () => true,
      ),
      late,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
