import { createMock } from '@restoapi/mock-server';
import { ConflictError, ConnectionError, InternalServerError, NotFoundError, createCarrierClient } from '@restoapi/sdk';
import { expect, test } from 'vitest';
import { asCarrierApi, createCarrierApi, isProgrammingError, isRetryableError, retryAfterOf } from './carrier-api.js';

const SECURE = 'c9f3b2a4e1d84f0b9a7c6e5d4f3a2b1c';

async function mockWithCarrierOrder() {
  const mock = createMock();
  // Hand the demo order 5001 to a carrier, as registering one and placing an order would.
  const order = mock.runtime.state.orders.get(5001)!;
  order.secure_id = SECURE;
  order.carrier_id = 1;
  return mock;
}

test('reads and updates an order through the SDK carrier client and answers the order itself', async () => {
  const mock = await mockWithCarrierOrder();
  const api = createCarrierApi({ baseUrl: 'http://mock.test', fetch: mock.fetch });
  const order = await api.getOrder(SECURE);
  expect(order).toMatchObject({ id: 5001, secure_id: SECURE, number: 'PP-5001' });
  const updated = await api.updateDelivery(SECURE, { message: 'Courier on the way' });
  expect(updated?.delivery.message).toBe('Courier on the way');
  mock.close();
});

test('with mockSession every call names that mock session, beside the headers given', async () => {
  const mock = createMock();
  const order = mock.session('carrier-1').runtime.state.orders.get(5001)!;
  order.secure_id = SECURE;
  order.carrier_id = 1;
  const seen: (string | null)[] = [];
  const fetchSpy: typeof fetch = (input, init) => {
    const request = new Request(input, init);
    seen.push(request.headers.get('x-trace'));
    return mock.fetch(request);
  };
  const api = createCarrierApi({
    baseUrl: 'http://mock.test',
    fetch: fetchSpy,
    mockSession: 'carrier-1',
    headers: { 'X-Trace': 't1' },
  });
  expect(await api.getOrder(SECURE)).toMatchObject({ id: 5001, secure_id: SECURE });
  expect(seen).toEqual(['t1']);
  // The default session never handed the order to a carrier.
  const elsewhere = createCarrierApi({ baseUrl: 'http://mock.test', fetch: mock.fetch });
  expect(await elsewhere.getOrder(SECURE).catch((e: unknown) => e)).toBeInstanceOf(NotFoundError);
  mock.close();
});

test("failures are the SDK's error classes, and the retry decision follows them", async () => {
  const mock = await mockWithCarrierOrder();
  const api = createCarrierApi({ baseUrl: 'http://mock.test', fetch: mock.fetch });
  const missing = await api.getOrder('nope').catch((e: unknown) => e);
  expect(missing).toBeInstanceOf(NotFoundError);
  expect(isRetryableError(missing)).toBe(false);
  const illegal = await api
    .updateDelivery(SECURE, { status: 'idle', lat: 91, lon: 0 } as never)
    .catch((e: unknown) => e);
  expect(isRetryableError(illegal)).toBe(false);
  const down = createCarrierApi({ baseUrl: 'http://127.0.0.1:9' });
  const refused = await down.getOrder(SECURE).catch((e: unknown) => e);
  expect(refused).toBeInstanceOf(ConnectionError);
  expect(isRetryableError(refused)).toBe(true);
  const unavailable = new InternalServerError({
    status: 503,
    operation: 'GET /orders/{secure_id}',
    headers: new Headers({ 'retry-after': '7' }),
  });
  expect(isRetryableError(unavailable)).toBe(true);
  expect(retryAfterOf(unavailable)).toBe(7000);
  expect(isRetryableError(new ConflictError({ status: 409, operation: 'PUT' }))).toBe(false);
  mock.close();
});

test('adapts a client answering { order }, such as an SDK carrier client of your own', async () => {
  const mock = await mockWithCarrierOrder();
  const api = asCarrierApi(createCarrierClient({ baseUrl: 'http://mock.test', fetch: mock.fetch, maxRetries: 0 }));
  expect((await api.getOrder(SECURE)).id).toBe(5001);
  expect((await api.updateDelivery(SECURE, { courier_name: 'Tom' }))?.delivery.courier_name).toBe('Tom');
  mock.close();
});

test('a delivery update answered 204 without body resolves to undefined: accepted, no order to show', async () => {
  const mock = await mockWithCarrierOrder();
  const noBody = async (input: string | Request, init?: RequestInit) => {
    const answer = await mock.fetch(input, init);
    return init?.method === 'PUT' && answer.ok ? new Response(null, { status: 204 }) : answer;
  };
  const api = createCarrierApi({ baseUrl: 'http://mock.test', fetch: noBody as typeof fetch });
  await expect(api.updateDelivery(SECURE, { message: 'Courier on the way' })).resolves.toBeUndefined();
  expect((await api.getOrder(SECURE)).delivery.message).toBe('Courier on the way');
  const adapted = asCarrierApi(createCarrierClient({ baseUrl: 'http://mock.test', fetch: noBody, readBack: false }));
  await expect(adapted.updateDelivery(SECURE, { courier_name: 'Tom' })).resolves.toBeUndefined();
  mock.close();
});

test("a bug in code is never a reason to retry; fetch's own 'fetch failed' TypeError is", () => {
  const bug = new TypeError("Cannot destructure property 'order' of 'undefined' as it is undefined.");
  expect(isProgrammingError(bug)).toBe(true);
  expect(isRetryableError(bug)).toBe(false);
  expect(isRetryableError(new RangeError('Invalid time value'))).toBe(false);
  expect(isRetryableError(new TypeError('fetch failed'))).toBe(true);
  expect(isRetryableError(new TypeError('Failed to fetch'))).toBe(true);
  expect(isRetryableError(new Error('socket hang up'))).toBe(true);
});
