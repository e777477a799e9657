import { expect, test } from 'vitest';
import { listDecisions, openapiDocument } from '@restoapi/openapi';
import { CLAUSES } from '../generated/clauses.js';
import {
  CARRIER_DECISIONS,
  checkAcknowledgements,
  checkDeliveredLast,
  checkDeliveryUpdates,
  checkDuplicates,
  checkLoadsOrder,
  checkPositions,
  checkStopsAfterCancel,
  checkGivesUp,
  checkRetryAfter,
  checkTransitions,
  type Finding,
  type Observation,
} from './carrier-checks.js';
import { CARRIER_CHECKS, DEFAULT_CARRIER_TIMINGS } from './run-carrier.js';
import type { CallbackLog, CarrierCall } from './service-side.js';

const SECURE_ID = 'sec_1';
let clock = 1_000_000;

/** A carrier API call as the service side records it; `at` moves on by `after` ms. */
function call(method: 'GET' | 'PUT', body: unknown, status = 200, after = 10, retryAfter?: number): CarrierCall {
  clock += after;
  const text = body === undefined ? undefined : JSON.stringify(body);
  return {
    at: clock,
    answeredAt: clock + 1,
    method,
    url: `http://127.0.0.1:4010/api-delivery/orders/${SECURE_ID}${method === 'PUT' ? '/delivery' : ''}`,
    headers: method === 'PUT' ? { 'content-type': 'application/json' } : {},
    ...(text !== undefined ? { body: text, json: body } : {}),
    status,
    answer: '{}',
    faulty: status >= 500,
    kind: method === 'GET' ? 'load' : 'update',
    secureId: SECURE_ID,
    ...(retryAfter !== undefined ? { retryAfter } : {}),
  };
}

const observation = (calls: CarrierCall[], callbacks: CallbackLog[] = []): Observation => ({
  scenario: 'unit',
  orderId: 5007,
  secureId: SECURE_ID,
  calls,
  callbacks,
  startedAt: 0,
});
const messages = (found: Finding): string[] => found.decided.map((d) => d.message);
const decisions = (found: Finding): string[] => [...new Set(found.decided.map((d) => d.decision))];

/** A callback of the mock's log, delivered with one attempt answered `status` (null: no answer). */
function callback(type: string, status: number | null, extra: Partial<CallbackLog> = {}): CallbackLog {
  return {
    id: 1,
    order_id: 5007,
    type,
    query: { type, order_secure_id: SECURE_ID },
    duplicate_of: null,
    state: status !== null && status < 300 ? 'delivered' : 'failed',
    attempts: [
      {
        at: new Date(clock).toISOString(),
        outcome: status !== null && status < 300 ? 'delivered' : 'failed',
        status,
        error: status === null ? 'timeout' : null,
        duration_ms: 5,
      },
    ],
    ...extra,
  };
}

test('every check names existing clauses and x-decisions, and the default times are the decided ones', () => {
  const clauses = new Set(CLAUSES.map((c) => c.id));
  const markers = new Set(listDecisions(openapiDocument).map((d) => d.pointer));
  for (const check of CARRIER_CHECKS) {
    expect(check.clauses.length + check.decisions.length, check.id).toBeGreaterThan(0);
    for (const clause of check.clauses) expect(clauses.has(clause), `${check.id}: ${clause}`).toBe(true);
    for (const pointer of check.decisions) expect(markers.has(pointer), `${check.id}: ${pointer}`).toBe(true);
    if (check.profile === 'full') expect(check.decisions.length, check.id).toBeGreaterThan(0);
  }
  for (const pointer of Object.values(CARRIER_DECISIONS)) expect(markers.has(pointer), pointer).toBe(true);
  expect(DEFAULT_CARRIER_TIMINGS).toEqual({
    ackMs: 10_000,
    deliveryMs: 60_000,
    graceMs: 1000,
    positionMs: 30_000,
    quietMs: 1000,
  });
});

