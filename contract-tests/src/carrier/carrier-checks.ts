/**
 * The checks of a carrier conformance run. Each reads what a scenario recorded (the carrier API calls the
 * service side answered and the callback log) and names what the carrier did wrong, split into what breaks
 * the written specification (`stated`) and what breaks only a decision of the document (`decided`, each with
 * the `x-decision` it rests on). Anything that rests on a time the spec does not state is `decided`.
 */
import { createApiDescription, getAtPointer, openapiDocument, type ValidationIssue } from '@restoapi/openapi';
import type { CallbackLog, CarrierCall } from './service-side.js';

/** The `x-decision` markers the carrier checks rest on. */
export const CARRIER_DECISIONS = {
  /** Any 2xx acknowledges a callback, within 10 s. */
  acknowledged: '/components/responses/CallbackAcknowledged',
  notAcknowledged: '/components/responses/CallbackNotAcknowledged',
  /** How long a run waits for an order to be loaded and delivered. */
  deliveryLimit: '/webhooks/order_created/post/x-carrier-timing/delivery',
  /** How often a position is sent while delivering. */
  positions: '/webhooks/order_created/post/x-carrier-timing/positions',
  /** How soon updates stop after an acknowledged cancellation. */
  cancellation: '/webhooks/order_created/post/x-carrier-timing/cancellation',
  /** At-least-once callbacks (duplicates). */
  atLeastOnce: '/webhooks/order_created/post',
  /** Callbacks not in order. */
  outOfOrder: '/webhooks/order_status_changed/post',
  /** The delivery state machine (`delivered` is terminal, a repeated status is a no-op). */
  statuses: '/components/schemas/DeliveryStatus',
  update: '/components/schemas/DeliveryUpdate',
  updateErrors: '/paths/~1api-delivery~1orders~1{secure_id}~1delivery/put',
  retryAfter: '/components/headers/Retry-After',
  signature: '/components/parameters/WebhookSignature',
} as const;

/** A break of a decision of the document: a failure under `full`, a warning under `spec`. */
export interface Departure {
  message: string;
  /** JSON Pointer of the `x-decision` marker it breaks. */
  decision: string;
}

/** What one check found. */
export interface Finding {
  /** Breaks of what the spec states: failures under every profile. */
  stated: string[];
  /** Breaks of a decision of the document. */
  decided: Departure[];
  /** The carrier API calls that show the problem (printed as curl reproducers). */
  calls: CarrierCall[];
  /** Why the check could not be made, when it could not. */
  skip?: string;
}

/** An order the service side handed over to the carrier. */
export interface HandedOrder {
  orderId: number;
  secureId: string;
}

/** What a scenario recorded. */
export interface Observation extends HandedOrder {
  scenario: string;
  /**
   * The order handed over after the scenario's own when that one cannot be delivered (it was cancelled, or
   * every update of it refused): it must be delivered, so a carrier that stopped working is caught.
   */
  next?: HandedOrder;
  calls: CarrierCall[];
  callbacks: CallbackLog[];
  /** When the scenario's order was placed (ms since the epoch). */
  startedAt: number;
}

const finding = (): Finding => ({ stated: [], decided: [], calls: [] });
const accepted = (call: CarrierCall): boolean => call.status >= 200 && call.status < 300;
/** Answers the service side injected (429, 5xx): they say nothing about the update the carrier sent. */
const injected = (call: CarrierCall): boolean => call.status === 429 || call.status >= 500;
const statusOf = (call: CarrierCall): string | undefined => {
  const json = call.json as { status?: unknown } | undefined;
  return typeof json?.status === 'string' ? json.status : undefined;
};
const hasPosition = (call: CarrierCall): boolean => {
  const json = call.json as { lat?: unknown; lon?: unknown } | undefined;
  return typeof json?.lat === 'number' && typeof json.lon === 'number';
};
const updatesFor = (o: Observation, order: HandedOrder = o): CarrierCall[] =>
  o.calls.filter((c) => c.kind === 'update' && c.secureId === order.secureId);
/** The orders of a scenario: its own, and the next one when there is one. */
const ordersOf = (o: Observation): HandedOrder[] => (o.next ? [o, o.next] : [o]);
/** The order of a scenario that must reach `delivered`, and how the report names it. */
const deliveryOf = (o: Observation): [HandedOrder, string] =>
  o.next
    ? [
        o.next,
        `order ${o.next.orderId}, handed over after order ${o.orderId} was ${o.scenario === 'refused' ? 'refused' : 'cancelled'},`,
      ]
    : [o, `order ${o.orderId}`];
