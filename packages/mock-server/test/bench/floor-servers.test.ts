import { afterAll, beforeAll, expect, test } from 'vitest';
import { createMockServer, type MockServer } from '../../src/node.js';
import { draftDishFloor, orderFloor, orderPageFloor, type FloorServer } from '../../bench/floor-servers.js';
import { seedWithOrders } from '../orders/order-fixtures.js';

// The bench reads the CPU targets against these servers, so they must give the mock's answers and refuse
// what the mock refuses: a floor that skipped its work would make every target look easy.

let mock: MockServer;
let dispatcher: string;
let staff: string;
const floors: FloorServer[] = [];

async function token(login: string): Promise<string> {
  const res = await fetch(`${mock.url}/api/session?login=${login}&password=demo`, { method: 'POST' });
  return ((await res.json()) as { meta: { token: string } }).meta.token;
}

function started(floor: FloorServer): FloorServer {
  floors.push(floor);
  return floor;
}

const dish = (fields: Record<string, unknown>) =>
  JSON.stringify({ draft_dish: { draft_category_id: 1001, organization_id: 1, ...fields } });

beforeAll(async () => {
  mock = await createMockServer();
  dispatcher = await token('dispatcher@demo');
  staff = await token('admin@pizza.demo');
});

afterAll(async () => {
  for (const floor of floors) floor.server.close();
  await mock.close();
});

test('the order floor answers the mock’s very bytes, and 401 or 404 where the mock does', async () => {
  const headers = { Authorization: `Token token="${dispatcher}"` };
  const text = await (await fetch(`${mock.url}/api/orders/5001`, { headers })).text();
  const floor = started(await orderFloor(dispatcher, new Map([[5001, { text }]])));

  const res = await fetch(`${floor.url}/api/orders/5001`, { headers });
  expect(res.status).toBe(200);
  expect(await res.text()).toBe(text);
  expect(
    (await fetch(`${floor.url}/api/orders/5001`, { headers: { Authorization: 'Token token="nope"' } })).status,
  ).toBe(401);
  expect((await fetch(`${floor.url}/api/orders/5002`, { headers })).status).toBe(404);
  expect((await fetch(`${floor.url}/api/orders/05001`, { headers })).status).toBe(404);
});

test('the order floor refuses to start when its answer is not the mock’s', async () => {
  const headers = { Authorization: `Token token="${dispatcher}"` };
  const text = await (await fetch(`${mock.url}/api/orders/5001`, { headers })).text();
  await expect(
    orderFloor(dispatcher, new Map([[5001, { text: JSON.stringify(JSON.parse(text), null, 1) }]])),
  ).rejects.toThrow(/not the mock's/);
});

test('the dish floor validates with the document’s schema and stores each dish under a new id', async () => {
  const headers = { Authorization: `Token token="${staff}"`, 'Content-Type': 'application/json' };
  const body = dish({ name: 'Floor', price: '9.50' });
  const created = await (await fetch(`${mock.url}/api/draft_dishes`, { method: 'POST', headers, body })).text();
  const floor = started(await draftDishFloor(staff, created));
  const post = (init: RequestInit) => fetch(`${floor.url}/api/draft_dishes`, { method: 'POST', headers, ...init });

  const first = await post({ body });
  const second = await post({ body });
  expect(first.status).toBe(201);
  const [a, b] = [(await first.json()) as { draft_dish: { id: number; name: string } }, await second.json()];
  expect(a.draft_dish.name).toBe('Floor');
  expect((b as { draft_dish: { id: number } }).draft_dish.id).toBe(a.draft_dish.id + 1);
  expect(second.headers.get('location')).toBe(`/api/draft_dishes/${a.draft_dish.id + 1}`);

  // What the mock refuses for the body, the floor refuses too (the mock's status, 422, for a schema failure).
  const unnamed = dish({ price: '9.50' });
  expect((await fetch(`${mock.url}/api/draft_dishes`, { method: 'POST', headers, body: unnamed })).status).toBe(422);
  expect((await post({ body: unnamed })).status).toBe(422);
  expect((await post({ body: '{"draft_dish":' })).status).toBe(400);
  expect((await post({ body: new Uint8Array([0x7b, 0xff, 0x7d]) })).status).toBe(400);
  expect((await post({ body, headers: { ...headers, Authorization: 'Token token="nope"' } })).status).toBe(401);
});

test('the page floor answers the mock’s very pages from its index, and refuses the queries the mock refuses', async () => {
  const big = await createMockServer({ state: seedWithOrders(1_000) });
  try {
    const login = await fetch(`${big.url}/api/session?login=dispatcher@demo&password=demo`, { method: 'POST' });
    const bigToken = ((await login.json()) as { meta: { token: string } }).meta.token;
    const headers = { Authorization: `Token token="${bigToken}"` };
    const mockAnswer = async (path: string) => (await fetch(big.url + path, { headers })).text();
    const orders: Record<string, unknown>[] = [];
    for (let page = 1; page <= 11; page++) {
      orders.push(...(JSON.parse(await mockAnswer(`/api/orders?per_page=100&page=${page}`)) as { orders: [] }).orders);
    }
    expect(orders.length).toBeGreaterThan(1_000);
    const paths = [
      '/api/orders?per_page=50&status=delivery&status=pending&restaurant_id=11&restaurant_id=12&sort_by=-delivery_at',
      '/api/orders?per_page=50&page=3&status=delivery&status=pending&restaurant_id=11&restaurant_id=12&sort_by=-delivery_at',
      '/api/orders?status=complete&sort_by=created_at&page=2',
      '/api/orders?restaurant_id=21&sort_by=-id&per_page=7',
      '/api/orders?per_page=100&page=9',
      '/api/orders?status=cooking&restaurant_id=99',
      '/api/orders?colour=red&per_page=3',
    ];
    const checks = new Map<string, string>();
    for (const path of paths) checks.set(path, await mockAnswer(path));
    const floor = started(await orderPageFloor(bigToken, orders, checks));

    for (const path of paths) expect(await (await fetch(floor.url + path, { headers })).text()).toBe(checks.get(path));
    for (const refused of ['per_page=101', 'page=0', 'per_page=05', 'status=lost', 'sort_by=colour']) {
      expect((await fetch(`${big.url}/api/orders?${refused}`, { headers })).status).toBe(400);
      expect((await fetch(`${floor.url}/api/orders?${refused}`, { headers })).status).toBe(400);
    }
    expect((await fetch(`${floor.url}/api/orders`, { headers: { Authorization: 'Token token="nope"' } })).status).toBe(
      401,
    );
    // A floor whose answer differs from the mock's does not start.
    await expect(orderPageFloor(bigToken, orders.slice(1), checks)).rejects.toThrow(/not the mock's/);
  } finally {
    await big.close();
  }
});