test('a late or refused acknowledgement breaks a decision, never the spec', () => {
  const found = checkAcknowledgements(
    [observation([], [callback('order_created', null), callback('order_status_changed', 500), callback('x', 204)])],
    2000,
  );
  expect(found.stated).toEqual([]);
  expect(messages(found)).toEqual([
    'unit: the order_created callback of order 5007 got no answer within 2000 ms (timeout)',
    'unit: the order_status_changed callback of order 5007 was answered 500; only a 2xx acknowledges a callback',
  ]);
  expect(decisions(found)).toEqual([CARRIER_DECISIONS.acknowledged]);
});

test('an order never loaded within the time limit is decided; an update before any load is stated', () => {
  const created = [callback('order_created', 204)];
  const idle = checkLoadsOrder([observation([], created)], 3000);
  expect(idle.stated).toEqual([]);
  expect(messages(idle)).toEqual([expect.stringContaining('the carrier did not load it')]);
  expect(decisions(idle)).toEqual([CARRIER_DECISIONS.deliveryLimit]);
  const blind = checkLoadsOrder([observation([call('PUT', { status: 'courier_assigned' })], created)], 3000);
  expect(blind.stated).toEqual(['unit: the carrier updated order 5007 before it loaded it']);
  expect(blind.decided).toEqual([]);
});

test('an unknown field or status value breaks the spec; half a position or an empty update only a decision', () => {
  const found = checkDeliveryUpdates([
    observation([
      call('PUT', { status: 'picked_up' }),
      call('PUT', { eta: 5 }),
      call('PUT', { lat: 52.5 }),
      call('PUT', {}),
      call('PUT', { status: 'delivering', lat: 52.5, lon: 13.4 }),
    ]),
  ]);
  expect(found.stated).toEqual([
    expect.stringContaining('the status "picked_up" is not one the spec lists'),
    expect.stringContaining('the field eta is not one the spec lists'),
  ]);
  expect(found.decided).toHaveLength(2);
  expect(messages(found).join('\n')).toMatch(/lon/);
  expect(decisions(found)).toEqual([CARRIER_DECISIONS.update]);
});

test('a move the delivery state machine does not allow is a decided finding; repeating a status is not', () => {
  const found = checkTransitions([
    observation([
      call('PUT', { status: 'courier_assigned' }),
      call('PUT', { status: 'courier_assigned' }),
      call('PUT', { status: 'delivered' }, 409),
      call('PUT', { status: 'delivering' }),
    ]),
  ]);
  expect(found.stated).toEqual([]);
  expect(messages(found)).toEqual([
    'unit: the carrier moved order 5007 from courier_assigned to delivered, a move the delivery state machine does not allow',
  ]);
});

test('resending the status with each position, and going through problem and back, are no illegal moves', () => {
  const found = checkTransitions([
    observation([
      call('PUT', { status: 'courier_assigned' }),
      call('PUT', { status: 'delivering', lat: 52.5, lon: 13.4 }),
      call('PUT', { status: 'delivering', lat: 52.51, lon: 13.41 }),
      call('PUT', { status: 'problem', message: 'Stuck behind a tram.' }),
      call('PUT', { status: 'delivering', message: null }),
      call('PUT', { status: 'delivered' }),
    ]),
  ]);
  expect(found.decided).toEqual([]);
});

test('a retry sooner than Retry-After asked is found, and one after it is not', () => {
  const early = checkRetryAfter(
    observation([
      call('PUT', { status: 'courier_assigned' }, 503, 10, 1),
      call('PUT', { status: 'courier_assigned' }, 200, 300),
    ]),
  );
  expect(messages(early)).toEqual([
    expect.stringMatching(/answered 503 with Retry-After: 1, and the carrier tried again after 299 ms/),
  ]);
  const patient = checkRetryAfter(observation([call('GET', undefined, 429, 10, 1), call('GET', undefined, 200, 1001)]));
  expect(patient.decided).toEqual([]);
  const never = checkRetryAfter(observation([call('GET', undefined, 429, 10, 2)]));
  expect(messages(never)).toEqual([expect.stringContaining('never tried again')]);
});

