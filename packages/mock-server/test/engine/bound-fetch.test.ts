import { expect, test } from 'vitest';
import { createMock } from '../../src/index.js';
import { login, storefrontMock } from '../support/storefront.js';

const base = 'http://localhost:4010';

test('mock.fetch reads a call as a Request would: lower-case methods, trimmed and joined headers', async () => {
  const mock = createMock();
  const token = await login(mock, 'dispatcher@demo');
  const res = await mock.fetch(`${base}/api/orders/5001`, {
    method: 'get',
    headers: { Authorization: `  Token token="${token}"\t` },
  });
  expect(res.status).toBe(200);
  expect(((await res.json()) as { order: { id: number } }).order.id).toBe(5001);
  // Two spellings of one name are joined, as `Headers` joins them, which is no valid token.
  const joined = await mock.fetch(`${base}/api/orders/5001`, {
    headers: { Authorization: `Token token="${token}"`, authorization: `Token token="${token}"` },
  });
  expect(joined.status).toBe(401);
  mock.close();
});

test('mock.fetch takes a string body without Content-Type as text, not JSON, as fetch does', async () => {
  const mock = createMock();
  const token = await login(mock, 'admin@pizza.demo');
  const body = JSON.stringify({
    draft_dish: { name: 'Calzone', price: '11.00', organization_id: 1, draft_category_id: 1001 },
  });
  const untyped = await mock.fetch(`${base}/api/draft_dishes`, {
    method: 'POST',
    headers: { Authorization: `Token token="${token}"` },
    body,
  });
  expect(untyped.status).toBe(415);
  const typed = await mock.fetch(`${base}/api/draft_dishes`, {
    method: 'POST',
    headers: new Headers({ Authorization: `Token token="${token}"`, 'Content-Type': 'application/json' }),
    body,
  });
  expect(typed.status).toBe(201);
  mock.close();
});

test('mock.fetch refuses what fetch refuses, with the same TypeError', async () => {
  const mock = createMock();
  await expect(mock.fetch('/api/orders')).rejects.toThrow(TypeError);
  await expect(mock.fetch(`${base}/api/orders`, { method: 'GET', body: 'x' })).rejects.toThrow(TypeError);
  await expect(mock.fetch(`${base}/api/orders`, { headers: { 'Bad Name': 'x' } })).rejects.toThrow(TypeError);
  mock.close();
});

test('mock.fetch rejects with the reason of an aborted signal, before or during an injected latency, and the aborted request changes nothing', async () => {
  const { mock, control } = await storefrontMock();
  const token = await login(mock, 'admin@pizza.demo');
  const aborted = AbortSignal.abort(new Error('gave up'));
  await expect(mock.fetch(`${base}/api/orders/5001`, { signal: aborted })).rejects.toThrow('gave up');

  await control.POST('/__mock/faults', { body: { method: 'POST', path: '/api/draft_dishes', latencyMs: 300 } });
  const before = (await (
    await mock.fetch(`${base}/api/draft_dishes?organization_id=1`, {
      headers: { Authorization: `Token token="${token}"` },
    })
  ).json()) as { draft_dishes: unknown[] };
  const controller = new AbortController();
  const started = performance.now();
  const pending = mock.fetch(`${base}/api/draft_dishes`, {
    method: 'POST',
    headers: { Authorization: `Token token="${token}"`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ draft_dish: { name: 'Never', price: '1.00', organization_id: 1, draft_category_id: 1001 } }),
    signal: controller.signal,
  });
  setTimeout(() => controller.abort(new Error('timeout')), 30);
  await expect(pending).rejects.toThrow('timeout');
  expect(performance.now() - started).toBeLessThan(250);
  // Past the latency: the aborted request must not have been carried out late either.
  await new Promise((resolve) => setTimeout(resolve, 400));
  const after = (await (
    await mock.fetch(`${base}/api/draft_dishes?organization_id=1`, {
      headers: { Authorization: `Token token="${token}"` },
    })
  ).json()) as { draft_dishes: unknown[] };
  expect(after.draft_dishes).toHaveLength(before.draft_dishes.length);
});
