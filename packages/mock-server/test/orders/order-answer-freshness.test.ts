import { expect, test } from 'vitest';
import { createMock, type Mock, type MockEngine } from '../../src/index.js';

// The single-order answer is built from kept JSON (the order's) and its parameter checks are remembered.
// Nothing kept may outlive a write: every way the answer's rows can change is tried here, and the next
// answer must show the change. A cache added to this answer later must keep these passing.

const base = 'http://localhost:4010';

async function tokenOf(mock: MockEngine, login: string): Promise<string> {
  const res = await mock.fetch(`${base}/api/session?login=${login}&password=demo`, { method: 'POST' });
  return ((await res.json()) as { meta: { token: string } }).meta.token;
}

async function orderAnswer(mock: MockEngine, token: string, id = 5001) {
  const res = await mock.fetch(`${base}/api/orders/${id}`, { headers: { Authorization: `Token token="${token}"` } });
  return { status: res.status, body: (await res.json()) as Record<string, { name?: string; id: number }[]> };
}

async function warmed(): Promise<{ mock: Mock; dispatcher: string; staff: string }> {
  const mock = createMock();
  const dispatcher = await tokenOf(mock, 'dispatcher@demo');
  const staff = await tokenOf(mock, 'admin@pizza.demo');
  // Answered twice first, so that whatever is kept is kept.
  await orderAnswer(mock, dispatcher);
  expect((await orderAnswer(mock, dispatcher)).body.restaurants![0]!.name).toBe('Pizza Piccolo Kreuzberg');
  return { mock, dispatcher, staff };
}

test('an API write to the sideloaded restaurant shows in the next order answer', async () => {
  const { mock, dispatcher, staff } = await warmed();
  const put = await mock.fetch(`${base}/api/restaurants/11`, {
    method: 'PUT',
    headers: { Authorization: `Token token="${staff}"`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ restaurant: { name: 'Piccolo Kreuzberg (new)' } }),
  });
  expect(put.status).toBe(200);
  expect((await orderAnswer(mock, dispatcher)).body.restaurants![0]!.name).toBe('Piccolo Kreuzberg (new)');
  mock.close();
});

test('a change made in place to a stored row (as timers and the carrier API make them) shows at once', async () => {
  const { mock, dispatcher } = await warmed();
  const order = mock.runtime.state.orders.get(5001)!;
  const courier = mock.runtime.state.couriers.get(order.courier_id!)!;
  (courier as { name: string }).name = 'Renamed In Place';
  mock.runtime.state.restaurants.get(order.restaurant_id)!.phone = '+49 30 0000000';
  const { body } = await orderAnswer(mock, dispatcher);
  expect(body.couriers![0]!.name).toBe('Renamed In Place');
  expect((body.restaurants![0] as unknown as { phone: string }).phone).toBe('+49 30 0000000');
  // A value that is an object is never kept: a change inside it shows too.
  (courier as unknown as { last_known_position: unknown }).last_known_position = { lat: 1, lon: 2 };
  expect((await orderAnswer(mock, dispatcher)).body.couriers![0]).toMatchObject({ last_known_position: { lat: 1 } });
  (courier as unknown as { last_known_position: { lat: number } }).last_known_position.lat = 3;
  expect((await orderAnswer(mock, dispatcher)).body.couriers![0]).toMatchObject({ last_known_position: { lat: 3 } });
  mock.close();
});

test('the control API replacing the state (PUT /__mock/state, reset) answers from the new rows', async () => {
  const { mock, dispatcher } = await warmed();
  const state = mock.exportState();
  (state.restaurants!.rows as { id: number; name: string }[]).find((r) => r.id === 11)!.name = 'Loaded Name';
  const loaded = await mock.fetch(`${base}/__mock/state`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(state),
  });
  expect(loaded.status).toBeLessThan(300);
  const token = await tokenOf(mock, 'dispatcher@demo');
  expect((await orderAnswer(mock, token)).body.restaurants![0]!.name).toBe('Loaded Name');
  expect((await mock.fetch(`${base}/__mock/reset`, { method: 'POST' })).status).toBeLessThan(300);
  const again = await tokenOf(mock, 'dispatcher@demo');
  expect((await orderAnswer(mock, again)).body.restaurants![0]!.name).toBe('Pizza Piccolo Kreuzberg');
  expect((await orderAnswer(mock, dispatcher)).status).toBe(401);
  mock.close();
});

test('an order import answers the imported orders with their own sideloads', async () => {
  const { mock, dispatcher, staff } = await warmed();
  const res = await mock.fetch(`${base}/api/organizations/1/import/orders`, {
    method: 'POST',
    headers: { Authorization: `Token token="${staff}"`, 'Content-Type': 'application/json' },
    body: JSON.stringify({
      orders: [
        {
          external_id: 'fresh-1',
          status: 'complete',
          city: 'Berlin',
          address: 'Wiener Straße 18',
          latitude: 52.4975,
          longitude: 13.431,
          total: 17.5,
          contact_name: 'Fresh Client',
          contact_phone: '+49 170 0000000',
          payment_source: 'cash',
          buddies: [{ items: [{ name: 'Margherita', amount: 1, price: 15, item_price: 15 }] }],
        },
      ],
    }),
  });
  const imported = ((await res.json()) as { organization_import: { status: string; order_id?: number; id?: number }[] })
    .organization_import[0]!;
  expect(imported.status).toBe('imported');
  const id = mock.runtime.state.orders.findWhere('external_id' as never, 'fresh-1' as never)!.id;
  const { status, body } = await orderAnswer(mock, dispatcher, id);
  expect(status).toBe(200);
  expect(body.restaurants![0]!.id).toBe(mock.runtime.state.orders.get(id)!.restaurant_id);
  mock.close();
});

test('each session answers from its own rows: a change in one is not served to another', async () => {
  const { mock, dispatcher } = await warmed();
  const other = mock.session('other');
  const otherStaff = await tokenOf(other, 'admin@pizza.demo');
  const otherDispatcher = await tokenOf(other, 'dispatcher@demo');
  await orderAnswer(other, otherDispatcher);
  await other.fetch(`${base}/api/restaurants/11`, {
    method: 'PUT',
    headers: { Authorization: `Token token="${otherStaff}"`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ restaurant: { name: 'Only In Other' } }),
  });
  expect((await orderAnswer(other, otherDispatcher)).body.restaurants![0]!.name).toBe('Only In Other');
  expect((await orderAnswer(mock, dispatcher)).body.restaurants![0]!.name).toBe('Pizza Piccolo Kreuzberg');
  mock.close();
});

test('the virtual clock: a token that expires is refused although the same request was answered before', async () => {
  const mock = createMock({ config: { tokenTtlMs: 60_000 } });
  const token = await tokenOf(mock, 'dispatcher@demo');
  expect((await orderAnswer(mock, token)).status).toBe(200);
  expect((await orderAnswer(mock, token)).status).toBe(200);
  await mock.fetch(`${base}/__mock/clock/advance`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ ms: 120_000 }),
  });
  expect((await orderAnswer(mock, token)).status).toBe(401);
  mock.close();
});
