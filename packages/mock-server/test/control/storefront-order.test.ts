import { demoSeed, type MockStateJson } from '@restoapi/mock-server';
import { expect, test } from 'vitest';
import { call, margheritaOrder, storefrontMock } from '../support/storefront.js';

type Problem = { code: string; detail: string; source: { pointer: string } };

async function refused(body: unknown, at?: string, state?: MockStateJson): Promise<Problem[]> {
  const { mock } = await storefrontMock(at, state ? { state } : {});
  const res = await call(mock, 'POST', '/__mock/orders', { json: body });
  expect(res.status).toBe(422);
  return res.body.errors as Problem[];
}

const pointers = (problems: Problem[]) => problems.map((p) => p.source.pointer);

test('a storefront order is priced from the published menu, stored pending and announced', async () => {
  const { mock, control } = await storefrontMock();
  const placed = await control.POST('/__mock/orders', { body: { ...margheritaOrder(), payment_source: 'card' } });
  expect(placed.response.status).toBe(201);
  expect(placed.response.headers.get('location')).toBe(`/api/orders/${placed.data!.order.id}`);
  const { order, restaurants, payments } = placed.data!;
  expect(order).toMatchObject({
    number: `PP-${order.id}`,
    status: 'pending',
    restaurant_id: 11,
    client_id: 7001,
    courier_id: null,
    total: '17.50',
    delivery_price: '2.50',
    final_sum: 20,
    change: 50,
    delivery_asap: true,
    delivery_time: 35,
    delivery_at: '2026-11-20T18:05:00.000Z',
    coordinates: 'POINT(13.431 52.4975)',
    address_text: 'Wiener Straße 18, apartment 4, floor 2, Berlin',
  });
  expect(restaurants.map((r) => r.id)).toEqual([11]);
  expect(payments).toMatchObject([{ id: order.payment_id, amount: '20.00', status: 'pending' }]);
  const items = mock.runtime.state.orderItems.filter((item) => item.order_id === order.id);
  expect(items.map((i) => [i.name, i.item_price, i.price, i.config_text])).toEqual([
    ['Margherita', '15.00', '15.00', 'Size: 40 cm; Extra toppings: Mozzarella'],
    ['Cola 0.33 l', '2.50', '2.50', null],
  ]);
  expect(items[0]!.config).toEqual([
    { group: 'Size', name: '40 cm', price: '4.00' },
    { group: 'Extra toppings', name: 'Mozzarella', price: '1.50' },
  ]);
  const notifications = (await control.GET('/__mock/notifications', { params: { query: { order_id: order.id } } }))
    .data!.notifications;
  expect(notifications.map((n) => [n.channel, n.reason])).toEqual([
    ['sms', 'order_created'],
    ['email', 'order_created'],
  ]);
  expect(
    (await control.GET('/__mock/notifications', { params: { query: { order_id: order.id, channel: 'sms' } } })).data!
      .notifications[0]!.to,
  ).toBe('+49 170 1112233');
  // Free delivery from 25.00 in zone 101.
  const big = await control.POST('/__mock/orders', {
    body: {
      ...margheritaOrder(),
      items: [{ dish_id: 10002, amount: 3, config: [{ group: 'Size', items: ['30 cm'] }] }],
    },
  });
  expect(big.data!.order).toMatchObject({ total: '35.70', delivery_price: '0.00', final_sum: 35.7 });
});

test('a closed zone refuses the order, naming delivery_asap or delivery_at', async () => {
  const lateNight = '2026-11-20T23:30:00+01:00';
  const asap = await refused(margheritaOrder(), lateNight);
  expect(pointers(asap)).toEqual(['/delivery_asap']);
  expect(asap[0]!.detail).toContain('opens next at 2026-11-21T10:00:00.000Z');
  const later = await refused({ ...margheritaOrder(), delivery_asap: false, delivery_at: '2026-11-21T02:00:00+01:00' });
  expect(pointers(later)).toEqual(['/delivery_at']);
  expect(pointers(await refused({ ...margheritaOrder(), delivery_asap: false }))).toEqual(['/delivery_at']);
});

