import { expect, test } from 'vitest';
import { call, login, storefrontMock } from '../support/storefront.js';

test('a 503 fault answers the next two matching requests with Retry-After, then the API answers normally', async () => {
  const { mock, control } = await storefrontMock();
  const token = await login(mock, 'dispatcher@demo');
  const armed = await control.POST('/__mock/faults', {
    body: { method: 'GET', path: '/api/orders/*', status: 503, count: 2, retryAfter: 2 },
  });
  expect(armed.response.status).toBe(201);
  expect(armed.data!.fault).toMatchObject({
    method: 'GET',
    path: '/api/orders/*',
    status: 503,
    remaining: 2,
    retryAfter: 2,
    latencyMs: 0,
  });

  for (let i = 0; i < 2; i++) {
    const res = await call(mock, 'GET', '/api/orders/5001', { token });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('2');
    expect(res.body.errors[0]).toMatchObject({ status: '503', code: 'unavailable' });
  }
  expect((await call(mock, 'GET', '/api/orders/5001', { token })).status).toBe(200);
  expect((await control.GET('/__mock/faults')).data!.faults).toEqual([]);
});

test('faults match by method and glob, 429 carries Retry-After, and the control API is never faulted', async () => {
  const { mock, control } = await storefrontMock();
  await control.POST('/__mock/faults', { body: { method: '*', path: '/api/session', status: 429 } });
  expect((await call(mock, 'GET', '/api/orders')).status).toBe(401);
  const limited = await call(mock, 'POST', '/api/session?login=admin@pizza.demo&password=demo');
  expect(limited.status).toBe(429);
  expect(limited.headers.get('retry-after')).toBe('1');
  expect(limited.body.errors[0].code).toBe('rate_limited');

  const refused = await control.POST('/__mock/faults', { body: { method: '*', path: '/__mock/*', status: 500 } });
  expect(refused.response.status).toBe(422);
  expect(refused.error!.errors[0]!.source!.pointer).toBe('/path');
  const empty = await control.POST('/__mock/faults', { body: { method: 'GET', path: '/api/orders' } });
  expect(empty.response.status).toBe(422);
});

test('a latency fault delays the request and lets it through', async () => {
  const { mock, control } = await storefrontMock();
  await control.POST('/__mock/faults', { body: { method: 'POST', path: '/api/session', latencyMs: 150 } });
  const started = performance.now();
  const res = await call(mock, 'POST', '/api/session?login=admin@pizza.demo&password=demo');
  expect(res.status).toBe(200);
  expect(performance.now() - started).toBeGreaterThanOrEqual(140);
  const quick = performance.now();
  await call(mock, 'POST', '/api/session?login=admin@pizza.demo&password=demo');
  expect(performance.now() - quick).toBeLessThan(140);
});

test('faults can be listed, removed one by one or all at once', async () => {
  const { mock, control } = await storefrontMock();
  const a = (
    await control.POST('/__mock/faults', { body: { method: 'GET', path: '/api/restaurants', status: 500, count: 5 } })
  ).data!.fault;
  await control.POST('/__mock/faults', { body: { method: 'GET', path: '/api/couriers', status: 502 } });
  expect((await control.GET('/__mock/faults')).data!.faults.map((f) => f.path)).toEqual([
    '/api/restaurants',
    '/api/couriers',
  ]);
  expect((await control.DELETE('/__mock/faults/{id}', { params: { path: { id: a.id } } })).response.status).toBe(204);
  expect((await control.DELETE('/__mock/faults/{id}', { params: { path: { id: a.id } } })).response.status).toBe(404);
  expect((await control.DELETE('/__mock/faults')).response.status).toBe(204);
  expect((await control.GET('/__mock/faults')).data!.faults).toEqual([]);
  const token = await login(mock, 'dispatcher@demo');
  expect((await call(mock, 'GET', '/api/couriers', { token })).status).toBe(200);
});
