/*
 * Per-attempt deadlines without an AbortController per attempt.
 *
 * Every attempt gets its own deadline (its start + its timeout), armed when it starts and released when it
 * ends. Attempts whose deadlines fall in the same short slot share one controller and one timer: when the
 * slot's time comes, every attempt still holding it has run past its own timeout (by at most the slot's
 * width), so aborting them together is exactly what their separate timers would have done. The shared
 * controller is what makes this cheap: creating an `AbortSignal` costs microseconds in Node (it is made
 * transferable), as much as the rest of the SDK's work on a call, while a slot is a map lookup and a count.
 * The slot's timer is cleared as soon as its last attempt ends, so finished calls keep no timer alive (a
 * script exits at once); the last idle slot is kept (without a timer) for the next attempt of the same slot,
 * which is what sequential calls are. Slots are at most 20 ms wide, so a signal is shared by a few hundred attempts at
 * most and the abort listeners that `fetch` implementations add to it stay few.
 */

/** The reason a deadline aborts with, so that a timeout can be told from the caller's own abort. */
export class AttemptTimeout extends Error {
  override name = 'AttemptTimeout';
}

/** One attempt's hold on a deadline. */
export interface DeadlineLease {
  /** Aborts (with an {@link AttemptTimeout}) when the deadline passes. */
  readonly signal: AbortSignal;
  /**
   * `pending`, or a rejection with the {@link AttemptTimeout} when the deadline passes first: for `fetch`
   * implementations that ignore their signal.
   */
  race<T>(pending: Promise<T>): Promise<T>;
  /** Ends the attempt's hold; the timer goes once no attempt holds it. Idempotent. */
  release(): void;
}

/** A deadline slot: one controller and one timer for the attempts due in the same short window. */
export interface Slot {
  readonly at: number;
  readonly timeoutMs: number;
  readonly controller: AbortController;
  /**
   * The attempts holding the slot. Each is forgotten when it ends: a shared promise that every attempt raced
   * against would keep every settled attempt (and its response) reachable until the slot goes, which made
   * the garbage collector's work grow several-fold.
   */
  readonly leases: Set<Lease>;
  /** Armed while attempts hold the slot; cleared when the last one lets go. */
  timer: ReturnType<typeof setTimeout> | undefined;
}

class Lease implements DeadlineLease {
  readonly #slot: Slot;
  readonly #owner: Deadlines;
  #held = true;
  #reject: ((reason: unknown) => void) | undefined;

  constructor(slot: Slot, owner: Deadlines) {
    this.#slot = slot;
    this.#owner = owner;
  }

  get signal(): AbortSignal {
    return this.#slot.controller.signal;
  }

  race<T>(pending: Promise<T>): Promise<T> {
    if (!this.#held) return pending;
    const { signal } = this.#slot.controller;
    if (signal.aborted) {
      pending.catch(() => undefined);
      return Promise.reject(signal.reason as Error);
    }
    return new Promise<T>((resolve, reject) => {
      this.#reject = reject;
      pending.then(resolve, reject);
    });
  }

  /** Called by the slot when its time comes. */
  expire(reason: unknown): void {
    this.#reject?.(reason);
    this.#reject = undefined;
  }

  release(): void {
    if (!this.#held) return;
    this.#held = false;
    this.#reject = undefined;
    this.#slot.leases.delete(this);
    this.#owner.released(this.#slot);
  }
}

/** The slot width for a timeout: about 1/64 of it, at least 1 ms and at most 20 ms (how late a timeout may fire). */
export function slotWidth(timeoutMs: number): number {
  return Math.max(1, Math.min(20, Math.floor(timeoutMs / 64)));
}

/** Hands out deadlines; one per client (see the file comment). */
export class Deadlines {
  /** Slots with attempts on them, by deadline. */
  readonly #slots = new Map<number, Slot>();
  /** The last slot to go idle, kept to be re-armed by the next attempt with the same deadline slot. */
  #idle: Slot | undefined;
  readonly #now: () => number;

  /** `now` is the clock deadlines are reckoned on (default `Date.now`, which fake timers also move). */
  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Arms a deadline `timeoutMs` from now for one attempt. */
  acquire(timeoutMs: number): DeadlineLease {
    const width = slotWidth(timeoutMs);
    const at = Math.ceil((this.#now() + timeoutMs) / width) * width;
    let slot = this.#slots.get(at);
    if (slot === undefined) {
      const idle = this.#idle;
      if (idle !== undefined && idle.at === at) {
        this.#idle = undefined;
        slot = idle;
      } else {
        slot = { at, timeoutMs, controller: new AbortController(), leases: new Set(), timer: undefined };
      }
      this.#slots.set(at, slot);
      const armed = slot;
      armed.timer = setTimeout(() => this.#expire(armed), Math.max(0, at - this.#now()));
    }
    const lease = new Lease(slot, this);
    slot.leases.add(lease);
    return lease;
  }

  /** How many slots are armed, i.e. how many timers run (for tests). */
  get armed(): number {
    return this.#slots.size;
  }

  /** Called by a lease when it ends: the slot's timer goes with its last lease (internal). */
  released(slot: Slot): void {
    if (slot.leases.size !== 0 || this.#slots.get(slot.at) !== slot) return;
    clearTimeout(slot.timer);
    slot.timer = undefined;
    this.#slots.delete(slot.at);
    this.#idle = slot;
  }

  #expire(slot: Slot): void {
    this.#slots.delete(slot.at);
    slot.timer = undefined;
    const reason = new AttemptTimeout(`timed out after ${slot.timeoutMs} ms`);
    slot.controller.abort(reason);
    for (const lease of slot.leases) (lease as Lease).expire(reason);
  }
}
