import { expect, test } from 'vitest';
import { ANNA, DORA, KENJI, MAX, as, demoMock } from '../support/catalog-client.js';

test('categories come in storefront order with their dish ids derived from the dishes', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const res = await anna('GET', '/api/draft_categories');
  expect(res.status).toBe(200);
  expect(
    res.body.draft_categories.map((c: { id: number; draft_dish_ids: number[] }) => [c.id, c.draft_dish_ids]),
  ).toEqual([
    [1001, [10001, 10002]],
    [1002, [10003]],
  ]);
  expect(res.body.meta).toEqual({ count: 2, total: 2 });
  // Moving a dish changes the derived ids of both categories (it keeps its menu_order 2, after the Cola's 1).
  await anna('PUT', '/api/draft_dishes/10002', { json: { draft_dish: { draft_category_id: 1002 } } });
  expect((await anna('GET', '/api/draft_categories/1002')).body.draft_category.draft_dish_ids).toEqual([10003, 10002]);
});

test('scope: couriers read their organization, a dispatcher all, a filter outside the scope gives an empty list', async () => {
  const mock = demoMock();
  expect((await (await as(mock, MAX))('GET', '/api/draft_categories')).body.draft_categories).toHaveLength(2);
  expect(
    (await (await as(mock, DORA))('GET', '/api/draft_categories?organization_id=2')).body.draft_categories,
  ).toHaveLength(2);
  expect(
    (await (await as(mock, ANNA))('GET', '/api/draft_categories?organization_id=2')).body.draft_categories,
  ).toEqual([]);
  expect((await (await as(mock, KENJI))('GET', '/api/draft_categories/1001')).status).toBe(404);
});

test('a category is created with 201, a Location and menu_order after the last one', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const res = await anna('POST', '/api/draft_categories', {
    json: { draft_category: { name: 'Desserts', organization_id: 1 } },
  });
  expect(res.status).toBe(201);
  expect(res.body.draft_category).toMatchObject({
    name: 'Desserts',
    menu_order: 3,
    photo: null,
    draft_dish_ids: [],
    organization_id: 1,
  });
  expect(res.headers.get('location')).toBe(`/api/draft_categories/${res.body.draft_category.id}`);
  expect((await anna('GET', res.headers.get('location')!)).status).toBe(200);
});

test('create: required fields, unknown fields and a foreign organization are 422 with pointers', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const missing = await anna('POST', '/api/draft_categories', { json: { draft_category: { menu_order: 1 } } });
  expect(missing.status).toBe(422);
  expect(
    missing.body.errors.map((e: { code: string; source: { pointer: string } }) => [e.code, e.source.pointer]).sort(),
  ).toEqual([
    ['required', '/draft_category/name'],
    ['required', '/draft_category/organization_id'],
  ]);
  const unknown = await anna('POST', '/api/draft_categories', {
    json: { draft_category: { name: 'X', organization_id: 1, photo: null } },
  });
  expect(unknown.body.errors[0]).toMatchObject({ code: 'unknown_field', source: { pointer: '/draft_category/photo' } });
  const foreign = await anna('POST', '/api/draft_categories', {
    json: { draft_category: { name: 'X', organization_id: 2 } },
  });
  expect(foreign.status).toBe(422);
  expect(foreign.body.errors[0].source.pointer).toBe('/draft_category/organization_id');
});

test('dispatchers and couriers may not write categories (403)', async () => {
  const mock = demoMock();
  for (const user of [DORA, MAX]) {
    const caller = await as(mock, user);
    expect(
      (await caller('POST', '/api/draft_categories', { json: { draft_category: { name: 'X', organization_id: 1 } } }))
        .status,
    ).toBe(403);
    expect(
      (await caller('PUT', '/api/draft_categories/1001', { json: { draft_category: { name: 'X' } } })).status,
    ).toBe(403);
    expect((await caller('DELETE', '/api/draft_categories/1001')).status).toBe(403);
  }
  expect((await (await as(mock, KENJI))('DELETE', '/api/draft_categories/1001')).status).toBe(404);
});

test('update: name and menu_order change; a GET body can be sent back; other fields are not_editable', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const { draft_category } = (await anna('GET', '/api/draft_categories/1001')).body;
  const back = await anna('PUT', '/api/draft_categories/1001', {
    json: { draft_category: { ...draft_category, draft_dish_ids: [10002, 10001], name: 'Pizzas' } },
  });
  expect(back.status).toBe(200);
  expect(back.body.draft_category).toEqual({ ...draft_category, name: 'Pizzas' });
  const res = await anna('PUT', '/api/draft_categories/1001', {
    json: { draft_category: { organization_id: 2, draft_dish_ids: [10003] } },
  });
  expect(res.status).toBe(422);
  expect(res.body.errors.map((e: { code: string; source: { pointer: string } }) => [e.code, e.source.pointer])).toEqual(
    [
      ['not_editable', '/draft_category/organization_id'],
      ['not_editable', '/draft_category/draft_dish_ids'],
    ],
  );
  expect((await anna('PUT', '/api/draft_categories/1001', { json: { draft_category: {} } })).status).toBe(200);
});

test('deleting a category deletes its dishes; a second DELETE is 404', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  expect((await anna('DELETE', '/api/draft_categories/1001')).status).toBe(204);
  expect((await anna('GET', '/api/draft_dishes/10001')).status).toBe(404);
  expect((await anna('GET', '/api/draft_dishes/10002')).status).toBe(404);
  expect((await anna('GET', '/api/draft_dishes/10003')).status).toBe(200);
  expect((await anna('DELETE', '/api/draft_categories/1001')).status).toBe(404);
});