test('the same refused update sent more often than allowed is found', () => {
  const refused = Array.from({ length: 5 }, () => call('PUT', { status: 'courier_assigned' }, 422));
  expect(messages(checkGivesUp(observation(refused), 3))).toEqual([
    expect.stringContaining('was refused with 422 and sent 5 times (at most 3 allowed)'),
  ]);
  expect(checkGivesUp(observation(refused.slice(0, 3)), 3).decided).toEqual([]);
});

test('delivered must come (a refused one does not count), and nothing after it; both rest on decisions', () => {
  const flow = [call('PUT', { status: 'courier_assigned' }), call('PUT', { status: 'delivering' })];
  const refused = [...flow, call('PUT', { status: 'delivered' }, 409)];
  const never = checkDeliveredLast([observation(refused)], 3000);
  expect(never.stated).toEqual([]);
  expect(messages(never)).toEqual([
    'unit: order 5007 was not reported delivered within 3000 ms (statuses sent: courier_assigned → delivering → delivered; delivered was refused with 409)',
  ]);
  expect(decisions(never)).toEqual([CARRIER_DECISIONS.deliveryLimit]);
  const resent = [...flow, call('PUT', { status: 'delivered' }), call('PUT', { status: 'delivered' })];
  expect(checkDeliveredLast([observation(resent)], 3000).decided).toEqual([]);
  const moved = [...resent, call('PUT', { lat: 52.5, lon: 13.4 }, 409)];
  const after = checkDeliveredLast([observation(moved)], 3000);
  expect(messages(after)).toEqual([
    'unit: the carrier kept updating order 5007 after it was delivered (1 update(s): {"lat":52.5,"lon":13.4})',
  ]);
  expect(decisions(after)).toEqual([CARRIER_DECISIONS.statuses]);
});

test("a scenario whose own order cannot be delivered is judged by the next order's delivery", () => {
  const next = { orderId: 5008, secureId: 'sec_2' };
  const other = (body: unknown, status = 200): CarrierCall => ({
    ...call('PUT', body, status),
    url: 'http://127.0.0.1:4010/api-delivery/orders/sec_2/delivery',
    secureId: 'sec_2',
  });
  const cancelled = { ...observation([call('PUT', { status: 'courier_assigned' })]), scenario: 'cancelled', next };
  expect(messages(checkDeliveredLast([cancelled], 3000))).toEqual([
    'cancelled: order 5008, handed over after order 5007 was cancelled, was not reported delivered within 3000 ms (statuses sent: none)',
  ]);
  const delivered = { ...cancelled, calls: [...cancelled.calls, other({ status: 'delivered' })] };
  expect(checkDeliveredLast([delivered], 3000).decided).toEqual([]);
});

test('positions: a gap longer than the interval while delivering is decided; a refused delivered neither ends it nor counts', () => {
  const start = call('PUT', { status: 'delivering' }, 200, 10);
  const refusedDelivered = call('PUT', { status: 'delivered', lat: 52.5, lon: 13.4 }, 409, 400);
  const position = call('PUT', { lat: 52.51, lon: 13.41 }, 200, 700);
  const delivered = call('PUT', { status: 'delivered' }, 200, 100);
  const found = checkPositions([observation([start, refusedDelivered, position, delivered])], 1000);
  expect(messages(found)).toEqual([
    'unit: order 5007 was delivering, and the carrier sent no courier position (lat, lon) for 1100 ms (at most 1000 ms allowed)',
  ]);
  expect(decisions(found)).toEqual([CARRIER_DECISIONS.positions]);
  // Within the interval, a short delivery may carry no position at all; positions sent with the status count.
  const short = [call('PUT', { status: 'delivering' }), call('PUT', { status: 'delivered' }, 200, 900)];
  expect(checkPositions([observation(short)], 1000).decided).toEqual([]);
  const withStatus = [
    call('PUT', { status: 'delivering', lat: 52.5, lon: 13.4 }),
    call('PUT', { status: 'delivering', lat: 52.51, lon: 13.41 }, 200, 900),
    call('PUT', { status: 'delivered', lat: 52.52, lon: 13.42 }, 200, 900),
  ];
  expect(checkPositions([observation(withStatus)], 1000).decided).toEqual([]);
  expect(checkPositions([observation([call('PUT', { status: 'courier_assigned' })])], 1000).skip).toBe(
    'the carrier reported no order delivering',
  );
});

