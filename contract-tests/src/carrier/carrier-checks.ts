/**
 * The checks of a carrier conformance run. Each reads what a scenario recorded (the carrier API calls the
 * service side answered and the callback log) and names what the carrier did wrong, split into what breaks
 * the written specification (`stated`) and what breaks only a decision of the document (`decided`).
 */
import { createApiDescription, getAtPointer, openapiDocument, type ValidationIssue } from '@restoapi/openapi';
import type { CallbackLog, CarrierCall } from './service-side.js';

/** What one check found. */
export interface Finding {
  /** Breaks of what the spec states: failures under every profile. */
  stated: string[];
  /** Breaks of a decision of the document: failures under `full`, warnings under `spec`. */
  decided: string[];
  /** JSON Pointer of the `x-decision` marker the `decided` findings break. */
  decision?: string;
  /** The carrier API calls that show the problem (printed as curl reproducers). */
  calls: CarrierCall[];
  /** Why the check could not be made, when it could not. */
  skip?: string;
}

/** What a scenario recorded. */
export interface Observation {
  scenario: string;
  orderId: number;
  secureId: string;
  calls: CarrierCall[];
  callbacks: CallbackLog[];
  /** When the scenario's order was placed (ms since the epoch). */
  startedAt: number;
}

const finding = (decision?: string): Finding => ({
  stated: [],
  decided: [],
  calls: [],
  ...(decision ? { decision } : {}),
});
const accepted = (call: CarrierCall): boolean => call.status >= 200 && call.status < 300;
const statusOf = (call: CarrierCall): string | undefined => {
  const json = call.json as { status?: unknown } | undefined;
  return typeof json?.status === 'string' ? json.status : undefined;
};
const updatesOf = (o: Observation): CarrierCall[] =>
  o.calls.filter((c) => c.kind === 'update' && c.secureId === o.secureId);
const describe = (call: CarrierCall): string =>
  `${call.method} ${new URL(call.url).pathname} ${call.body ?? ''}`.trim();
const ms = (from: number, to: number): string => `${Math.round(to - from)} ms`;

/** Every callback was answered within the time allowed (stated), and with a 2xx (decided). */
export function checkAcknowledgements(observations: Observation[], ackTimeoutMs: number): Finding {
  const out = finding('/components/responses/CallbackAcknowledged');
  let attempts = 0;
  for (const o of observations)
    for (const callback of o.callbacks)
      for (const attempt of callback.attempts) {
        attempts += 1;
        const what = `${o.scenario}: the ${callback.type}${callback.query.status ? ` (${callback.query.status})` : ''} callback of order ${callback.order_id}`;
        if (attempt.status === null)
          out.stated.push(`${what} got no answer within ${ackTimeoutMs} ms (${attempt.error ?? 'no answer'})`);
        else if (attempt.status < 200 || attempt.status > 299)
          out.decided.push(`${what} was answered ${attempt.status}; only a 2xx acknowledges a callback`);
      }
  if (attempts === 0) out.skip = 'no callback was attempted';
  return out;
}

/** After `order_created` the carrier loads the order by its `secure_id`. */
export function checkLoadsOrder(o: Observation): Finding {
  const out = finding();
  const loads = o.calls.filter((c) => c.kind === 'load' && c.secureId === o.secureId);
  if (loads.length === 0)
    out.stated.push(
      `${o.scenario}: order ${o.orderId} was handed over with order_created, but the carrier never loaded it (GET /api-delivery/orders/${o.secureId})`,
    );
  const first = updatesOf(o)[0];
  if (first && (loads.length === 0 || loads[0]!.at > first.at)) {
    out.stated.push(`${o.scenario}: the carrier updated order ${o.orderId} before it loaded it`);
    out.calls.push(first);
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
  const out = finding('/components/schemas/DeliveryUpdate');
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
      for (const issue of result.issues)
        (DECIDED_KEYWORDS.has(issue.keyword) ? out.decided : out.stated).push(
          `${where}: ${issueText(issue, call.json)}`,
        );
      out.calls.push(call);
    }
  if (updates === 0) out.skip = 'the carrier sent no delivery update';
  return out;
}

/** In the plain flow the carrier reports `delivered`, and nothing after it. */
export function checkDeliveredLast(o: Observation, waitedMs: number): Finding {
  const out = finding();
  const updates = updatesOf(o);
  const delivered = updates.findIndex((c) => accepted(c) && statusOf(c) === 'delivered');
  if (delivered < 0) {
    out.stated.push(
      `${o.scenario}: the carrier never reported order ${o.orderId} delivered within ${waitedMs} ms (statuses sent: ${updates.map(statusOf).filter(Boolean).join(' → ') || 'none'})`,
    );
    return out;
  }
  // Sending `delivered` again is a resend the document makes harmless (a repeated status is a no-op).
  const after = updates.slice(delivered + 1).filter((c) => statusOf(c) !== 'delivered');
  if (after.length) {
    out.stated.push(`${o.scenario}: the carrier kept updating order ${o.orderId} after it reported it delivered`);
    out.calls.push(...after.slice(0, 3));
  }
  return out;
}

interface Machine {
  initial: string;
  transitions: { from: string; to: string }[];
}
const MACHINE = getAtPointer(openapiDocument, '/components/schemas/DeliveryStatus/x-state-machine') as Machine;
const STATUSES = new Set(MACHINE.transitions.flatMap((t) => [t.from, t.to]));

