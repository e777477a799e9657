import { afterEach, describe, expect, test } from 'vitest';
import { ConnectionError, InternalServerError, RateLimitError, TimeoutError, createRestoClient } from '@restoapi/sdk';
import { injectFault, recordingLogger, startMock, TRANSPORTS, type MockTarget } from '../support/mock-target.js';

/** A sleep that records the delays and does not wait. */
function recordingSleep() {
  const delays: number[] = [];
  return {
    delays,
    sleep: async (ms: number, signal?: AbortSignal) => {
      signal?.throwIfAborted();
      delays.push(ms);
    },
  };
}

describe.each(TRANSPORTS)('retries through the mock fault injection over %s', (transport) => {
  let target: MockTarget;
  afterEach(() => target?.close());

  test('a GET answered 503 twice is retried and succeeds; Retry-After sets the delays; the logger sees each retry', async () => {
    target = await startMock(transport);
    const { lines, logger } = recordingLogger();
    const { delays, sleep } = recordingSleep();
    const api = await target.signIn('admin@pizza.demo', { logger, sleep });
    await injectFault(target, { method: 'GET', path: '/api/orders/5001', status: 503, count: 2, retryAfter: 3 });

    const { order } = await api.orders.get(5001);
    expect(order.id).toBe(5001);
    expect(delays).toEqual([3000, 3000]);
    const retries = lines.filter((l) => l.level === 'warn');
    expect(retries.map((l) => l.details)).toEqual([
      expect.objectContaining({
        operation: 'GET /api/orders/{id}',
        retry: 1,
        nextAttempt: 2,
        delayMs: 3000,
        status: 503,
        reason: 'status 503',
      }),
      expect.objectContaining({
        operation: 'GET /api/orders/{id}',
        retry: 2,
        nextAttempt: 3,
        delayMs: 3000,
        status: 503,
      }),
    ]);
    expect(retries[0]!.message).toBe('Retrying GET /api/orders/{id} in 3000 ms after status 503 (retry 1 of 2)');
  });

  test('Retry-After is honoured for real (0 s and 1 s) without an injected sleep', async () => {
    target = await startMock(transport);
    const api = await target.signIn('admin@pizza.demo');
    await injectFault(target, { method: 'GET', path: '/api/organizations/1', status: 429, count: 1, retryAfter: 0 });
    await expect(api.organizations.get(1)).resolves.toMatchObject({ organization: { id: 1 } });

    await injectFault(target, { method: 'GET', path: '/api/organizations/1', status: 503, count: 1, retryAfter: 1 });
    const started = performance.now();
    await expect(api.organizations.get(1)).resolves.toMatchObject({ organization: { id: 1 } });
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
  });

  test('Retry-After longer than maxRetryAfterMs is cut to it', async () => {
    target = await startMock(transport);
    const { delays, sleep } = recordingSleep();
    const api = await target.signIn('admin@pizza.demo', { sleep, maxRetryAfterMs: 5_000 });
    await injectFault(target, { method: 'GET', path: '/api/restaurants', status: 429, count: 1, retryAfter: 3600 });
    await api.restaurants.list();
    expect(delays).toEqual([5000]);
  });

  test('when retries run out the last answer surfaces as its typed error', async () => {
    target = await startMock(transport);
    const { delays, sleep } = recordingSleep();
    const api = await target.signIn('admin@pizza.demo', { sleep, maxRetries: 1 });
    await injectFault(target, { method: 'GET', path: '/api/couriers', status: 429, count: 5, retryAfter: 2 });
    const error = await api.couriers.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RateLimitError);
    expect((error as RateLimitError).retryAfterMs).toBe(2000);
    expect((error as RateLimitError).requestId).toMatch(/^req_fault_/);
    expect(delays).toEqual([2000]);

    await injectFault(target, { method: 'GET', path: '/api/couriers/501', status: 500, count: 3 });
    const random = () => 0.5;
    const server = await target.signIn('admin@pizza.demo', { sleep, random, maxRetries: 2, retryInitialDelayMs: 100 });
    delays.length = 0;
    await expect(server.couriers.get(501)).rejects.toBeInstanceOf(InternalServerError);
    // Full jitter: random × min(max, initial × 2^(retry-1)).
    expect(delays).toEqual([50, 100]);
  });

  test('POST is not retried unless the call opts in with retry: true', async () => {
    target = await startMock(transport);
    const { delays, sleep } = recordingSleep();
    const api = await target.signIn('admin@pizza.demo', { sleep });
    await injectFault(target, { method: 'POST', path: '/api/draft_categories', status: 503, count: 2, retryAfter: 0 });
    await expect(api.draftCategories.create({ name: 'Soups', organization_id: 1 })).rejects.toBeInstanceOf(
      InternalServerError,
    );
    expect(delays).toEqual([]);
    const { data } = await target.control.GET('/__mock/faults');
    expect(data!.faults[0]!.remaining).toBe(1);

    const created = await api.draftCategories.create({ name: 'Soups', organization_id: 1 }, { retry: true });
    expect(created.draft_category.name).toBe('Soups');
    expect(delays).toEqual([0]);
  });

  test('a client-wide retry: true retries POST too; retry: false retries nothing', async () => {
    target = await startMock(transport);
    const { delays, sleep } = recordingSleep();
    const always = await target.signIn('admin@pizza.demo', { sleep, retry: true });
    await injectFault(target, { method: 'POST', path: '/api/organizations/1/publish', status: 502, count: 1 });
    // The publication's figures are our decision; another service may answer 204 (then undefined).
    const published = await always.organizations.publish(1);
    if (target.ours) expect(published).toMatchObject({ menu: { organization_id: 1 } });
    expect(delays).toHaveLength(1);

    const never = await target.signIn('admin@pizza.demo', { sleep, retry: false });
    await injectFault(target, { method: 'GET', path: '/api/organizations/1', status: 503, count: 1 });
    await expect(never.organizations.get(1)).rejects.toBeInstanceOf(InternalServerError);
    expect(delays).toHaveLength(1);
  });

  test('each attempt has its own timeout: a slow first attempt times out and the retry succeeds', async () => {
    target = await startMock(transport);
    const { lines, logger } = recordingLogger();
    const api = await target.signIn('admin@pizza.demo', { logger, timeoutMs: 300, retryInitialDelayMs: 1 });
    await injectFault(target, { method: 'GET', path: '/api/orders/5001', latencyMs: 1_000, count: 1 });
    const { order } = await api.orders.get(5001);
    expect(order.id).toBe(5001);
    expect(lines.filter((l) => l.level === 'warn').map((l) => l.details?.reason)).toEqual(['timeout']);
  });

  test('a timeout with no retries left is a TimeoutError; the timer is per request, not per client', async () => {
    target = await startMock(transport);
    const api = await target.signIn('admin@pizza.demo', { timeoutMs: 400, maxRetries: 0 });
    await injectFault(target, { method: 'GET', path: '/api/orders/5001', latencyMs: 1_500, count: 1 });
    const error = await api.orders.get(5001).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).toMatchObject({ status: undefined, operation: 'GET /api/orders/{id}' });

    // Three calls of 200 ms each, one after the other (600 ms in all): each fits its own 400 ms.
    await injectFault(target, { method: 'GET', path: '/api/orders/5002', latencyMs: 200, count: 3 });
    for (let i = 0; i < 3; i++) await expect(api.orders.get(5002)).resolves.toMatchObject({ order: { id: 5002 } });

    // A per-call timeout overrides the client's.
    await injectFault(target, { method: 'GET', path: '/api/orders/5004', latencyMs: 600, count: 1 });
    await expect(api.orders.get(5004, { timeoutMs: 2_000 })).resolves.toMatchObject({ order: { id: 5004 } });
  });

  test('an AbortSignal aborts the call at once, without retries', async () => {
    target = await startMock(transport);
    const { lines, logger } = recordingLogger();
    const api = await target.signIn('admin@pizza.demo', { logger });
    await injectFault(target, { method: 'GET', path: '/api/orders/5001', latencyMs: 2_000, count: 1 });
    const controller = new AbortController();
    const started = performance.now();
    setTimeout(() => controller.abort(), 50);
    const error = await api.orders.get(5001, { signal: controller.signal }).catch((e: unknown) => e);
    expect((error as Error).name).toBe('AbortError');
    expect(performance.now() - started).toBeLessThan(1_500);
    expect(lines.filter((l) => l.level === 'warn')).toEqual([]);

    // An abort during the backoff wait ends it too.
    await injectFault(target, { method: 'GET', path: '/api/orders/5002', status: 503, count: 1, retryAfter: 30 });
    const during = new AbortController();
    const pending = api.orders.get(5002, { signal: during.signal });
    setTimeout(() => during.abort(new Error('user left')), 50);
    await expect(pending).rejects.toThrow('user left');
  });
});

test('a refused connection is a ConnectionError after the retries, each logged', async () => {
  const { lines, logger } = recordingLogger();
  const api = createRestoClient({ baseUrl: 'http://127.0.0.1:9', logger, maxRetries: 2, retryInitialDelayMs: 1 });
  const error = await api.organizations.list().catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ConnectionError);
  expect(error).not.toBeInstanceOf(TimeoutError);
  expect((error as ConnectionError).operation).toBe('GET /api/organizations');
  expect(lines.filter((l) => l.level === 'warn').map((l) => l.details?.reason)).toEqual([
    'connection error',
    'connection error',
  ]);
});
