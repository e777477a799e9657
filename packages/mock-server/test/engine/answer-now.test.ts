import { expect, test } from 'vitest';
import { createMock, EngineResponse, type EngineAnswer, type EngineRequest } from '../../src/index.js';
import { login, storefrontMock } from '../support/storefront.js';

/** A request in the engine's light shape, as an adapter builds it. */
function engineRequest(method: string, path: string, headers: Record<string, string>, body?: string): EngineRequest {
  const url = new URL(`http://localhost:4010${path}`);
  const bytes = body === undefined ? undefined : new TextEncoder().encode(body);
  return {
    method,
    url,
    headers: { get: (name) => headers[name.toLowerCase()] ?? null },
    hasBody: bytes !== undefined,
    bytes: () => Promise.resolve(bytes ?? new Uint8Array()),
    toRequest: () => new Request(url, { method, headers, ...(body === undefined ? {} : { body }) }),
  };
}

async function json(answer: EngineAnswer): Promise<{ status: number; body: Record<string, unknown> }> {
  const text = answer instanceof EngineResponse ? String(answer.body) : await answer.text();
  return { status: answer.status, body: JSON.parse(text) as Record<string, unknown> };
}

test('answerNow answers a GET at once, with the same answer as answer()', async () => {
  const mock = createMock();
  const token = await login(mock, 'dispatcher@demo');
  const request = () => engineRequest('GET', '/api/orders/5001', { authorization: `Token token="${token}"` });
  const now = mock.answerNow(request());
  expect(now).not.toBeInstanceOf(Promise);
  const later = await mock.answer(request());
  const [a, b] = [await json(now as EngineAnswer), await json(later)];
  expect(a.status).toBe(200);
  expect((a.body.order as { id: number }).id).toBe(5001);
  expect(a).toEqual(b);
  mock.close();
});

test('answerNow gives a refusal as an answer, never as a throw: 401 without a token, 404 for an unknown path', async () => {
  const mock = createMock();
  const anonymous = mock.answerNow(engineRequest('GET', '/api/orders/5001', {}));
  expect(anonymous).not.toBeInstanceOf(Promise);
  expect((anonymous as EngineAnswer).status).toBe(401);
  const unknown = mock.answerNow(engineRequest('GET', '/api/nothing-here', {}));
  expect((await json(unknown as EngineAnswer)).body.errors).toMatchObject([{ status: '404' }]);
  mock.close();
});

test('answerNow waits for a body: a created dish, and a broken body refused with 400, never a rejection', async () => {
  const mock = createMock();
  const token = await login(mock, 'admin@pizza.demo');
  const headers = { authorization: `Token token="${token}"`, 'content-type': 'application/json' };
  const dish = { draft_dish: { name: 'Calzone', price: '11.00', organization_id: 1, draft_category_id: 1001 } };
  const created = mock.answerNow(engineRequest('POST', '/api/draft_dishes', headers, JSON.stringify(dish)));
  expect(created).toBeInstanceOf(Promise);
  const answer = await json(await created);
  expect(answer.status).toBe(201);
  expect(answer.body.draft_dish).toMatchObject({ name: 'Calzone', price: '11.00' });
  const broken = await mock.answerNow(engineRequest('POST', '/api/draft_dishes', headers, '{"draft_dish":'));
  expect(await json(broken)).toMatchObject({
    status: 400,
    body: { errors: [{ status: '400', code: 'invalid_json' }] },
  });
  mock.close();
});

test('answerNow waits out an armed latency fault before answering', async () => {
  const { mock, control } = await storefrontMock();
  const token = await login(mock, 'dispatcher@demo');
  await control.POST('/__mock/faults', { body: { method: 'GET', path: '/api/orders/*', latencyMs: 60, count: 1 } });
  const started = performance.now();
  const delayed = mock.answerNow(engineRequest('GET', '/api/orders/5001', { authorization: `Token token="${token}"` }));
  expect(delayed).toBeInstanceOf(Promise);
  expect((await delayed).status).toBe(200);
  expect(performance.now() - started).toBeGreaterThanOrEqual(55);
  // The fault is used up: the next request is answered at once again.
  expect(
    mock.answerNow(engineRequest('GET', '/api/orders/5001', { authorization: `Token token="${token}"` })),
  ).not.toBeInstanceOf(Promise);
  mock.close();
});