/** Every status the carrier sends is a move the document's delivery state machine allows. */
export function checkTransitions(observations: Observation[]): Finding {
  const out = finding('/components/schemas/DeliveryStatus');
  for (const o of observations) {
    let current = MACHINE.initial;
    for (const call of updatesOf(o)) {
      const next = statusOf(call);
      // Faults the service side injected (429, 503) say nothing about the move, and a value the spec does not
      // list is carrier.delivery-updates' finding.
      if (!next || !STATUSES.has(next) || call.status === 429 || call.status >= 500 || next === current) continue;
      if (!MACHINE.transitions.some((t) => t.from === current && t.to === next)) {
        out.decided.push(
          `${o.scenario}: the carrier moved order ${o.orderId} from ${current} to ${next}, a move the delivery state machine does not allow`,
        );
        out.calls.push(call);
      }
      if (accepted(call)) current = next;
    }
  }
  return out;
}

/** The courier's position is sent while it delivers. */
export function checkPositions(o: Observation): Finding {
  const out = finding();
  const updates = updatesOf(o);
  const start = updates.findIndex((c) => statusOf(c) === 'delivering');
  const end = updates.findIndex((c) => statusOf(c) === 'delivered');
  const moving = updates.slice(start < 0 ? 0 : start, end < 0 ? undefined : end + 1);
  const positions = moving.filter((c) => {
    const json = c.json as { lat?: unknown; lon?: unknown } | undefined;
    return typeof json?.lat === 'number' && typeof json.lon === 'number';
  });
  if (positions.length === 0)
    out.stated.push(
      `${o.scenario}: the carrier sent no courier position (lat, lon) for order ${o.orderId} while it was delivering`,
    );
  return out;
}

/** A callback delivered twice causes no second effect: no second delivery, no status accepted twice. */
export function checkDuplicates(o: Observation): Finding {
  const out = finding('/webhooks/order_created/post');
  const duplicated = o.callbacks.filter((c) => c.duplicate_of !== null && c.state === 'delivered');
  if (duplicated.length === 0) {
    out.skip = 'the service side delivered no duplicated callback';
    return out;
  }
  const counts = new Map<string, CarrierCall[]>();
  for (const call of updatesOf(o).filter(accepted)) {
    const status = statusOf(call);
    if (status && status !== 'problem') counts.set(status, [...(counts.get(status) ?? []), call]);
  }
  for (const [status, calls] of counts)
    if (calls.length > 1) {
      out.decided.push(
        `${o.scenario}: every callback came twice (same webhook-id), and the carrier set ${status} ${calls.length} times on order ${o.orderId}: it acted on a duplicate`,
      );
      out.calls.push(calls[1]!);
    }
  return out;
}

/** Callbacks that arrive out of order end in the right state: an order cancelled first is never delivered. */
export function checkReordered(o: Observation): Finding {
  const out = finding('/webhooks/order_status_changed/post');
  const created = o.callbacks.find((c) => c.type === 'order_created' && c.attempts.length > 0);
  const cancelled = o.callbacks.find((c) => c.query.status === 'cancelled' && c.attempts.length > 0);
  if (!created || !cancelled || Date.parse(cancelled.attempts[0]!.at) > Date.parse(created.attempts[0]!.at)) {
    out.skip = 'the service side could not deliver order_status_changed (cancelled) before order_created';
    return out;
  }
  const updates = updatesOf(o);
  if (updates.length) {
    out.decided.push(
      `${o.scenario}: order ${o.orderId} was cancelled before the carrier heard of it (the cancellation arrived first, order_created after it), yet the carrier sent ${updates.length} delivery update(s): it trusted the order of the callbacks instead of the order it loads`,
    );
    out.calls.push(...updates.slice(0, 3));
  }
  return out;
}

/** After `order_status_changed` to `cancelled` is acknowledged, the carrier stops updating the order. */
export function checkStopsAfterCancel(o: Observation, graceMs: number): Finding {
  const out = finding('/components/schemas/DeliveryStatus');
  const cancelled = o.callbacks.find((c) => c.query.status === 'cancelled');
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
  const late = updatesOf(o).filter((c) => c.at > told + graceMs);
  if (late.length) {
    out.decided.push(
      `${o.scenario}: order ${o.orderId} was cancelled and the carrier acknowledged it, yet it sent ${late.length} update(s) later than ${graceMs} ms after (the first ${ms(told, late[0]!.at)} after)`,
    );
    out.calls.push(...late.slice(0, 3));
  }
  return out;
}

/** After a 429 or 503 with `Retry-After` the carrier retries, and not sooner than asked. */
export function checkRetryAfter(o: Observation, toleranceMs = 100): Finding {
  const out = finding('/components/headers/Retry-After');
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
    if (!next)
      out.decided.push(
        `${o.scenario}: ${call.method} ${path} was answered ${call.status} with Retry-After: ${call.retryAfter}, and the carrier never tried again`,
      );
    else if (next.at - call.answeredAt < asked - toleranceMs) {
      out.decided.push(
        `${o.scenario}: ${call.method} ${path} was answered ${call.status} with Retry-After: ${call.retryAfter}, and the carrier tried again after ${ms(call.answeredAt, next.at)}`,
      );
      out.calls.push(next);
    }
  }
  return out;
}

/** After a 4xx the carrier does not send the same refused request again and again. */
export function checkGivesUp(o: Observation, maxRepeats: number): Finding {
  const out = finding('/paths/~1api-delivery~1orders~1{secure_id}~1delivery/put');
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
      out.decided.push(
        `${o.scenario}: ${key} was refused with ${calls[0]!.status} and sent ${calls.length} times (at most ${maxRepeats} allowed)`,
      );
      out.calls.push(calls.at(-1)!);
    }
  return out;
}