const describe = (call: CarrierCall): string =>
  `${call.method} ${new URL(call.url).pathname} ${call.body ?? ''}`.trim();
const ms = (from: number, to: number): string => `${Math.round(to - from)} ms`;
const sent = (updates: CarrierCall[]): string => updates.map(statusOf).filter(Boolean).join(' → ') || 'none';

/**
 * Every callback was answered with a 2xx within the deadline. Both are decisions (the spec shows no answer and
 * no time), so a late or refused acknowledgement is a warning under `spec`.
 */
export function checkAcknowledgements(observations: Observation[], ackTimeoutMs: number): Finding {
  const out = finding();
  let attempts = 0;
  for (const o of observations)
    for (const callback of o.callbacks)
      for (const attempt of callback.attempts) {
        attempts += 1;
        const what = `${o.scenario}: the ${callback.type}${callback.query.status ? ` (${callback.query.status})` : ''} callback of order ${callback.order_id}`;
        if (attempt.status === null)
          out.decided.push({
            message: `${what} got no answer within ${ackTimeoutMs} ms (${attempt.error ?? 'no answer'})`,
            decision: CARRIER_DECISIONS.acknowledged,
          });
        else if (attempt.status < 200 || attempt.status > 299)
          out.decided.push({
            message: `${what} was answered ${attempt.status}; only a 2xx acknowledges a callback`,
            decision: CARRIER_DECISIONS.acknowledged,
          });
      }
  if (attempts === 0) out.skip = 'no callback was attempted';
  return out;
}

/**
 * After `order_created` the carrier loads the order by its `secure_id` before it updates it (stated). An order
 * it never touched within the run's time limit is a decided finding: the limit is the document's, not the spec's.
 */
export function checkLoadsOrder(observations: Observation[], waitedMs: number): Finding {
  const out = finding();
  for (const o of observations)
    for (const order of ordersOf(o)) {
      const created = o.callbacks.some(
        (c) => c.order_id === order.orderId && c.type === 'order_created' && c.attempts.length > 0,
      );
      if (!created) continue;
      const loads = o.calls.filter((c) => c.kind === 'load' && c.secureId === order.secureId);
      const first = updatesFor(o, order)[0];
      if (loads.length === 0 && !first)
        out.decided.push({
          message: `${o.scenario}: order ${order.orderId} was handed over with order_created, and the carrier did not load it (GET /api-delivery/orders/${order.secureId}) within ${waitedMs} ms`,
          decision: CARRIER_DECISIONS.deliveryLimit,
        });
      else if (first && (loads.length === 0 || loads[0]!.at > first.at)) {
        out.stated.push(`${o.scenario}: the carrier updated order ${order.orderId} before it loaded it`);
        out.calls.push(first);
      }
    }
  return out;
}

const api = createApiDescription();
/** Keywords whose failure breaks only a decision of `DeliveryUpdate` (at least one field, lat and lon together). */
const DECIDED_KEYWORDS = new Set(['minProperties', 'dependentRequired', 'dependencies']);

function issueText(issue: ValidationIssue, json: unknown): string {
  if (issue.keyword === 'additionalProperties')
    return `the field ${String(issue.params?.additionalProperty ?? issue.pointer)} is not one the spec lists for the delivery block`;
  if (issue.keyword === 'enum' && issue.pointer === '/status')
    return `the status ${JSON.stringify((json as { status?: unknown }).status)} is not one the spec lists (${(issue.params?.allowedValues as string[] | undefined)?.join(', ') ?? ''})`;
  return issue.message;
}

