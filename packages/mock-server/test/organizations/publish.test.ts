import { expect, test } from 'vitest';
import { ANNA, as, demoMock } from '../support/catalog-client.js';

test('publishing snapshots the drafts under a new version and answers a summary', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const res = await anna('POST', '/api/organizations/1/publish');
  expect(res.status).toBe(200);
  expect(res.body.menu).toMatchObject({ organization_id: 1, version: 2, category_count: 2, dish_count: 3 });
  const again = await anna('POST', '/api/organizations/1/publish');
  expect(again.body.menu.version).toBe(3);
  const published = mock.runtime.state.publishedMenus.get(1)!;
  expect(published.version).toBe(3);
  expect(published.categories.map((c) => [c.id, c.draft_dish_ids])).toEqual([
    [1001, [10001, 10002]],
    [1002, [10003]],
  ]);
});

test('draft changes do not reach the storefront until the menu is published', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  expect((await anna('PUT', '/api/draft_dishes/10001', { json: { draft_dish: { price: 10.5 } } })).status).toBe(200);
  expect(mock.runtime.state.publishedMenus.get(1)!.dishes.find((d) => d.id === 10001)!.price).toBe('9.50');
  await anna('POST', '/api/organizations/1/publish');
  expect(mock.runtime.state.publishedMenus.get(1)!.dishes.find((d) => d.id === 10001)!.price).toBe('10.50');
});

test('deleted drafts leave the storefront only on publication', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  expect((await anna('DELETE', '/api/draft_dishes/10003')).status).toBe(204);
  expect((await anna('DELETE', '/api/draft_categories/1001')).status).toBe(204);
  const before = mock.runtime.state.publishedMenus.get(1)!;
  expect(before.dishes.map((d) => d.id)).toEqual([10001, 10002, 10003]);
  expect(before.categories.map((c) => c.id)).toEqual([1001, 1002]);
  const res = await anna('POST', '/api/organizations/1/publish');
  expect(res.body.menu).toMatchObject({ category_count: 1, dish_count: 0 });
  const after = mock.runtime.state.publishedMenus.get(1)!;
  expect(after.categories.map((c) => c.id)).toEqual([1002]);
  expect(after.dishes).toEqual([]);
});

test('hidden dishes stay in the published menu, marked is_hidden', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  await anna('PUT', '/api/draft_dishes/10002', { json: { draft_dish: { is_hidden: true } } });
  const res = await anna('POST', '/api/organizations/1/publish');
  expect(res.body.menu.dish_count).toBe(3);
  expect(mock.runtime.state.publishedMenus.get(1)!.dishes.find((d) => d.id === 10002)!.is_hidden).toBe(true);
});

test('publishing one organization leaves the other one alone', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  await anna('POST', '/api/organizations/1/publish');
  expect(mock.runtime.state.publishedMenus.get(2)!.version).toBe(1);
});
