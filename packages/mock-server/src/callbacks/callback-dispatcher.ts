import { backoffDelayMs } from '@restoapi/openapi';
import { idleDelivery } from '../model/delivery.js';
import type { MockEngine } from '../engine/engine.js';
import { isTerminal } from '../model/order-status.js';
import type { OrderEvent } from '../engine/runtime.js';
import type {
  CallbackAttempt,
  CallbackRecord,
  CarrierRecord,
  MockStateTables,
  OrderRecord,
} from '../state/mock-state.js';
import { retryPolicy, seededRandom, type CallbackType } from './retry-policy.js';
import { signWebhook } from './webhook-signature.js';
import { OutboundRefused, urlProblem } from '../net/outbound-policy.js';

/** Longest answer body kept in an attempt's log. */
export const RESPONSE_BODY_LIMIT = 2048;
/** How long (virtual ms) a `reorder` chaos carrier's callback waits for a successor before it goes out alone. */
export const REORDER_HOLD_MS = 1000;

/** Options of {@link attachCallbackDispatcher}. */
export interface CallbackDispatcherOptions {
  /** The `fetch` callbacks are sent with; the global one (read at each call) by default. */
  fetch?: typeof fetch;
  /** Headers sent with every callback (a named session sends `X-Mock-Session`). */
  headers?: Record<string, string>;
}

/** Sends the carrier callbacks of one mock instance. */
export interface CallbackDispatcher {
  /** Resolves once no callback attempt is in flight (attempts started meanwhile are awaited too). */
  settled(): Promise<void>;
  /**
   * Moves the virtual clock `ms` forward, stopping at every callback attempt that falls due so each
   * runs at its own time and its retry is scheduled from there; one call can drive a whole retry series.
   */
  advance(ms: number): Promise<void>;
  /** Forgets the schedule and re-arms the pending callbacks of the current state (after a state import). */
  resume(): void;
  /** Ends the pending callbacks of a carrier that is being removed (they are marked `failed`). */
  dropCarrier(carrierId: number): void;
  /** Stops listening to order events. */
  detach(): void;
}

type Batch = CallbackRecord[];

/** The carrier a delivery order of this restaurant is handed to: the first registered one serving it. */
export function carrierFor(state: MockStateTables, restaurantId: number): CarrierRecord | undefined {
  return state.carriers
    .all()
    .sort((a, b) => a.id - b.id)
    .find((carrier) => carrier.restaurant_ids === null || carrier.restaurant_ids.includes(restaurantId));
}

/**
 * Listens to the instance's order events and sends the carrier callbacks of the document's `webhooks`:
 * `order_created` when a delivery order goes to a registered carrier (which gives the order its
 * `secure_id`), `order_status_changed` on every later status change. Attempts run on the virtual clock
 * with the document's `x-retry-policy`, and each is logged in `state.callbacks[].attempts`.
 */
