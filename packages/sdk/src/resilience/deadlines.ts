/*
 * Per-attempt deadlines without an AbortController per attempt.
 *
 * Every attempt gets its own deadline (its start + its timeout), armed when it starts and released when it
 * ends. Attempts whose deadlines fall in the same short slot share one controller and one timer: when the
 * slot's time comes, every attempt still holding it has run past its own timeout (by at most the slot's
 * width), so aborting them together is exactly what their separate timers would have done. The shared
 * controller is what makes this cheap: creating an `AbortSignal` costs microseconds in Node (it is made
 * transferable), as much as the rest of the SDK's work on a call, while a slot is a lookup and a count.
 *
 * When its last attempt ends, a slot goes idle and keeps its timer, so that the next attempt due in the same
 * slot (which is what sequential calls are) holds it again without touching a timer. Only the last idle slot
 * is kept; an older one's timer is cleared. Slots are at most 20 ms wide, so a signal is shared by a few
 * hundred attempts at most and the abort listeners that `fetch` implementations add to it stay few.
 *
 * The timers are unreferenced (as undici's own request timers are): a deadline never keeps a process alive by
 * itself; the request in flight does (its socket, or the in-process mock's own timers). Referencing the timer
 * while attempts hold it cost a native call on every start and end of a call, a tenth of the SDK's whole cost.
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
   * The attempts holding the slot, as a list through the leases. Each is unlinked when it ends: a shared
   * promise that every attempt raced against would keep every settled attempt (and its response) reachable
   * until the slot goes, which made the garbage collector's work grow several-fold.
   */
  head: Lease | undefined;
  /** How many attempts hold the slot. */
  held: number;
  /** Set until the slot's time comes or an idle slot is replaced. */
  timer: ReturnType<typeof setTimeout> | undefined;
}

class Lease implements DeadlineLease {
  /** Neighbours in the slot's list of holders. */
  prev: Lease | undefined;
  next: Lease | undefined;
  readonly #slot: Slot;
  readonly #owner: Deadlines;
  #held = true;
  #reject: ((reason: unknown) => void) | undefined;

  constructor(slot: Slot, owner: Deadlines) {
    this.#slot = slot;
    this.#owner = owner;
    const head = slot.head;
    this.next = head;
    if (head !== undefined) head.prev = this;
    slot.head = this;
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
    const slot = this.#slot;
    const { prev, next } = this;
    if (prev !== undefined) prev.next = next;
    else if (slot.head === this) slot.head = next;
    if (next !== undefined) next.prev = prev;
    this.prev = this.next = undefined;
    this.#owner.released(slot);
  }
}

/** The slot width for a timeout: about 1/64 of it, at least 1 ms and at most 20 ms (how late a timeout may fire). */
export function slotWidth(timeoutMs: number): number {
  return Math.max(1, Math.min(20, Math.floor(timeoutMs / 64)));
}

/** Hands out deadlines; one per client (see the file comment). */
export class Deadlines {
  /** Every slot whose timer is set, by deadline: the held ones and at most one idle one. */
  readonly #slots = new Map<number, Slot>();
  /** The slot of the last attempt, so that sequential calls skip the lookup. */
  #recent: Slot | undefined;
  /** The last slot to go idle, kept with its timer for the next attempt due in the same slot. */
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
    let slot = this.#recent;
    if (slot === undefined || slot.at !== at || slot.timer === undefined) {
      slot = this.#slots.get(at);
      if (slot === undefined) {
        const armed: Slot = {
          at,
          timeoutMs,
          controller: new AbortController(),
          head: undefined,
          held: 0,
          timer: undefined,
        };
        armed.timer = setTimeout(() => this.#expire(armed), Math.max(0, at - this.#now()));
        unref(armed.timer);
        this.#slots.set(at, armed);
        slot = armed;
      }
      this.#recent = slot;
    }
    if (slot === this.#idle) this.#idle = undefined;
    slot.held++;
    return new Lease(slot, this);
  }

  /** How many slots attempts hold (for tests). */
  get armed(): number {
    let held = 0;
    for (const slot of this.#slots.values()) if (slot.held > 0) held++;
    return held;
  }

  /** How many slots have a timer set, idle or not (for tests). */
  get timers(): number {
    return this.#slots.size;
  }

  /** Called by a lease when it ends: the slot goes idle with its last lease (internal). */
  released(slot: Slot): void {
    if (--slot.held !== 0 || slot.timer === undefined) return;
    const idle = this.#idle;
    if (idle !== undefined && idle !== slot) {
      clearTimeout(idle.timer);
      idle.timer = undefined;
      this.#slots.delete(idle.at);
    }
    this.#idle = slot;
  }

  #expire(slot: Slot): void {
    slot.timer = undefined;
    this.#slots.delete(slot.at);
    if (this.#idle === slot) {
      // Nobody holds it: nothing to abort.
      this.#idle = undefined;
      return;
    }
    const reason = new AttemptTimeout(`timed out after ${slot.timeoutMs} ms`);
    slot.controller.abort(reason);
    const holders: Lease[] = [];
    for (let lease = slot.head; lease !== undefined; lease = lease.next) holders.push(lease);
    for (const lease of holders) lease.expire(reason);
  }
}

/** Unreferences a timer where timers have `unref` (Node, Bun, Deno); elsewhere a timer keeps nothing alive anyway. */
function unref(timer: ReturnType<typeof setTimeout>): void {
  const handle = timer as { unref?: () => unknown } | number;
  if (typeof handle === 'object') handle.unref?.();
}
