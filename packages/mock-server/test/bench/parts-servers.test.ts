import { afterAll, beforeAll, expect, test } from 'vitest';
import type { MockServer } from '../../src/node.js';
import { benchMock } from './bench-mock.js';
import type { FloorServer } from '../../bench/floor-servers.js';
import { draftDishPartsServer, orderPartsServer, timeDishParts } from '../../bench/parts-servers.js';

// The parts servers split the mock's cost into its engine and its parts. They must answer what the mock
// answers, from its state, or mock / parts would not be the engine's share.

let mock: MockServer;
let dispatcher: string;
let staff: string;
const servers: FloorServer[] = [];

beforeAll(async () => {
  ({ mock, dispatcher, staff } = await benchMock());
});

afterAll(async () => {
  for (const server of servers) server.server.close();
  await mock.close();
});

test('the order parts server answers the mock’s very body and refuses what the mock refuses', async () => {
  const parts = await orderPartsServer(mock);
  servers.push(parts);
  const headers = { Authorization: `Token token="${dispatcher}"` };
  const fromMock = await fetch(`${mock.url}/api/orders/5001`, { headers });
  const res = await fetch(`${parts.url}/api/orders/5001`, { headers });
  expect(res.status).toBe(200);
  expect(await res.text()).toBe(await fromMock.text());
  expect(res.headers.get('vary')).toBe('Origin');
  expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-z]+$/);
  for (const [path, init] of [
    ['/api/orders/5001', {}],
    ['/api/orders/5001', { headers: { Authorization: 'Token token="nope"' } }],
    ['/api/orders/999999', { headers }],
    ['/api/orders/0x1', { headers }],
    ['/api/orders/1e3', { headers }],
  ] as const) {
    const [mine, theirs] = await Promise.all([fetch(parts.url + path, init), fetch(mock.url + path, init)]);
    expect(mine.status, path).toBe(theirs.status);
    expect(mine.status, path).toBeGreaterThanOrEqual(400);
  }
});

test('the draft dish parts server creates the dish the mock creates, in the mock’s state', async () => {
  const parts = await draftDishPartsServer(mock);
  servers.push(parts);
  const headers = { Authorization: `Token token="${staff}"`, 'Content-Type': 'application/json' };
  const dish = JSON.stringify({
    draft_dish: { name: 'Bench', price: '9.5', draft_category_id: 1001, organization_id: 1, options: [] },
  });
  const fromMock = (await (
    await fetch(`${mock.url}/api/draft_dishes`, { method: 'POST', headers, body: dish })
  ).json()) as { draft_dish: { id: number; menu_order: number } };
  const res = await fetch(`${parts.url}/api/draft_dishes`, { method: 'POST', headers, body: dish });
  expect(res.status).toBe(201);
  const created = (await res.json()) as { draft_dish: { id: number; menu_order: number } };
  // The next id and the next menu place of the same state: the very dish the mock would have made next.
  expect(created).toEqual({
    draft_dish: {
      ...fromMock.draft_dish,
      id: fromMock.draft_dish.id + 1,
      menu_order: fromMock.draft_dish.menu_order + 1,
    },
  });
  expect(res.headers.get('location')).toBe(`/api/draft_dishes/${created.draft_dish.id}`);
  expect(mock.mock.runtime.state.draftDishes.get(created.draft_dish.id)).toBeDefined();
  for (const [body, init] of [
    [dish, { headers: { 'Content-Type': 'application/json' } }],
    [dish.replace('"9.5"', '"9.555"'), { headers }],
    [dish.replace('1001', '2001'), { headers }],
    [dish.replace('"Bench"', '42'), { headers }],
    ['{"draft_dish":', { headers }],
  ] as const) {
    const [mine, theirs] = await Promise.all([
      fetch(`${parts.url}/api/draft_dishes`, { method: 'POST', body, ...init }),
      fetch(`${mock.url}/api/draft_dishes`, { method: 'POST', body, ...init }),
    ]);
    expect(mine.status, body).toBe(theirs.status);
    expect(mine.status, body).toBeGreaterThanOrEqual(400);
  }
});

test('the parts of a created dish are timed on the mock itself: every figure a real cost, every handler call a stored dish', () => {
  const body = JSON.stringify({
    draft_dish: { name: 'Timed', price: '4.50', draft_category_id: 1001, organization_id: 1 },
  });
  const before = mock.mock.runtime.state.draftDishes.size;
  const parts = timeDishParts(mock, staff, body, 200);
  for (const [part, ns] of Object.entries(parts)) {
    expect(Number.isFinite(ns), part).toBe(true);
    expect(ns, part).toBeGreaterThan(0);
  }
  // One dish to read the answer's shape from, then the warm-up and the timed calls of the handler.
  expect(mock.mock.runtime.state.draftDishes.size - before).toBe(1 + 20 + 200);
});