/** Every delivery update is JSON with the stated fields and status values (decided rules apart). */
export function checkDeliveryUpdates(observations: Observation[]): Finding {
  const out = finding();
  let updates = 0;
  for (const o of observations)
    for (const call of o.calls.filter((c) => c.kind === 'update')) {
      updates += 1;
      const where = `${o.scenario}: ${describe(call)}`;
      const type = (call.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/json') {
        out.stated.push(`${where}: sent with Content-Type ${type || '(none)'}, not application/json`);
        out.calls.push(call);
        continue;
      }
      if (call.json === undefined || typeof call.json !== 'object' || call.json === null) {
        out.stated.push(`${where}: the body is not a JSON object`);
        out.calls.push(call);
        continue;
      }
      const result = api.validateSchema('DeliveryUpdate', call.json);
      if (result.valid) continue;
      for (const issue of result.issues) {
        const message = `${where}: ${issueText(issue, call.json)}`;
        if (DECIDED_KEYWORDS.has(issue.keyword)) out.decided.push({ message, decision: CARRIER_DECISIONS.update });
        else out.stated.push(message);
      }
      out.calls.push(call);
    }
  if (updates === 0) out.skip = 'the carrier sent no delivery update';
  return out;
}

/**
 * Every scenario ends with an order reported `delivered` (its own, or the next one handed over after it), and
 * nothing but `delivered` again is sent for it afterwards. Only an accepted `delivered` counts: a refused update
 * proves nothing. Both findings rest on decisions: how long the run waits (the spec states no time), and
 * `delivered` being terminal (the spec shows no transitions).
 */
export function checkDeliveredLast(observations: Observation[], waitedMs: number): Finding {
  const out = finding();
  for (const o of observations) {
    const [order, named] = deliveryOf(o);
    const updates = updatesFor(o, order);
    const delivered = updates.findIndex((c) => accepted(c) && statusOf(c) === 'delivered');
    if (delivered < 0) {
      const refused = updates.filter((c) => statusOf(c) === 'delivered' && !accepted(c));
      out.decided.push({
        message: `${o.scenario}: ${named} was not reported delivered within ${waitedMs} ms (statuses sent: ${sent(updates)}${refused.length ? `; delivered was refused with ${refused.map((c) => c.status).join(', ')}` : ''})`,
        decision: CARRIER_DECISIONS.deliveryLimit,
      });
      continue;
    }
    // Sending `delivered` again is a resend the document makes harmless (a repeated status is a no-op).
    const after = updates.slice(delivered + 1).filter((c) => statusOf(c) !== 'delivered');
    if (after.length) {
      out.decided.push({
        message: `${o.scenario}: the carrier kept updating ${named} after it was delivered (${after.length} update(s): ${after
          .slice(0, 3)
          .map((c) => c.body ?? '')
          .join(', ')})`,
        decision: CARRIER_DECISIONS.statuses,
      });
      out.calls.push(...after.slice(0, 3));
    }
  }
  return out;
}

interface Machine {
  initial: string;
  transitions: { from: string; to: string }[];
}
const MACHINE = getAtPointer(openapiDocument, '/components/schemas/DeliveryStatus/x-state-machine') as Machine;
const STATUSES = new Set(MACHINE.transitions.flatMap((t) => [t.from, t.to]));

/**
 * Every status the carrier sends for the orders it delivers is a move the document's delivery state machine
 * allows. Sending the current status again is no move (the document makes it a no-op), so resending a status
 * with each position passes, and so does going through `problem` and back.
 */
export function checkTransitions(observations: Observation[]): Finding {
  const out = finding();
  for (const o of observations)
    for (const order of ordersOf(o)) {
      let current = MACHINE.initial;
      for (const call of updatesFor(o, order)) {
        const next = statusOf(call);
        // Faults the service side injected (429, 503) say nothing about the move, and a value the spec does not
        // list is carrier.delivery-updates' finding.
        if (!next || !STATUSES.has(next) || injected(call) || next === current) continue;
        if (!MACHINE.transitions.some((t) => t.from === current && t.to === next)) {
          out.decided.push({
            message: `${o.scenario}: the carrier moved order ${order.orderId} from ${current} to ${next}, a move the delivery state machine does not allow`,
            decision: CARRIER_DECISIONS.statuses,
          });
          out.calls.push(call);
        }
        if (accepted(call)) current = next;
      }
    }
  return out;
}

/**
 * While an order is `delivering`, the courier's position comes at least once every `intervalMs` (the
 * document's decision: the spec says "when it changes", with no time). Only accepted updates count, so a
 * refused `delivered` neither ends the delivering stretch nor counts as a position. A carrier that stopped
 * updating altogether is carrier.delivered-last's finding: a stretch ends with its last accepted update.
 */
