import { afterAll, beforeAll, expect, test } from 'vitest';
import { createApiDescription } from '@restoapi/openapi';
import { startPrism, type RunningPrism } from '../../scripts/testing/start-prism.js';

// Prism serves the bundled document as a static mock: a check that the
// description is usable by standard tooling, not only by ours.
const api = createApiDescription();
let prism: RunningPrism;
let baseUrl: string;

beforeAll(async () => {
  prism = await startPrism();
  baseUrl = prism.url;
  // Prism logs an error line for every operation it cannot serve; there must be none.
  expect(prism.startupOutput).not.toMatch(/\[(CLI|HTTP SERVER)\][^\n]*(error|fatal)/i);
}, 40_000);

afterAll(() => {
  prism?.stop();
});

const auth = { Authorization: 'Token token="demo"' };

async function call(
  method: string,
  path: string,
  body?: unknown,
): Promise<{ status: number; contentType: string | null; body: unknown }> {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { ...auth, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  const contentType = response.headers.get('content-type');
  return {
    status: response.status,
    contentType,
    body: contentType?.includes('json') ? await response.json() : await response.text(),
  };
}

test.each([
  ['getOrder', 'GET', '/api/orders/5001'],
  ['listOrders', 'GET', '/api/orders'],
  ['getOrganization', 'GET', '/api/organizations/1'],
  ['listDraftDishes', 'GET', '/api/draft_dishes'],
  ['getDeliveryZone', 'GET', '/api/delivery_zones/101'],
  ['getCarrierOrder', 'GET', '/api-delivery/orders/c9f3b2a4e1d84f0b9a7c6e5d4f3a2b1c'],
])('Prism answers %s with a documented example', async (operationId, method, path) => {
  const response = await call(method, path);
  expect(response.status).toBe(200);
  expect(api.validateResponse(operationId, response)).toEqual({ valid: true, value: undefined });
});

test('Prism serves the carrier API at its real address only: /orders/{x} is the main API', async () => {
  const carrierPut = await fetch(`${baseUrl}/orders/c9f3b2a4e1d84f0b9a7c6e5d4f3a2b1c/delivery`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ status: 'delivering' }),
  });
  expect(carrierPut.status).toBe(404);
  const delivery = await fetch(`${baseUrl}/api-delivery/orders/c9f3b2a4e1d84f0b9a7c6e5d4f3a2b1c/delivery`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ status: 'delivering' }),
  });
  expect(delivery.status).toBe(200);
});

test('Prism refuses a request without a token as the document says', async () => {
  const response = await fetch(`${baseUrl}/api/orders/5001`);
  expect(response.status).toBe(401);
});
