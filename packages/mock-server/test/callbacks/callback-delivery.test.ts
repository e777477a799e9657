import { createHmac, randomBytes } from 'node:crypto';
import { openapiDocument } from '@restoapi/openapi';
import { afterEach, expect, test } from 'vitest';
import { deadCallbackUrl, startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.js';
import { call, login, margheritaOrder, storefrontMock } from '../support/storefront.js';

const receivers: CallbackReceiver[] = [];
async function receiver(...args: Parameters<typeof startCallbackReceiver>): Promise<CallbackReceiver> {
  const started = await startCallbackReceiver(...args);
  receivers.push(started);
  return started;
}
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

const policy = (
  openapiDocument.webhooks as Record<
    string,
    {
      post: {
        'x-retry-policy': {
          initialDelayMs: number;
          factor: number;
          jitter: number;
          maxDelayMs: number;
          maxAttempts: number;
        };
      };
    }
  >
).order_created!.post['x-retry-policy'];
const gaps = (attempts: { at: string }[]) =>
  attempts.slice(1).map((a, i) => Date.parse(a.at) - Date.parse(attempts[i]!.at));

test('a failing callback is retried with the documented backoff on the virtual clock, every attempt logged', async () => {
  const { control } = await storefrontMock();
  const carrier = await receiver([
    { status: 500, body: 'boom' },
    { status: 503, body: 'x'.repeat(5000) },
  ]);
  await control.POST('/__mock/carriers', { body: { callback_url: carrier.url } });
  const { data } = await control.POST('/__mock/orders', { body: margheritaOrder() });

  await carrier.nth(1);
  // The retries wait for virtual time: nothing more arrives until the clock is moved.
  await control.POST('/__mock/clock/advance', { body: { ms: 0 } });
  let [callback] = (await control.GET('/__mock/callbacks', { params: { query: { order_id: data!.order.id } } })).data!
    .callbacks;
  expect(callback).toMatchObject({
    type: 'order_created',
    state: 'pending',
    attempts: [{ outcome: 'failed', status: 500, response_body: 'boom', error: null }],
  });
  const firstGap = Date.parse(callback!.next_attempt_at!) - Date.parse(callback!.attempts[0]!.at);
  expect(firstGap).toBeGreaterThanOrEqual(policy.initialDelayMs * (1 - policy.jitter));
  expect(firstGap).toBeLessThanOrEqual(policy.initialDelayMs * (1 + policy.jitter));
  expect(carrier.received).toHaveLength(1);

  // One advance walks through both retries, each at its own virtual time.
  const clock = (await control.POST('/__mock/clock/advance', { body: { ms: 10_000 } })).data!;
  expect(clock.now).toBe('2026-11-20T17:30:10.000Z');
  expect(carrier.received).toHaveLength(3);
  [callback] = (await control.GET('/__mock/callbacks')).data!.callbacks;
  expect(callback).toMatchObject({ state: 'delivered', next_attempt_at: null });
  expect(callback!.attempts.map((a) => [a.outcome, a.status])).toEqual([
    ['failed', 500],
    ['failed', 503],
    ['delivered', 200],
  ]);
  expect(callback!.attempts[1]!.response_body).toHaveLength(2048);
  expect(callback!.attempts.every((a) => a.duration_ms >= 0)).toBe(true);
  const [gap1, gap2] = gaps(callback!.attempts);
  expect(gap1).toBe(firstGap);
  expect(gap2).toBeGreaterThanOrEqual(policy.initialDelayMs * policy.factor * (1 - policy.jitter));
  expect(gap2).toBeLessThanOrEqual(policy.initialDelayMs * policy.factor * (1 + policy.jitter));
  // The same event every time.
  expect(new Set(carrier.received.map((r) => r.search)).size).toBe(1);
});

test('a callback nobody answers is given up after maxAttempts, delays capped', async () => {
  const { control } = await storefrontMock();
  await control.POST('/__mock/carriers', { body: { callback_url: await deadCallbackUrl() } });
  await control.POST('/__mock/orders', { body: margheritaOrder() });
  await control.POST('/__mock/clock/advance', { body: { ms: 3 * 60 * 60 * 1000 } });

  const [callback] = (await control.GET('/__mock/callbacks')).data!.callbacks;
  expect(callback!.state).toBe('failed');
  expect(callback!.next_attempt_at).toBeNull();
  expect(callback!.attempts).toHaveLength(policy.maxAttempts);
  expect(callback!.attempts.every((a) => a.outcome === 'failed' && a.status === null && a.error)).toBe(true);
  const delays = gaps(callback!.attempts);
  expect(Math.max(...delays)).toBeLessThanOrEqual(policy.maxDelayMs);
  expect(delays.at(-1)).toBeGreaterThanOrEqual(policy.maxDelayMs * (1 - policy.jitter));
  delays.slice(0, 5).forEach((delay, i) => {
    const nominal = policy.initialDelayMs * policy.factor ** i;
    expect(delay).toBeGreaterThanOrEqual(nominal * (1 - policy.jitter));
    expect(delay).toBeLessThanOrEqual(nominal * (1 + policy.jitter));
  });
});

test('a carrier that does not answer in time counts as a failed attempt', async () => {
  const { control } = await storefrontMock();
  await control.PUT('/__mock/config', { body: { callbackTimeoutMs: 200 } });
  const carrier = await receiver(['hang']);
  await control.POST('/__mock/carriers', { body: { callback_url: carrier.url } });
  await control.POST('/__mock/orders', { body: margheritaOrder() });
  await carrier.nth(1);
  await control.POST('/__mock/clock/advance', { body: { ms: 0 } });
  const [callback] = (await control.GET('/__mock/callbacks')).data!.callbacks;
  expect(callback!.attempts[0]).toMatchObject({
    outcome: 'failed',
    status: null,
    response_body: null,
    error: 'no answer within 200 ms',
  });
  expect(callback!.state).toBe('pending');
});

test('callbacks to a carrier with a secret carry a verifiable Standard Webhooks signature, stable across retries', async () => {
  const { control } = await storefrontMock();
  const key = randomBytes(32);
  const carrier = await receiver([{ status: 500 }]);
  const registered = await control.POST('/__mock/carriers', {
    body: { callback_url: carrier.url, secret: `whsec_${key.toString('base64')}` },
  });
  expect(registered.data!.carrier.signed).toBe(true);
  await control.POST('/__mock/orders', { body: margheritaOrder() });
  await carrier.nth(1);
  await control.POST('/__mock/clock/advance', { body: { ms: 5_000 } });
  const [first, second] = [await carrier.nth(1), await carrier.nth(2)];

  for (const call of [first, second]) {
    const id = String(call.headers['webhook-id']);
    const timestamp = String(call.headers['webhook-timestamp']);
    const expected = createHmac('sha256', key).update(`${id}.${timestamp}.${call.search}`).digest('base64');
    expect(call.headers['webhook-signature']).toBe(`v1,${expected}`);
    expect(call.search).toMatch(/^type=order_created&order_id=\d+&order_secure_id=[\w-]+$/);
  }
  expect(first.headers['webhook-id']).toBe(second.headers['webhook-id']);
  // Timestamps follow the virtual clock (frozen at 17:30:00Z, retried about a second later).
  expect(Number(first.headers['webhook-timestamp'])).toBe(Date.parse('2026-11-20T17:30:00Z') / 1000);
  expect(Number(second.headers['webhook-timestamp'])).toBeGreaterThanOrEqual(
    Number(first.headers['webhook-timestamp']),
  );
});

test('a malformed secret is refused', async () => {
  const { control } = await storefrontMock();
  const res = await control.POST('/__mock/carriers', {
    body: { callback_url: 'http://127.0.0.1:9/x', secret: 'not-a-secret' },
  });
  expect(res.response.status).toBe(422);
  expect(res.error?.errors[0]?.source?.pointer).toBe('/secret');
});

test('every status change of a handed-over order is announced with its new status', async () => {
  const { mock, control } = await storefrontMock();
  const carrier = await receiver();
  await control.POST('/__mock/carriers', { body: { callback_url: carrier.url } });
  const { data } = await control.POST('/__mock/orders', { body: margheritaOrder() });
  const admin = await login(mock, 'admin@pizza.demo');
  for (const status of ['accepted', 'cooking']) {
    expect(
      (await call(mock, 'PUT', `/api/orders/${data!.order.id}/status?status=${status}`, { token: admin })).status,
    ).toBe(200);
  }
  await carrier.nth(3);
  // Delivery order is not guaranteed (the document says so), only that every event arrives.
  expect(carrier.received.map((r) => r.query.status ?? r.query.type).sort()).toEqual([
    'accepted',
    'cooking',
    'order_created',
  ]);
  expect(carrier.received.every((r) => r.query.order_id === String(data!.order.id))).toBe(true);
});

test('chaos: duplicates keep the webhook-id, delays wait for the clock, reorder swaps consecutive callbacks', async () => {
  const { mock, control } = await storefrontMock();
  const carrier = await receiver();
  await control.POST('/__mock/carriers', {
    body: {
      callback_url: carrier.url,
      secret: `whsec_${randomBytes(24).toString('base64')}`,
      chaos: { duplicate: 1, delayMs: 2_000, reorder: true, seed: 7 },
    },
  });
  const { data } = await control.POST('/__mock/orders', { body: margheritaOrder() });
  const admin = await login(mock, 'admin@pizza.demo');
  await call(mock, 'PUT', `/api/orders/${data!.order.id}/status?status=accepted`, { token: admin });

  await control.POST('/__mock/clock/advance', { body: { ms: 1_999 } });
  expect(carrier.received).toHaveLength(0);
  await control.POST('/__mock/clock/advance', { body: { ms: 2 } });
  await carrier.nth(4);
  expect(carrier.received.map((r) => r.query.type)).toEqual([
    'order_status_changed',
    'order_status_changed',
    'order_created',
    'order_created',
  ]);
  expect(carrier.received[0]!.headers['webhook-id']).toBe(carrier.received[1]!.headers['webhook-id']);
  const callbacks = (await control.GET('/__mock/callbacks')).data!.callbacks;
  expect(callbacks.filter((c) => c.duplicate_of !== null)).toHaveLength(2);
});