export function attachCallbackDispatcher(
  engine: MockEngine,
  options: CallbackDispatcherOptions = {},
): CallbackDispatcher {
  const runtime = engine.runtime;
  const { clock } = runtime;
  // The operator's rule (`--callbacks`) is kept by the instance's outbound fetch; an injected one is the caller's.
  const send: typeof fetch = options.fetch ?? ((input, init) => runtime.outbound.callbacks.fetch(input, init));
  /** Clock task of each callback waiting for an attempt, with its due time (for {@link CallbackDispatcher.advance}). */
  const timers = new Map<number, { task: number; at: number }>();
  /** A reorder-chaos carrier's callbacks held back until the next event for it: carrier id → batch and release task. */
  const held = new Map<number, { batch: Batch; task: number; at: number }>();
  const inflight = new Set<Promise<unknown>>();

  const track = (promise: Promise<unknown>): void => {
    inflight.add(promise);
    void promise.finally(() => inflight.delete(promise));
  };
  // A due task only runs when the clock is asked to (a frozen clock has no timer), so nudge it at once.
  const kick = (): void => track(clock.runDue());

  const schedule = (callback: CallbackRecord, at: number): void => {
    const tables = runtime.state;
    const previous = timers.get(callback.id);
    if (previous) clock.cancel(previous.task);
    callback.next_attempt_at = new Date(at).toISOString();
    const task = clock.schedule(at, () => {
      timers.delete(callback.id);
      // A reset or state import since scheduling: the callback belongs to a state that is gone.
      if (runtime.state !== tables) return;
      startAttempt(tables, callback.id);
    });
    timers.set(callback.id, { task, at });
    if (at <= clock.nowMs()) kick();
  };

  const startAttempt = (tables: MockStateTables, id: number): void => {
    const callback = tables.callbacks.get(id);
    if (!callback || callback.state !== 'pending') return;
    const carrier = tables.carriers.get(callback.carrier_id);
    if (!carrier) {
      callback.state = 'failed';
      callback.next_attempt_at = null;
      return;
    }
    callback.next_attempt_at = null;
    // Not awaited: a slow carrier must not hold up the clock, and through it every request of the mock.
    track(
      attempt(callback, carrier).then((result) => {
        if (runtime.state !== tables) return;
        finish(callback, carrier, result);
        runtime.changed();
      }),
    );
  };

  const attempt = async (callback: CallbackRecord, carrier: CarrierRecord): Promise<CallbackAttempt> => {
    const at = runtime.nowIso();
    const started = performance.now();
    const duration = () => Math.max(0, Math.round((performance.now() - started) * 10) / 10);
    const timeoutMs = runtime.config.callbackTimeoutMs;
    try {
      const url = new URL(carrier.callback_url);
      // Checked at every attempt too: the rule may be stricter than when the carrier was registered (a state import).
      const problem = urlProblem(url, runtime.outbound.callbacks.rule, '--callbacks');
      if (problem) throw new OutboundRefused(problem);
      for (const [name, value] of Object.entries(callback.query)) url.searchParams.set(name, value);
      const headers: Record<string, string> = { ...options.headers };
      if (carrier.secret) {
        const timestamp = String(Math.floor(clock.nowMs() / 1000));
        const id = callback.webhook_id ?? `msg_${callback.id}`;
        headers['webhook-id'] = id;
        headers['webhook-timestamp'] = timestamp;
        // The document signs the query string as sent, standing in for the empty body.
        headers['webhook-signature'] = await signWebhook(carrier.secret, id, timestamp, url.search.slice(1));
      }
      const signal = AbortSignal.timeout(timeoutMs);
      const response = await send(url, { method: 'POST', headers, signal });
      const body = await readStart(response, RESPONSE_BODY_LIMIT);
      return {
        at,
        outcome: response.status >= 200 && response.status < 300 ? 'delivered' : 'failed',
        status: response.status,
        response_body: body,
        error: null,
        duration_ms: duration(),
      };
    } catch (error) {
      return {
        at,
        outcome: 'failed',
        status: null,
        response_body: null,
        error: describeError(error, timeoutMs),
        duration_ms: duration(),
      };
    }
  };

  const finish = (callback: CallbackRecord, carrier: CarrierRecord, result: CallbackAttempt): void => {
    callback.attempts.push(result);
    const policy = retryPolicy(callback.type);
    if (result.outcome === 'delivered') {
      callback.state = 'delivered';
      callback.next_attempt_at = null;
    } else if (callback.attempts.length >= policy.maxAttempts) {
      callback.state = 'failed';
      callback.next_attempt_at = null;
    } else {
      const random = seededRandom(seedOf(carrier), callback.id, callback.attempts.length);
      schedule(callback, clock.nowMs() + backoffDelayMs(policy, callback.attempts.length, random));
    }
  };

  const release = (carrierId: number): void => {
    const entry = held.get(carrierId);
    if (!entry) return;
    held.delete(carrierId);
    clock.cancel(entry.task);
    for (const callback of entry.batch) schedule(callback, clock.nowMs());
  };

  const enqueue = (
    carrier: CarrierRecord,
    order: OrderRecord,
    type: CallbackType,
    query: Record<string, string>,
  ): void => {
    const { state } = runtime;
    const now = clock.nowMs();
    const chaos = carrier.chaos ?? {};
    const base: Omit<CallbackRecord, 'id'> = {
      carrier_id: carrier.id,
      order_id: order.id,
      type,
      query,
      webhook_id: `msg_${runtime.secureToken()}`,
      duplicate_of: null,
      created_at: runtime.nowIso(),
      state: 'pending',
      next_attempt_at: null,
      attempts: [],
    };
    const original = state.callbacks.insert(base);
    const batch: Batch = [original];
    if (chaos.duplicate && seededRandom(seedOf(carrier), original.id, 0xd0) < chaos.duplicate) {
      // Same webhook-id: it is the same event delivered twice, as at-least-once delivery allows.
      batch.push(state.callbacks.insert({ ...base, query: { ...query }, attempts: [], duplicate_of: original.id }));
    }
    const at = now + (chaos.delayMs ?? 0);
    if (chaos.reorder) {
      const waiting = held.get(carrier.id);
      if (!waiting) {
        const releaseAt = at + REORDER_HOLD_MS;
        const tables = runtime.state;
        const task = clock.schedule(releaseAt, () => {
          if (runtime.state === tables && held.get(carrier.id)?.task === task) release(carrier.id);
        });
        held.set(carrier.id, { batch, task, at: releaseAt });
        return;
      }
      // The newer event goes out first, the one held back a virtual millisecond later: the two are swapped.
      held.delete(carrier.id);
      clock.cancel(waiting.task);
      for (const callback of batch) schedule(callback, at);
      for (const callback of waiting.batch) schedule(callback, at + 1);
      return;
    }
    for (const callback of batch) schedule(callback, at);
  };

  const handOver = (order: OrderRecord): void => {
    // A takeaway needs no courier, and an order imported as already complete or cancelled no delivery.
    if (order.takeaway || order.secure_id || isTerminal(order.status)) return;
    const carrier = carrierFor(runtime.state, order.restaurant_id);
    if (!carrier) return;
    order.secure_id = runtime.secureToken();
    order.carrier_id = carrier.id;
    order.delivery = idleDelivery();
    enqueue(carrier, order, 'order_created', {
      type: 'order_created',
      order_id: String(order.id),
      order_secure_id: order.secure_id,
    });
  };

  const onEvent = (event: OrderEvent): void => {
    try {
      if (event.type === 'order_created') {
        handOver(event.order);
        return;
      }
      const { order } = event;
      if (order.carrier_id === null || !order.secure_id) return;
      const carrier = runtime.state.carriers.get(order.carrier_id);
      if (!carrier) return;
      enqueue(carrier, order, 'order_status_changed', {
        type: 'order_status_changed',
        order_id: String(order.id),
        order_secure_id: order.secure_id,
        status: order.status,
      });
    } catch (error) {
      // A callback problem must never fail the request that changed the order.
      console.error('[restoapi-mock] could not queue a carrier callback', error);
    }
  };

  const unsubscribe = runtime.events.on(onEvent);

  const dispatcher: CallbackDispatcher = {
    async settled() {
      while (inflight.size > 0) await Promise.allSettled([...inflight]);
    },

    async advance(ms) {
      const target = clock.nowMs() + ms;
      await dispatcher.settled();
      // Bounded so that a carrier answering in zero virtual time cannot spin this loop forever.
      for (let steps = 0; steps < 10_000; steps++) {
        const due = [...timers.values(), ...held.values()].map((entry) => entry.at).filter((at) => at <= target);
        if (due.length === 0) break;
        await clock.advance(Math.max(0, Math.min(...due) - clock.nowMs()));
        await dispatcher.settled();
      }
      await clock.advance(Math.max(0, target - clock.nowMs()));
      await dispatcher.settled();
    },

    resume() {
      for (const { task } of timers.values()) clock.cancel(task);
      for (const { task } of held.values()) clock.cancel(task);
      timers.clear();
      held.clear();
      const now = clock.nowMs();
      for (const callback of runtime.state.callbacks.all()) {
        if (callback.state !== 'pending') continue;
        const at = callback.next_attempt_at ? Date.parse(callback.next_attempt_at) : now;
        schedule(callback, Number.isFinite(at) ? Math.max(at, now) : now);
      }
    },

    dropCarrier(carrierId) {
      const entry = held.get(carrierId);
      if (entry) {
        clock.cancel(entry.task);
        held.delete(carrierId);
      }
      for (const callback of runtime.state.callbacks.filter(
        (c) => c.carrier_id === carrierId && c.state === 'pending',
      )) {
        const timer = timers.get(callback.id);
        if (timer) clock.cancel(timer.task);
        timers.delete(callback.id);
        callback.state = 'failed';
        callback.next_attempt_at = null;
      }
    },

    detach() {
      unsubscribe();
    },
  };

  // A state import (reset, PUT /__mock/state, mock.loadState) swaps the tables; pending callbacks of the
  // new state must be picked up again, whoever did the import.
  const loadState = engine.loadState.bind(engine);
  engine.loadState = (json) => {
    loadState(json);
    dispatcher.resume();
  };
  dispatcher.resume();
  return dispatcher;
}

function seedOf(carrier: CarrierRecord): number {
  return carrier.chaos?.seed ?? carrier.id;
}

async function readStart(response: Response, limit: number): Promise<string> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  try {
    while (size < limit) {
      const { done, value } = await reader.read();
      if (done) break;
      chunks.push(value);
      size += value.byteLength;
    }
  } finally {
    // Only the start is logged; the rest is not worth waiting for.
    void reader.cancel().catch(() => undefined);
  }
  const bytes = new Uint8Array(Math.min(size, limit));
  let offset = 0;
  for (const chunk of chunks) {
    const part = chunk.subarray(0, bytes.length - offset);
    bytes.set(part, offset);
    offset += part.byteLength;
    if (offset >= bytes.length) break;
  }
  // `stream: true` keeps a multi-byte character cut at the limit out of the text instead of garbling it.
  return new TextDecoder().decode(bytes, { stream: true });
}

function describeError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error) {
    if (error.name === 'TimeoutError' || error.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
    const cause = (error as { cause?: unknown }).cause;
    if (cause instanceof Error && cause.message) return `${error.message}: ${cause.message}`;
    return error.message;
  }
  return String(error);
}
