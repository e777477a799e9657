// @vitest-environment happy-dom
import { setupServer } from 'msw/node';
import { afterAll, afterEach, beforeAll, expect, test } from 'vitest';
import { createRestoClient } from '@restoapi/sdk';
import { createControlClient, createMock } from '@restoapi/mock-server';
import { createMswHandlers } from '@restoapi/mock-server/msw';
import { mountOrderBoard } from './order-board.js';

// The app calls its real API URL; MSW answers from the stateful mock instead.
const API = 'https://api.pizza-piccolo.test';
let mock = createMock();
const server = setupServer(...createMswHandlers(mock, { baseUrl: API }));
const control = () => createControlClient({ baseUrl: API });

beforeAll(() => server.listen({ onUnhandledRequest: 'error' }));
afterEach(() => {
  mock.close();
  mock = createMock(); // a fresh world per test
  server.resetHandlers(...createMswHandlers(mock, { baseUrl: API }));
});
afterAll(() => server.close());

async function signedIn(maxRetries: number) {
  const api = createRestoClient({ baseUrl: API, maxRetries });
  await api.session.login('admin@pizza.demo', 'demo');
  return api;
}

test('the board lists the restaurant’s orders', async () => {
  const root = document.createElement('div');
  await mountOrderBoard(root, await signedIn(2), [11, 12]);
  expect(root.querySelector('h2')?.textContent).toMatch(/^Orders \(\d+\)$/);
  const items = [...root.querySelectorAll('li')].map((li) => li.textContent);
  expect(items.some((text) => text?.startsWith('PP-5001 · Out for delivery'))).toBe(true);
});

test('a 500 on the first try is retried by the SDK and the user never sees it', async () => {
  await control().POST('/__mock/faults', { body: { method: 'GET', path: '/api/orders', status: 500, count: 1 } });
  const root = document.createElement('div');
  await mountOrderBoard(root, await signedIn(2), [11]);
  expect(root.querySelector('[role=alert]')).toBeNull();
  expect(root.querySelectorAll('li').length).toBeGreaterThan(0);
});

test('without retries the 500 shows an error, and Retry loads the board', async () => {
  await control().POST('/__mock/faults', { body: { method: 'GET', path: '/api/orders', status: 500, count: 1 } });
  const root = document.createElement('div');
  await mountOrderBoard(root, await signedIn(0), [11]);
  expect(root.querySelector('[role=alert]')?.textContent).toContain('500');

  root.querySelector('button')!.click();
  await expect.poll(() => root.querySelectorAll('li').length).toBeGreaterThan(0);
  expect(root.querySelector('[role=alert]')).toBeNull();
});
