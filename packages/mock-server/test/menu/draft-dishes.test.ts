import { expect, test } from 'vitest';
import { dishRecord } from '../../src/model/dish.js';
import { ANNA, DORA, KENJI, MAX, as, demoMock } from '../support/catalog-client.js';

const cola = { name: 'Fanta 0.33 l', price: 2.5, draft_category_id: 1002, organization_id: 1 };

test('dishes are listed in storefront order and narrowed by organization and category', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  // Put the Drinks category first: its dish now leads the list.
  await anna('PUT', '/api/draft_categories/1002', { json: { draft_category: { menu_order: 0 } } });
  const all = await anna('GET', '/api/draft_dishes');
  expect(all.body.draft_dishes.map((d: { id: number }) => d.id)).toEqual([10003, 10001, 10002]);
  expect(all.body.meta).toEqual({ count: 3, total: 3 });
  const pizza = await anna('GET', '/api/draft_dishes?draft_category_id=1001');
  expect(pizza.body.draft_dishes.map((d: { id: number }) => d.id)).toEqual([10001, 10002]);
  expect((await anna('GET', '/api/draft_dishes?draft_category_id=2001')).body.draft_dishes).toEqual([]);
  const dora = await as(mock, DORA);
  expect(
    (await dora('GET', '/api/draft_dishes?organization_id=2')).body.draft_dishes.map((d: { id: number }) => d.id),
  ).toEqual([20001, 20002, 20003]);
});

test('a dish is created with 201, a Location, decided defaults and decimals as strings', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const res = await anna('POST', '/api/draft_dishes/', { json: { draft_dish: { ...cola, weight: 330.0 } } });
  expect(res.status).toBe(201);
  expect(res.headers.get('location')).toBe(`/api/draft_dishes/${res.body.draft_dish.id}`);
  expect(res.body.draft_dish).toMatchObject({
    name: 'Fanta 0.33 l',
    price: '2.50',
    weight: '330',
    menu_order: 2,
    is_hidden: false,
    description: '',
    ingredients: '',
    external_id: null,
    options: null,
    photo: null,
  });
  const stringy = await anna('POST', '/api/draft_dishes', {
    json: { draft_dish: { ...cola, price: '3', weight: '12.50' } },
  });
  expect(stringy.body.draft_dish).toMatchObject({ price: '3.00', weight: '12.5', menu_order: 3 });
});

test('a created dish is stored once, as the record model builds it, and exported with its id last', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const sent = { ...cola, external_id: 'fanta', options: null };
  const res = await anna('POST', '/api/draft_dishes', { json: { draft_dish: sent } });
  const id = res.body.draft_dish.id as number;
  const stored = mock.runtime.state.draftDishes.get(id)!;
  // The record's fields in dishRecord's order, then the id the table gave: what the state export writes.
  expect(Object.keys(stored)).toEqual([...Object.keys(dishRecord({ ...cola, price: '2.50' })), 'id']);
  expect(stored).toEqual({ ...res.body.draft_dish });
  expect(mock.runtime.state.draftDishes.where('draft_category_id', 1002)).toContain(stored);
  // The next dish gets the next id and goes after it.
  const next = await anna('POST', '/api/draft_dishes', { json: { draft_dish: { ...cola, name: 'Sprite' } } });
  expect(next.body.draft_dish).toMatchObject({ id: id + 1, menu_order: stored.menu_order + 1 });
});

test('create: every missing required field is reported with its pointer', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const res = await anna('POST', '/api/draft_dishes', { json: { draft_dish: { description: 'x' } } });
  expect(res.status).toBe(422);
  expect(res.body.errors.map((e: { code: string; source: { pointer: string } }) => e.source.pointer).sort()).toEqual([
    '/draft_dish/draft_category_id',
    '/draft_dish/name',
    '/draft_dish/organization_id',
    '/draft_dish/price',
  ]);
  expect(res.body.errors.every((e: { code: string }) => e.code === 'required')).toBe(true);
});