export function checkPositions(observations: Observation[], intervalMs: number): Finding {
  const out = finding();
  let judged = 0;
  for (const o of observations) {
    const [order, named] = deliveryOf(o);
    let current = MACHINE.initial;
    let last: number | undefined;
    let longest: { from: number; to: number } | undefined;
    let stretches = 0;
    const gap = (to: number): void => {
      if (last !== undefined && (!longest || to - last > longest.to - longest.from)) longest = { from: last, to };
      last = to;
    };
    const updates = updatesFor(o, order).filter(accepted);
    for (const call of updates) {
      const next = statusOf(call) ?? current;
      if (next === 'delivering' && current !== 'delivering') {
        stretches += 1;
        last = call.at;
      }
      // A position, or the end of the stretch (delivered, problem): the time since the last one is a gap.
      if ((current === 'delivering' || next === 'delivering') && (hasPosition(call) || next !== 'delivering'))
        gap(call.at);
      current = next;
    }
    // Still delivering at the end: the stretch ends with the carrier's last accepted update.
    if (current === 'delivering' && updates.length) gap(updates.at(-1)!.at);
    if (stretches === 0) continue;
    judged += 1;
    if (longest && longest.to - longest.from > intervalMs)
      out.decided.push({
        message: `${o.scenario}: ${named} was delivering, and the carrier sent no courier position (lat, lon) for ${ms(longest.from, longest.to)} (at most ${intervalMs} ms allowed)`,
        decision: CARRIER_DECISIONS.positions,
      });
  }
  if (judged === 0) out.skip = 'the carrier reported no order delivering';
  return out;
}

/**
 * How many times the service accepted each status for an order: a refused update (or one the service side
 * failed on purpose) had no effect and proves nothing; updates that carry a position are left out (a carrier may
 * resend its status with each one), and so are `problem` and the status that follows it (going through `problem`
 * and back is a move of its own, not a repeat).
 */
function statusWork(o: Observation, order: HandedOrder): Map<string, CarrierCall[]> {
  const counts = new Map<string, CarrierCall[]>();
  let previous: string | undefined;
  for (const call of updatesFor(o, order)) {
    const status = statusOf(call);
    if (!status || !accepted(call)) continue;
    const afterProblem = previous === 'problem' && status !== 'problem';
    previous = status;
    if (hasPosition(call) || status === 'problem' || afterProblem) continue;
    counts.set(status, [...(counts.get(status) ?? []), call]);
  }
  return counts;
}

/**
 * A callback delivered twice causes no second effect: the carrier does the work of a callback once. The work is
 * measured against the carrier's own baseline, the `flow` scenario with every callback once: a status sent at
 * least twice as often when every callback comes twice was sent again for the duplicate. Repeating a status
 * (the document makes it a no-op) is the carrier's style and counts the same in both scenarios.
 */
export function checkDuplicates(o: Observation, baseline: Observation): Finding {
  const out = finding();
  const duplicated = o.callbacks.filter((c) => c.duplicate_of !== null && c.state === 'delivered');
  if (duplicated.length === 0) {
    out.skip = 'the service side delivered no duplicated callback';
    return out;
  }
  const once = statusWork(baseline, baseline);
  if (once.size === 0) {
    out.skip = `the carrier sent no status for order ${baseline.orderId} of ${baseline.scenario}, the baseline with every callback once`;
    return out;
  }
  for (const [status, calls] of statusWork(o, o)) {
    const single = once.get(status)?.length ?? 0;
    if (single > 0 && calls.length >= 2 * single) {
      out.decided.push({
        message: `${o.scenario}: every callback came twice (same webhook-id), and the service accepted ${status} ${calls.length} times for order ${o.orderId}, where it accepted it ${single} time(s) for order ${baseline.orderId} with every callback once (${baseline.scenario}): the carrier did the work of a callback twice`,
        decision: CARRIER_DECISIONS.atLeastOnce,
      });
      out.calls.push(calls[single]!);
    }
  }
  return out;
}

