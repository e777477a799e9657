import { expect, test } from 'vitest';
import {
  checkDeliveredLast,
  checkDeliveryUpdates,
  checkStopsAfterCancel,
  checkGivesUp,
  checkRetryAfter,
  checkTransitions,
  type Observation,
} from './carrier-checks.js';
import type { CarrierCall } from './service-side.js';

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

const observation = (calls: CarrierCall[]): Observation => ({
  scenario: 'unit',
  orderId: 5007,
  secureId: SECURE_ID,
  calls,
  callbacks: [],
  startedAt: 0,
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
  expect(found.decided.join('\n')).toMatch(/lon/);
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
  expect(found.decided).toEqual([
    'unit: the carrier moved order 5007 from courier_assigned to delivered, a move the delivery state machine does not allow',
  ]);
});

test('a retry sooner than Retry-After asked is found, and one after it is not', () => {
  const early = checkRetryAfter(
    observation([
      call('PUT', { status: 'courier_assigned' }, 503, 10, 1),
      call('PUT', { status: 'courier_assigned' }, 200, 300),
    ]),
  );
  expect(early.decided).toEqual([
    expect.stringMatching(/answered 503 with Retry-After: 1, and the carrier tried again after 299 ms/),
  ]);
  const patient = checkRetryAfter(observation([call('GET', undefined, 429, 10, 1), call('GET', undefined, 200, 1001)]));
  expect(patient.decided).toEqual([]);
  const never = checkRetryAfter(observation([call('GET', undefined, 429, 10, 2)]));
  expect(never.decided).toEqual([expect.stringContaining('never tried again')]);
});

test('the same refused update sent more often than allowed is found', () => {
  const refused = Array.from({ length: 5 }, () => call('PUT', { status: 'courier_assigned' }, 422));
  expect(checkGivesUp(observation(refused), 3).decided).toEqual([
    expect.stringContaining('was refused with 422 and sent 5 times (at most 3 allowed)'),
  ]);
  expect(checkGivesUp(observation(refused.slice(0, 3)), 3).decided).toEqual([]);
});

test('delivered must come, and last; sending delivered again is a harmless resend', () => {
  const flow = [call('PUT', { status: 'courier_assigned' }), call('PUT', { status: 'delivering' })];
  expect(checkDeliveredLast(observation(flow), 3000).stated).toEqual([
    'unit: the carrier never reported order 5007 delivered within 3000 ms (statuses sent: courier_assigned → delivering)',
  ]);
  const resent = [...flow, call('PUT', { status: 'delivered' }), call('PUT', { status: 'delivered' })];
  expect(checkDeliveredLast(observation(resent), 3000).stated).toEqual([]);
  const moved = [...resent, call('PUT', { lat: 52.5, lon: 13.4 }, 409)];
  expect(checkDeliveredLast(observation(moved), 3000).stated).toEqual([
    'unit: the carrier kept updating order 5007 after it reported it delivered',
  ]);
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
  expect(found.decided).toEqual([
    'unit: order 5007 was cancelled and the carrier acknowledged it, yet it sent 1 update(s) later than 1000 ms after (the first 1495 ms after)',
  ]);
  expect(found.calls).toEqual([late]);
});
