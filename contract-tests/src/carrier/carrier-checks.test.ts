import { expect, test } from 'vitest';
import {
  checkDeliveryUpdates,
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
