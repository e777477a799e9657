import { afterAll, beforeAll, expect, test } from 'vitest';
import type { MockServer } from '../../src/node.js';
import { benchMock } from './bench-mock.js';
import type { FloorServer } from '../../bench/floor-servers.js';
import { DISH_PARTS, draftDishPartsServer, orderPartsServer, timeDishParts } from '../../bench/parts-servers.js';

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
  const { hot, cold } = timeDishParts(mock, staff, body, 200, 30);
  for (const [part, ns] of Object.entries(hot)) {
    expect(Number.isFinite(ns), part).toBe(true);
    expect(ns, part).toBeGreaterThan(0);
  }
  expect(Object.keys(cold).sort()).toEqual([...Object.keys(hot), 'nothing'].sort());
  for (const [part, ns] of Object.entries(cold)) {
    expect(Number.isFinite(ns), part).toBe(true);
    // The empty call may read as no CPU at all; the parts do work, and the caches are cold for each call.
    if (part !== 'nothing') expect(ns, part).toBeGreaterThan(0);
  }
  // One dish to read the answer's shape from, then the warm-up, the timed hot calls and the cold calls of the handler.
  expect(mock.mock.runtime.state.draftDishes.size - before).toBe(1 + 20 + 200 + 30);
});

test('each ablated parts server leaves out exactly its part: what the others check still refuses, the left-out check no longer does', async () => {
  const headers = { Authorization: `Token token="${staff}"`, 'Content-Type': 'application/json' };
  const dish = JSON.stringify({
    draft_dish: { name: 'Ablated', price: '7.25', draft_category_id: 1001, organization_id: 1, options: [] },
  });
  const created = await (await fetch(`${mock.url}/api/draft_dishes`, { method: 'POST', headers, body: dish })).text();
  const [noAuth, noCheck, noHandler] = await Promise.all(
    DISH_PARTS.map((part) => draftDishPartsServer(mock, { without: [part], created })),
  );
  servers.push(noAuth!, noCheck!, noHandler!);
  const post = (server: FloorServer, body: string, init: { headers: Record<string, string> } = { headers }) =>
    fetch(`${server.url}/api/draft_dishes`, { method: 'POST', body, ...init });

  // Without authenticate: the first request's account answers every later one, even without a token.
  expect((await post(noAuth!, dish)).status).toBe(201);
  expect((await post(noAuth!, dish, { headers: { 'Content-Type': 'application/json' } })).status).toBe(201);
  expect((await post(noAuth!, dish.replace('"Ablated"', '42'))).status).toBe(422);

  // Without validateRequest: a body the document refuses reaches the handler, which still refuses a bad price.
  expect((await post(noCheck!, dish.replace('"Ablated"', '42'))).status).toBe(201);
  expect((await post(noCheck!, dish.replace('"7.25"', '"7.255"'))).status).toBe(422);
  expect((await post(noCheck!, dish, { headers: { 'Content-Type': 'application/json' } })).status).toBe(401);

  // Without the handler: the mock's answer with the sent fields and a new id, kept out of the mock's state.
  const size = mock.mock.runtime.state.draftDishes.size;
  const res = await post(noHandler!, dish.replace('"Ablated"', '"Spread"'));
  expect(res.status).toBe(201);
  const body = (await res.json()) as { draft_dish: { id: number; name: string } };
  expect(body.draft_dish).toEqual({
    ...(JSON.parse(created) as { draft_dish: object }).draft_dish,
    name: 'Spread',
    id: body.draft_dish.id,
  });
  expect(res.headers.get('location')).toBe(`/api/draft_dishes/${body.draft_dish.id}`);
  expect(mock.mock.runtime.state.draftDishes.size).toBe(size);
  // A category of another organization: only the handler knows the state to refuse it.
  expect((await post(noHandler!, dish.replace('1001', '2001'))).status).toBe(201);
  expect((await post(noCheck!, dish.replace('1001', '2001'))).status).toBe(422);
  expect(() => draftDishPartsServer(mock, { without: ['handler'] })).toThrow(/created answer/);
});