test('an address outside every zone is refused at /latitude', async () => {
  expect(pointers(await refused({ ...margheritaOrder(), latitude: 52.6, longitude: 13.2 }))).toEqual(['/latitude']);
  // A restaurant hint limits the zones: Wiener Straße is not in Prenzlauer Berg's zone.
  expect(pointers(await refused({ ...margheritaOrder(), restaurant_id: 12 }))).toEqual(['/latitude']);
});

test('an order below the zone minimum is refused at /items', async () => {
  const problems = await refused({ ...margheritaOrder(), items: [{ dish_id: 10003, amount: 2 }] });
  expect(pointers(problems)).toEqual(['/items']);
  expect(problems[0]!.detail).toContain('12.00');
});

test('configurator choices that do not fit the dish are refused with pointers into the line', async () => {
  const noSize = await refused({ ...margheritaOrder(), items: [{ dish_id: 10001, amount: 2 }] });
  expect(noSize).toMatchObject([{ code: 'invalid_configuration', source: { pointer: '/items/0/config' } }]);
  const unknownSize = await refused({
    ...margheritaOrder(),
    items: [{ dish_id: 10001, amount: 2, config: [{ group: 'Size', items: ['50 cm'] }] }],
  });
  expect(pointers(unknownSize)).toEqual(['/items/0/config/0/items/0']);
  const tooMany = await refused({
    ...margheritaOrder(),
    items: [{ dish_id: 10001, amount: 2, config: [{ group: 'Size', items: ['30 cm', '40 cm'] }] }],
  });
  expect(pointers(tooMany)).toEqual(['/items/0/config/0/items']);
});

test('dishes not published, hidden or unknown are refused at their dish_id', async () => {
  const state = demoSeed(new Date('2026-11-20T17:30:00Z'));
  (state.draftDishes!.rows as unknown[]).push({
    ...(state.draftDishes!.rows[2] as object),
    id: 10004,
    name: 'Calzone',
    external_id: 'pp-calzone',
  });
  const menu = state.publishedMenus!.rows[0] as { dishes: { id: number; is_hidden: boolean }[] };
  menu.dishes.find((dish) => dish.id === 10003)!.is_hidden = true;

  const problems = await refused(
    {
      ...margheritaOrder(),
      items: [
        { dish_id: 10004, amount: 1 },
        { dish_id: 10003, amount: 1 },
        { dish_id: 20001, amount: 1 },
        ...margheritaOrder().items.slice(0, 1),
      ],
    },
    undefined,
    state,
  );
  expect(pointers(problems)).toEqual(['/items/0/dish_id', '/items/1/dish_id', '/items/2/dish_id']);
  expect(problems[0]!.detail).toContain('draft not published yet');
  expect(problems[1]!.detail).toContain('hidden');
});

test('other refusals: cashless where not accepted, unknown organization, body shape', async () => {
  const sushi = {
    ...margheritaOrder(),
    organization_id: 2,
    latitude: 52.511,
    longitude: 13.458,
    payment_source: 'card',
    items: [{ dish_id: 20002, amount: 3 }],
  };
  expect(pointers(await refused(sushi))).toEqual(['/payment_source']);
  expect(pointers(await refused({ ...margheritaOrder(), organization_id: 99 }))).toEqual(['/organization_id']);
  const shape = await refused({ ...margheritaOrder(), items: [], tip: 3 });
  expect(pointers(shape).sort()).toEqual(['/items', '/tip']);
});

test('the published menu is what the storefront shows', async () => {
  const { control } = await storefrontMock();
  const menu = (await control.GET('/__mock/organizations/{id}/menu', { params: { path: { id: 1 } } })).data!.menu;
  expect(menu.organization_id).toBe(1);
  expect(menu.dishes.map((d) => d.id)).toEqual([10001, 10002, 10003]);
  expect(menu.categories.map((c) => [c.id, c.draft_dish_ids])).toEqual([
    [1001, [10001, 10002]],
    [1002, [10003]],
  ]);
  expect((await control.GET('/__mock/organizations/{id}/menu', { params: { path: { id: 99 } } })).response.status).toBe(
    404,
  );
});
