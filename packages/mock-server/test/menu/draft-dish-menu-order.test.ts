import { expect, test } from 'vitest';
import { ANNA, as, demoMock } from '../support/catalog-client.js';

const dish = (name: string, draft_category_id = 1002) => ({
  draft_dish: { name, price: 2.5, draft_category_id, organization_id: 1 },
});

test('new dishes go after the last dish of their category, whatever changed the category in between', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const orderOf = async (name: string, category?: number): Promise<{ id: number; menu_order: number }> =>
    (await anna('POST', '/api/draft_dishes', { json: dish(name, category) })).body.draft_dish;

  // A run of creates in one category: 2, 3, 4 (the seeded Cola has 1).
  expect((await orderOf('a')).menu_order).toBe(2);
  expect((await orderOf('b')).menu_order).toBe(3);
  const c = await orderOf('c');
  expect(c.menu_order).toBe(4);
  // Another category in between does not disturb this one.
  expect((await orderOf('pizza', 1001)).menu_order).toBe(3);
  expect((await orderOf('d')).menu_order).toBe(5);

  // The last dish deleted: the next one takes its place.
  const e = await orderOf('e');
  expect(e.menu_order).toBe(6);
  expect((await anna('DELETE', `/api/draft_dishes/${e.id}`)).status).toBe(204);
  expect((await orderOf('f')).menu_order).toBe(6);

  // A dish moved far down by an update: new dishes go after it.
  await anna('PUT', `/api/draft_dishes/${c.id}`, { json: { draft_dish: { menu_order: 40 } } });
  expect((await orderOf('g')).menu_order).toBe(41);
  // An explicit menu_order is kept, and counts for the next one.
  expect(
    (await anna('POST', '/api/draft_dishes', { json: { draft_dish: { ...dish('h').draft_dish, menu_order: 90 } } }))
      .body.draft_dish.menu_order,
  ).toBe(90);
  expect((await orderOf('i')).menu_order).toBe(91);
  // A dish moved into the category by an update counts too.
  const late = await orderOf('late', 1001);
  await anna('PUT', `/api/draft_dishes/${late.id}`, {
    json: { draft_dish: { draft_category_id: 1002, menu_order: 500 } },
  });
  expect((await orderOf('j')).menu_order).toBe(501);
  expect((await anna('GET', '/api/draft_categories/1002')).body.draft_category.draft_dish_ids.at(-1)).toBeGreaterThan(
    late.id,
  );
});