test('create: unknown fields, a price with three decimals, a foreign category and a duplicate external_id are 422', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const unknown = await anna('POST', '/api/draft_dishes', { json: { draft_dish: { ...cola, spicy: true } } });
  expect(unknown.body.errors[0]).toMatchObject({ code: 'unknown_field', source: { pointer: '/draft_dish/spicy' } });
  const price = await anna('POST', '/api/draft_dishes', { json: { draft_dish: { ...cola, price: 2.505 } } });
  expect(price.status).toBe(422);
  expect(price.body.errors[0]).toMatchObject({ code: 'invalid_value', source: { pointer: '/draft_dish/price' } });
  const category = await anna('POST', '/api/draft_dishes', {
    json: { draft_dish: { ...cola, draft_category_id: 2001 } },
  });
  expect(category.body.errors[0].source.pointer).toBe('/draft_dish/draft_category_id');
  const org = await anna('POST', '/api/draft_dishes', {
    json: { draft_dish: { ...cola, organization_id: 2, draft_category_id: 2001 } },
  });
  expect(org.body.errors[0].source.pointer).toBe('/draft_dish/organization_id');
  const duplicate = await anna('POST', '/api/draft_dishes', {
    json: { draft_dish: { ...cola, external_id: 'pp-margherita' } },
  });
  expect(duplicate.body.errors[0].source.pointer).toBe('/draft_dish/external_id');
  expect((await anna('GET', '/api/draft_dishes?organization_id=1')).body.draft_dishes).toHaveLength(3);
});

test('a configurator that breaks its rules is 422 invalid_configuration pointing into options', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const options = [
    { name: 'Size', multiple: false, items: [{ name: '30 cm', price: 0 }] },
    {
      name: 'Extras',
      multiple: true,
      min: 3,
      max: 2,
      items: [
        { name: 'A', price: 1 },
        { name: 'A', price: '0.50' },
      ],
    },
  ];
  const res = await anna('POST', '/api/draft_dishes', { json: { draft_dish: { ...cola, options } } });
  expect(res.status).toBe(422);
  expect(res.body.errors.map((e: { code: string; source: { pointer: string } }) => [e.code, e.source.pointer])).toEqual(
    [
      ['invalid_configuration', '/draft_dish/options/1/items/1/name'],
      ['invalid_configuration', '/draft_dish/options/1/max'],
      ['invalid_configuration', '/draft_dish/options/1/min'],
    ],
  );
  // Stored as sent: a string price stays a string.
  const good = await anna('POST', '/api/draft_dishes', {
    json: {
      draft_dish: { ...cola, options: [options[0], { ...options[1], min: 0, items: [{ name: 'A', price: '0.50' }] }] },
    },
  });
  expect(good.status).toBe(201);
  expect(good.body.draft_dish.options[1].items[0].price).toBe('0.50');
});

test('update: every field but id, organization_id and photo is editable; the dish may move within its organization', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const { draft_dish } = (await anna('GET', '/api/draft_dishes/10001')).body;
  const res = await anna('PUT', '/api/draft_dishes/10001', {
    json: { draft_dish: { ...draft_dish, price: 10, weight: null, draft_category_id: 1002, options: null } },
  });
  expect(res.status).toBe(200);
  expect(res.body.draft_dish).toMatchObject({ price: '10.00', weight: null, draft_category_id: 1002, options: null });
  expect((await anna('GET', '/api/draft_dishes/10001')).body).toEqual(res.body);
  const foreign = await anna('PUT', '/api/draft_dishes/10001', { json: { draft_dish: { draft_category_id: 2001 } } });
  expect(foreign.status).toBe(422);
  expect(foreign.body.errors[0].source.pointer).toBe('/draft_dish/draft_category_id');
  const fixed = await anna('PUT', '/api/draft_dishes/10001', {
    json: { draft_dish: { id: 10002, organization_id: 2 } },
  });
  expect(
    fixed.body.errors.map((e: { code: string; source: { pointer: string } }) => [e.code, e.source.pointer]),
  ).toEqual([
    ['not_editable', '/draft_dish/id'],
    ['not_editable', '/draft_dish/organization_id'],
  ]);
});