/** Callbacks that arrive out of order end in the right state: an order cancelled first is never delivered. */
export function checkReordered(o: Observation): Finding {
  const out = finding();
  const created = o.callbacks.find(
    (c) => c.order_id === o.orderId && c.type === 'order_created' && c.attempts.length > 0,
  );
  const cancelled = o.callbacks.find(
    (c) => c.order_id === o.orderId && c.query.status === 'cancelled' && c.attempts.length > 0,
  );
  if (!created || !cancelled || Date.parse(cancelled.attempts[0]!.at) > Date.parse(created.attempts[0]!.at)) {
    out.skip = 'the service side could not deliver order_status_changed (cancelled) before order_created';
    return out;
  }
  const updates = updatesFor(o);
  if (updates.length) {
    out.decided.push({
      message: `${o.scenario}: order ${o.orderId} was cancelled before the carrier heard of it (the cancellation arrived first, order_created after it), yet the carrier sent ${updates.length} delivery update(s): it trusted the order of the callbacks instead of the order it loads`,
      decision: CARRIER_DECISIONS.outOfOrder,
    });
    out.calls.push(...updates.slice(0, 3));
  }
  return out;
}

/** After `order_status_changed` to `cancelled` is acknowledged, the carrier stops updating the order within the grace. */
export function checkStopsAfterCancel(o: Observation, graceMs: number): Finding {
  const out = finding();
  const cancelled = o.callbacks.find((c) => c.order_id === o.orderId && c.query.status === 'cancelled');
  if (!cancelled) {
    out.skip = `order ${o.orderId} was over before the service side could cancel it (the carrier delivered it at once)`;
    return out;
  }
  const acked = cancelled.attempts.find((a) => a.status !== null && a.status >= 200 && a.status < 300);
  if (!acked) {
    out.skip = 'the carrier did not acknowledge the cancellation, so when it learnt of it is unknown';
    return out;
  }
  const told = Date.parse(acked.at) + acked.duration_ms;
  const late = updatesFor(o).filter((c) => c.at > told + graceMs);
  if (late.length) {
    out.decided.push({
      message: `${o.scenario}: order ${o.orderId} was cancelled and the carrier acknowledged it, yet it sent ${late.length} update(s) later than ${graceMs} ms after (the first ${ms(told, late[0]!.at)} after)`,
      decision: CARRIER_DECISIONS.cancellation,
    });
    out.calls.push(...late.slice(0, 3));
  }
  return out;
}

/** After a 429 or 503 with `Retry-After` the carrier retries, and not sooner than asked. */
export function checkRetryAfter(o: Observation, toleranceMs = 100): Finding {
  const out = finding();
  const refused = o.calls.filter((c) => (c.status === 429 || c.status === 503) && c.retryAfter !== undefined);
  if (refused.length === 0) {
    out.skip = 'the carrier made no call the service side could answer 429 or 503';
    return out;
  }
  for (const call of refused) {
    const path = new URL(call.url).pathname;
    const next = o.calls.find(
      (c) => c.at >= call.answeredAt && c !== call && c.method === call.method && new URL(c.url).pathname === path,
    );
    const asked = call.retryAfter! * 1000;
    const decision = CARRIER_DECISIONS.retryAfter;
    if (!next)
      out.decided.push({
        message: `${o.scenario}: ${call.method} ${path} was answered ${call.status} with Retry-After: ${call.retryAfter}, and the carrier never tried again`,
        decision,
      });
    else if (next.at - call.answeredAt < asked - toleranceMs) {
      out.decided.push({
        message: `${o.scenario}: ${call.method} ${path} was answered ${call.status} with Retry-After: ${call.retryAfter}, and the carrier tried again after ${ms(call.answeredAt, next.at)}`,
        decision,
      });
      out.calls.push(next);
    }
  }
  return out;
}

/** After a 4xx the carrier does not send the same refused request again and again. */
export function checkGivesUp(o: Observation, maxRepeats: number): Finding {
  const out = finding();
  const refused = o.calls.filter((c) => c.status >= 400 && c.status < 500 && c.status !== 429);
  if (refused.length === 0) {
    out.skip = 'the carrier made no call the service side could refuse';
    return out;
  }
  const same = new Map<string, CarrierCall[]>();
  for (const call of refused) {
    const key = `${call.method} ${call.url} ${call.body ?? ''}`;
    same.set(key, [...(same.get(key) ?? []), call]);
  }
  for (const [key, calls] of same)
    if (calls.length > maxRepeats) {
      out.decided.push({
        message: `${o.scenario}: ${key} was refused with ${calls[0]!.status} and sent ${calls.length} times (at most ${maxRepeats} allowed)`,
        decision: CARRIER_DECISIONS.updateErrors,
      });
      out.calls.push(calls.at(-1)!);
    }
  return out;
}