test('duplicates: the work of a callback done twice is found against the flow; a repeated status is not', () => {
  const duplicated = [callback('order_created', 204, { id: 2, duplicate_of: 1 })];
  const plain = () => [
    call('PUT', { status: 'courier_assigned' }),
    call('PUT', { status: 'delivering' }),
    call('PUT', { lat: 52.5, lon: 13.4 }),
    call('PUT', { status: 'delivered' }),
  ];
  const flow = { ...observation(plain()), scenario: 'flow', orderId: 5001 };
  const twice = observation([...plain(), ...plain()], duplicated);
  const found = checkDuplicates(twice, flow);
  expect(found.decided.map((d) => d.message.replace(/ for order.*/, ''))).toEqual([
    'unit: every callback came twice (same webhook-id), and the service accepted courier_assigned 2 times',
    'unit: every callback came twice (same webhook-id), and the service accepted delivering 2 times',
    'unit: every callback came twice (same webhook-id), and the service accepted delivered 2 times',
  ]);
  // The second delivered refused (the order was complete): it had no effect, and is not counted.
  const refusedAgain = observation([...plain(), call('PUT', { status: 'delivered' }, 409)], duplicated);
  expect(checkDuplicates(refusedAgain, flow).decided).toEqual([]);
  expect(decisions(found)).toEqual([CARRIER_DECISIONS.atLeastOnce]);
  // The status resent with every position, and delivering → problem → delivering (here in the duplicates
  // scenario only, as a carrier's problems come at random), are no work done twice.
  const styled = () => [
    call('PUT', { status: 'courier_assigned' }),
    call('PUT', { status: 'delivering', lat: 52.5, lon: 13.4 }),
    call('PUT', { status: 'delivering', lat: 52.51, lon: 13.41 }),
    call('PUT', { status: 'problem', message: 'Stuck behind a tram.' }),
    call('PUT', { status: 'delivering', message: null }),
    call('PUT', { status: 'delivering', lat: 52.52, lon: 13.42 }),
    call('PUT', { status: 'delivered' }),
  ];
  expect(checkDuplicates(observation(styled(), duplicated), flow).decided).toEqual([]);
  // A carrier that resends every status once (the same in both scenarios) does no more work for a duplicate.
  const resending = () => plain().flatMap((c) => [c, { ...c }]);
  expect(checkDuplicates(observation(resending(), duplicated), { ...flow, calls: resending() }).decided).toEqual([]);
  expect(checkDuplicates(observation(plain()), flow).skip).toBe('the service side delivered no duplicated callback');
});

test('an update later than the grace after the acknowledged cancellation is found', () => {
  const told = clock + 5;
  const cancelled = {
    id: 2,
    order_id: 5007,
    type: 'order_status_changed',
    query: { status: 'cancelled' },
    duplicate_of: null,
    state: 'delivered' as const,
    attempts: [
      { at: new Date(told).toISOString(), outcome: 'delivered' as const, status: 204, error: null, duration_ms: 0 },
    ],
  };
  const inGrace = call('PUT', { lat: 52.5, lon: 13.4 }, 409, 500);
  const late = call('PUT', { status: 'delivered' }, 409, 1000);
  const found = checkStopsAfterCancel({ ...observation([inGrace, late]), callbacks: [cancelled] }, 1000);
  expect(decisions(found)).toEqual([CARRIER_DECISIONS.cancellation]);
  expect(messages(found)).toEqual([
    'unit: order 5007 was cancelled and the carrier acknowledged it, yet it sent 1 update(s) later than 1000 ms after (the first 1495 ms after)',
  ]);
  expect(found.calls).toEqual([late]);
});