test('scope: staff of another organization gets 404; dispatchers and couriers get 403 on writes', async () => {
  const mock = demoMock();
  const kenji = await as(mock, KENJI);
  expect((await kenji('GET', '/api/draft_dishes/10001')).status).toBe(404);
  expect((await kenji('PUT', '/api/draft_dishes/10001', { json: { draft_dish: { name: 'x' } } })).status).toBe(404);
  expect((await kenji('DELETE', '/api/draft_dishes/10001')).status).toBe(404);
  for (const user of [DORA, MAX]) {
    const caller = await as(mock, user);
    expect((await caller('GET', '/api/draft_dishes/10001')).status).toBe(200);
    expect((await caller('POST', '/api/draft_dishes', { json: { draft_dish: cola } })).status).toBe(403);
    expect((await caller('PUT', '/api/draft_dishes/10001', { json: { draft_dish: { name: 'x' } } })).status).toBe(403);
    expect((await caller('DELETE', '/api/draft_dishes/10001')).status).toBe(403);
  }
});

test('delete answers 204 and a repeated DELETE 404', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  expect((await anna('DELETE', '/api/draft_dishes/10002')).status).toBe(204);
  expect((await anna('DELETE', '/api/draft_dishes/10002')).status).toBe(404);
  expect((await anna('GET', '/api/draft_categories/1001')).body.draft_category.draft_dish_ids).toEqual([10001]);
});

test('a JSON body without Content-Type application/json is 415', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const res = await anna('POST', '/api/draft_dishes', {
    body: JSON.stringify({ draft_dish: cola }),
    headers: { 'Content-Type': 'text/plain' },
  });
  expect(res.status).toBe(415);
});

test('external_id is unique within an organization: a dish keeps its own, a deleted dish frees it, another organization may use it', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const kenji = await as(mock, KENJI);
  const fanta = (await anna('POST', '/api/draft_dishes', { json: { draft_dish: { ...cola, external_id: 'fanta' } } }))
    .body.draft_dish;
  // The same dish sent back with its own external id is no duplicate.
  const renamed = await anna('PUT', `/api/draft_dishes/${fanta.id}`, {
    json: { draft_dish: { name: 'Fanta 0.5 l', external_id: 'fanta' } },
  });
  expect(renamed.status).toBe(200);
  const again = await anna('POST', '/api/draft_dishes', { json: { draft_dish: { ...cola, external_id: 'fanta' } } });
  expect(again.status).toBe(422);
  expect(again.body.errors[0].detail).toContain(`dish ${fanta.id}`);
  // Another organization's menu is its own.
  const rolls = { name: 'Fanta', price: 2.5, draft_category_id: 2001, organization_id: 2, external_id: 'fanta' };
  expect((await kenji('POST', '/api/draft_dishes', { json: { draft_dish: rolls } })).status).toBe(201);
  // A changed or deleted dish frees its external id.
  await anna('PUT', `/api/draft_dishes/${fanta.id}`, { json: { draft_dish: { external_id: 'fanta-old' } } });
  const freed = await anna('POST', '/api/draft_dishes', { json: { draft_dish: { ...cola, external_id: 'fanta' } } });
  expect(freed.status).toBe(201);
  expect((await anna('DELETE', `/api/draft_dishes/${freed.body.draft_dish.id}`)).status).toBe(204);
  expect(
    (await anna('POST', '/api/draft_dishes', { json: { draft_dish: { ...cola, external_id: 'fanta' } } })).status,
  ).toBe(201);
});
