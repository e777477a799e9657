import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import { createMock } from '@restoapi/mock-server';
import { createMswHandlers } from '@restoapi/mock-server/msw';

// The same engine behind MSW: a client that calls the "real" API URL gets the mock's answers.
const API = 'https://api.restaurant.test';
const mock = createMock({ validateResponses: true });
const server = setupServer(...createMswHandlers(mock, { baseUrl: API }));

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => server.resetHandlers());
afterAll(() => {
  server.close();
  mock.close();
});

async function login(): Promise<string> {
  const res = await fetch(`${API}/api/session?login=admin@pizza.demo&password=demo`, { method: 'POST' });
  expect(res.status).toBe(200);
  return ((await res.json()) as { meta: { token: string } }).meta.token;
}

test('reads go through MSW to the mock engine', async () => {
  const token = await login();
  const res = await fetch(`${API}/api/orders/5001`, { headers: { Authorization: `Token token="${token}"` } });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { order: { number: string }; restaurants: { id: number }[] };
  expect(body.order.number).toBe('PP-5001');
  expect(body.restaurants[0]!.id).toBe(11);
});

test('writes with JSON bodies change the same instance the next read sees', async () => {
  const token = await login();
  const headers = { Authorization: `Token token="${token}"`, 'Content-Type': 'application/json' };
  const created = await fetch(`${API}/api/draft_dishes`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      draft_dish: { name: 'Calzone', price: '10.50', draft_category_id: 1001, organization_id: 1 },
    }),
  });
  expect(created.status).toBe(201);
  const { draft_dish } = (await created.json()) as { draft_dish: { id: number } };
  const read = await fetch(`${API}/api/draft_dishes/${draft_dish.id}`, { headers });
  expect(((await read.json()) as { draft_dish: { name: string } }).draft_dish.name).toBe('Calzone');
});

test('the carrier API under /api-delivery and errors answer as documented', async () => {
  const res = await fetch(`${API}/api-delivery/orders/not-a-real-secure-id`);
  expect(res.status).toBe(404);
  expect(((await res.json()) as { errors: { code: string }[] }).errors[0]!.code).toBe('not_found');
});
