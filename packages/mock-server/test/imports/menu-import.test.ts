import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, test } from 'vitest';
import { createMock, type MockEngine } from '@restoapi/mock-server';
import { ANNA, DORA, KENJI, MAX, as, demoMock } from '../support/catalog-client.js';

/** Stops real time, so job progress moves only with `clock.advance`. */
async function freeze(mock: MockEngine): Promise<void> {
  await mock.runtime.clock.set(mock.runtime.clock.now(), true);
}

const margherita = {
  name: 'Margherita',
  external_id: 'pp-margherita',
  category_external_id: 'pp-pizza',
  price: 9.9,
  weight: 450,
};
const pizzaCategory = { name: 'Pizza', external_id: 'pp-pizza', menu_order: 1 };

function orgDishes(mock: MockEngine, organizationId = 1) {
  return mock.runtime.state.draftDishes.filter((d) => d.organization_id === organizationId);
}

test('two concurrent imports: one is queued (202), the other answers 409 busy with the running job', async () => {
  const mock = demoMock();
  await freeze(mock);
  const anna = await as(mock, ANNA);
  const body = { json: { categories: [pizzaCategory], dishes: [margherita] } };
  const answers = await Promise.all([
    anna('POST', '/api/organizations/1/import/menu', body),
    anna('POST', '/api/organizations/1/import/menu', body),
  ]);
  const queued = answers.find((a) => a.status === 202)!;
  const busy = answers.find((a) => a.status === 409)!;
  expect(queued.body).toEqual({ status: 'queued', job_id: expect.stringMatching(/^[0-9a-f]{24}$/) });
  expect(busy.body).toMatchObject({ status: 'busy', job_id: queued.body.job_id, job_status: 'queued', job_percent: 0 });
  expect(busy.body.errors[0]).toMatchObject({ status: '409', code: 'import_busy' });
  expect(mock.runtime.state.importJobs.size).toBe(1);
  // Another organization imports independently.
  const kenji = await as(mock, KENJI);
  const sushi = await kenji('POST', '/api/organizations/2/import/menu', {
    json: { dishes: [{ name: 'Maki', price: 4, category_name: 'Rolls' }] },
  });
  expect(sushi.status).toBe(202);
});

test('progress follows the virtual clock: queued, working with a growing percent, then done', async () => {
  const mock = demoMock({ importDurationMs: 4000 });
  await freeze(mock);
  const anna = await as(mock, ANNA);
  expect((await anna('GET', '/api/organizations/1/import/menu')).body).toEqual({
    status: 'idle',
    job_id: null,
    job_status: null,
    job_message: null,
    job_percent: null,
  });
  const { job_id } = (
    await anna('POST', '/api/organizations/1/import/menu', {
      json: { categories: [pizzaCategory], dishes: [margherita] },
    })
  ).body;
  expect((await anna('GET', '/api/organizations/1/import/menu')).body).toMatchObject({
    status: 'busy',
    job_id,
    job_status: 'queued',
    job_percent: 0,
  });
  await mock.runtime.clock.advance(1000);
  expect((await anna('GET', '/api/organizations/1/import/menu')).body).toMatchObject({
    status: 'busy',
    job_status: 'working',
    job_percent: 25,
  });
  // Still the old drafts while the job runs.
  expect(orgDishes(mock)).toHaveLength(3);
  await mock.runtime.clock.advance(3000);
  const done = (await anna('GET', '/api/organizations/1/import/menu')).body;
  expect(done).toMatchObject({ status: 'idle', job_id, job_status: 'done', job_percent: 100 });
  expect(done.job_message).toContain('1 dishes');
  expect(orgDishes(mock)).toHaveLength(1);
  // The slot is free again.
  expect(
    (
      await anna('POST', '/api/organizations/1/import/menu', {
        json: { categories: [pizzaCategory], dishes: [margherita] },
      })
    ).status,
  ).toBe(202);
});

test('with importDurationMs 0 the import is applied at once, though the answer still says queued', async () => {
  const mock = demoMock({ importDurationMs: 0 });
  const anna = await as(mock, ANNA);
  const res = await anna('POST', '/api/organizations/1/import/menu', {
    json: { categories: [pizzaCategory], dishes: [margherita] },
  });
  expect(res.status).toBe(202);
  expect(res.body.status).toBe('queued');
  expect(orgDishes(mock).map((d) => d.id)).toEqual([10001]);
  expect((await anna('GET', '/api/organizations/1/import/menu')).body).toMatchObject({
    status: 'idle',
    job_status: 'done',
    job_percent: 100,
  });
});

test('the import replaces the whole menu; a known external_id keeps its id, new dishes get new ones', async () => {
  const mock = demoMock({ importDurationMs: 0 });
  const anna = await as(mock, ANNA);
  await anna('PUT', '/api/draft_dishes/10001', { json: { draft_dish: { is_hidden: true, ingredients: 'secret' } } });
  await anna('POST', '/api/organizations/1/import/menu', {
    json: {
      categories: [pizzaCategory, { name: 'Pasta', external_id: 'pp-pasta', menu_order: 2 }],
      dishes: [
        {
          ...margherita,
          description: 'Classic',
          modifiers: [{ name: 'Size', multiple: false, items: [{ name: '30 cm', price: 0 }] }],
        },
        { name: 'Carbonara', external_id: 'pp-carbonara', category_external_id: 'pp-pasta', price: 12.5 },
      ],
    },
  });
  const dishes = (await anna('GET', '/api/draft_dishes')).body.draft_dishes;
  expect(dishes.map((d: { id: number; name: string }) => d.name)).toEqual(['Margherita', 'Carbonara']);
  const [kept, added] = dishes;
  expect(kept).toMatchObject({
    id: 10001,
    price: '9.90',
    weight: '450',
    description: 'Classic',
    is_hidden: true,
    ingredients: 'secret',
    external_id: 'pp-margherita',
  });
  expect(kept.options).toEqual([{ name: 'Size', multiple: false, items: [{ name: '30 cm', price: 0 }] }]);
  expect(added.id).toBeGreaterThan(20003);
  expect(added).toMatchObject({
    price: '12.50',
    weight: null,
    description: '',
    is_hidden: false,
    options: null,
    menu_order: 1,
  });
  // Diavolo and the Cola (not in the import) and the old categories are gone from the drafts.
  expect((await anna('GET', '/api/draft_dishes/10002')).status).toBe(404);
  expect((await anna('GET', '/api/draft_dishes/10003')).status).toBe(404);
  const categories = (await anna('GET', '/api/draft_categories')).body.draft_categories;
  expect(categories.map((c: { name: string; draft_dish_ids: number[] }) => [c.name, c.draft_dish_ids])).toEqual([
    ['Pizza', [10001]],
    ['Pasta', [added.id]],
  ]);

  // Re-importing keeps the ids of both the dishes and the categories (matched by external_id).
  const categoryIds = categories.map((c: { id: number }) => c.id);
  await anna('POST', '/api/organizations/1/import/menu', {
    json: {
      categories: [pizzaCategory, { name: 'Pasta', external_id: 'pp-pasta', menu_order: 2 }],
      dishes: [
        margherita,
        { name: 'Carbonara', external_id: 'pp-carbonara', category_external_id: 'pp-pasta', price: 13 },
      ],
    },
  });
  expect(
    orgDishes(mock)
      .map((d) => d.id)
      .sort((a, b) => a - b),
  ).toEqual([10001, added.id]);
  expect((await anna('GET', '/api/draft_categories')).body.draft_categories.map((c: { id: number }) => c.id)).toEqual(
    categoryIds,
  );
});

test('without categories, categories are created from the dishes’ category_name, once per name', async () => {
  const mock = demoMock({ importDurationMs: 0 });
  const kenji = await as(mock, KENJI);
  const res = await kenji('POST', '/api/organizations/2/import/menu', {
    json: {
      dishes: [
        { name: 'California Roll', external_id: 'ss-california', category_name: 'Rolls', price: 8.9, weight: 220 },
        { name: 'Dragon Roll', category_name: 'Rolls', price: 12.9 },
        { name: 'Green Tea', category_name: 'Drinks', price: 2.2 },
      ],
    },
  });
  expect(res.status).toBe(202);
  const categories = (await kenji('GET', '/api/draft_categories')).body.draft_categories;
  expect(
    categories.map((c: { name: string; menu_order: number; draft_dish_ids: number[] }) => [
      c.name,
      c.menu_order,
      c.draft_dish_ids.length,
    ]),
  ).toEqual([
    ['Rolls', 1, 2],
    ['Drinks', 2, 1],
  ]);
  expect(categories[0].draft_dish_ids[0]).toBe(20001);
  const dishes = (await kenji('GET', '/api/draft_dishes')).body.draft_dishes;
  expect(dishes.map((d: { name: string; menu_order: number }) => [d.name, d.menu_order])).toEqual([
    ['California Roll', 1],
    ['Dragon Roll', 2],
    ['Green Tea', 1],
  ]);
});

test('availability defaults to available in every restaurant not listed', async () => {
  const mock = demoMock({ importDurationMs: 0 });
  const anna = await as(mock, ANNA);
  await anna('POST', '/api/organizations/1/import/menu', {
    json: {
      categories: [pizzaCategory],
      dishes: [
        { ...margherita, availability: [{ restaurant_id: 12, status: 'call' }] },
        { name: 'Diavolo', external_id: 'pp-diavolo', category_external_id: 'pp-pizza', price: 11.9 },
      ],
    },
  });
  expect(mock.runtime.state.draftDishes.get(10001)!.availability).toEqual([
    { restaurant_id: 11, status: 'available' },
    { restaurant_id: 12, status: 'call' },
  ]);
  expect(mock.runtime.state.draftDishes.get(10002)!.availability).toEqual([
    { restaurant_id: 11, status: 'available' },
    { restaurant_id: 12, status: 'available' },
  ]);
});

test('invalid content is refused at submission with pointers, and nothing is queued or changed', async () => {
  const mock = demoMock({ importDurationMs: 0 });
  const anna = await as(mock, ANNA);
  const res = await anna('POST', '/api/organizations/1/import/menu', {
    json: {
      categories: [pizzaCategory],
      dishes: [
        { ...margherita, availability: [{ restaurant_id: 21, status: 'available' }] },
        { name: 'Ghost', category_external_id: 'pp-ghost', price: 1 },
        { name: 'Pricey', category_name: 'Pizza', price: 1.234, external_id: 'pp-margherita' },
        {
          name: 'Broken',
          category_name: 'Pizza',
          price: 5,
          modifiers: [{ name: 'Extras', multiple: true, min: 2, items: [{ name: 'A', price: 1 }] }],
        },
      ],
    },
  });
  expect(res.status).toBe(422);
  expect(res.body.errors.map((e: { code: string; source: { pointer: string } }) => [e.code, e.source.pointer])).toEqual(
    [
      ['invalid_value', '/dishes/0/availability/0/restaurant_id'],
      ['invalid_value', '/dishes/1/category_external_id'],
      ['invalid_value', '/dishes/2/external_id'],
      ['invalid_value', '/dishes/2/price'],
      ['invalid_configuration', '/dishes/3/modifiers/0/min'],
    ],
  );
  expect(mock.runtime.state.importJobs.size).toBe(0);
  expect(orgDishes(mock)).toHaveLength(3);
});

test('structural mistakes are 422 from the schema: both category references, unknown fields, an empty dish list', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const both = await anna('POST', '/api/organizations/1/import/menu', {
    json: { categories: [pizzaCategory], dishes: [{ ...margherita, category_name: 'Pizza' }] },
  });
  expect(both.status).toBe(422);
  const unknown = await anna('POST', '/api/organizations/1/import/menu', {
    json: { dishes: [margherita], configuration: {} },
  });
  expect(unknown.body.errors[0]).toMatchObject({ code: 'unknown_field', source: { pointer: '/configuration' } });
  expect((await anna('POST', '/api/organizations/1/import/menu', { json: { dishes: [] } })).status).toBe(422);
});

test('more dishes than maxImportRecords is 413', async () => {
  const mock = demoMock({ maxImportRecords: 1 });
  const anna = await as(mock, ANNA);
  const res = await anna('POST', '/api/organizations/1/import/menu', {
    json: { categories: [pizzaCategory], dishes: [margherita, { ...margherita, external_id: 'x' }] },
  });
  expect(res.status).toBe(413);
  expect(res.body.errors[0].code).toBe('too_large');
});

test('destroy_menu deletes every draft first, so no id is kept', async () => {
  const mock = demoMock({ importDurationMs: 0 });
  const anna = await as(mock, ANNA);
  await anna('POST', '/api/organizations/1/import/menu', {
    json: { categories: [pizzaCategory], dishes: [margherita], config: { destroy_menu: true } },
  });
  const dishes = orgDishes(mock);
  expect(dishes).toHaveLength(1);
  expect(dishes[0]!.id).not.toBe(10001);
  expect(dishes[0]!.external_id).toBe('pp-margherita');
});

test('publish_menu publishes when the job is done; otherwise the storefront keeps the old menu', async () => {
  const mock = demoMock({ importDurationMs: 2000 });
  await freeze(mock);
  const anna = await as(mock, ANNA);
  await anna('POST', '/api/organizations/1/import/menu', {
    json: { categories: [pizzaCategory], dishes: [margherita], config: { publish_menu: true } },
  });
  expect(mock.runtime.state.publishedMenus.get(1)!.version).toBe(1);
  await mock.runtime.clock.advance(2000);
  const published = mock.runtime.state.publishedMenus.get(1)!;
  expect(published.version).toBe(2);
  expect(published.dishes.map((d) => [d.id, d.price])).toEqual([[10001, '9.90']]);
  expect((await anna('GET', '/api/organizations/1/import/menu')).body.job_message).toContain('menu published');

  await anna('POST', '/api/organizations/1/import/menu', {
    json: { categories: [pizzaCategory], dishes: [{ ...margherita, price: 10 }] },
  });
  await mock.runtime.clock.advance(2000);
  expect(mock.runtime.state.draftDishes.get(10001)!.price).toBe('10.00');
  expect(mock.runtime.state.publishedMenus.get(1)!.dishes[0]!.price).toBe('9.90');
});

test('only staff members of the organization may import or read the import: 403 for dispatcher and courier, 404 elsewhere', async () => {
  const mock = demoMock();
  const body = { json: { categories: [pizzaCategory], dishes: [margherita] } };
  for (const user of [DORA, MAX]) {
    const caller = await as(mock, user);
    expect((await caller('POST', '/api/organizations/1/import/menu', body)).status).toBe(403);
    expect((await caller('GET', '/api/organizations/1/import/menu')).status).toBe(403);
  }
  const kenji = await as(mock, KENJI);
  expect((await kenji('POST', '/api/organizations/1/import/menu', body)).status).toBe(404);
  expect((await kenji('GET', '/api/organizations/1/import/menu')).status).toBe(404);
});

test('remote photo URLs are recorded on the drafts and never fail the import', async () => {
  const mock = demoMock({ importDurationMs: 0 });
  const anna = await as(mock, ANNA);
  await anna('POST', '/api/organizations/1/import/menu', {
    json: {
      categories: [{ ...pizzaCategory, remote_photo_url: 'https://images.invalid/pizza.jpg' }],
      dishes: [{ ...margherita, remote_photo_url: 'https://images.invalid/margherita.jpg' }],
    },
  });
  const state = (await anna('GET', '/api/organizations/1/import/menu')).body;
  expect(state.job_status).toBe('done');
  expect(state.job_message).toContain('0 of 2 remote photo(s) fetched');
  expect(mock.runtime.state.draftDishes.get(10001)!.remote_photo_url).toBe('https://images.invalid/margherita.jpg');
  const category = mock.runtime.state.draftCategories.find((c) => c.organization_id === 1)!;
  expect(category.remote_photo_url).toBe('https://images.invalid/pizza.jpg');
  // Import-only fields stay inside the mock.
  expect((await anna('GET', '/api/draft_dishes/10001')).body.draft_dish.remote_photo_url).toBeUndefined();
  expect((await anna('GET', `/api/draft_categories/${category.id}`)).body.draft_category.external_id).toBeUndefined();
});

test('reachable remote photos are fetched, stored and served at the drafts’ photo URLs', async () => {
  // A real image server on loopback: one URL answers a PNG, the other 404.
  const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
  const images = createServer((req, res) => {
    if (req.url === '/margherita.png') {
      res.writeHead(200, { 'Content-Type': 'image/png' });
      res.end(png);
    } else {
      res.writeHead(404);
      res.end();
    }
  });
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
  try {
    // Photos on loopback: this test says so (the default rule fetches from public addresses only).
    const mock = createMock({
      validateResponses: true,
      config: { importDurationMs: 0 },
      outboundPolicy: { photos: { mode: 'any', allowHosts: [] } },
    });
    const anna = await as(mock, ANNA);
    const queued = await anna('POST', '/api/organizations/1/import/menu', {
      json: {
        categories: [{ ...pizzaCategory, remote_photo_url: `${origin}/missing.jpg` }],
        dishes: [{ ...margherita, remote_photo_url: `${origin}/margherita.png` }],
      },
    });
    expect(queued.status).toBe(202);
    const state = (await anna('GET', '/api/organizations/1/import/menu')).body;
    expect(state.job_message).toContain('1 of 2 remote photo(s) fetched');
    // The reason of the one not fetched is recorded with its URL.
    expect(state.job_message).toContain(`Not fetched: ${origin}/missing.jpg: answered 404.`);
    const dish = (await anna('GET', '/api/draft_dishes/10001')).body.draft_dish;
    expect(dish.photo).not.toBeNull();
    const served = await mock.fetch(dish.photo.original);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(new Uint8Array(await served.arrayBuffer())).toEqual(png);
    // The unreachable one is recorded, not fetched: the category keeps no photo.
    const category = mock.runtime.state.draftCategories.find((c) => c.organization_id === 1)!;
    expect(category.remote_photo_url).toBe(`${origin}/missing.jpg`);
    expect(category.photo).toBeNull();
  } finally {
    images.close();
  }
});

test('category names and external ids must be unique within categories', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const res = await anna('POST', '/api/organizations/1/import/menu', {
    json: {
      categories: [pizzaCategory, { name: 'Pizza', external_id: 'pp-pizza' }],
      dishes: [margherita],
    },
  });
  expect(res.status).toBe(422);
  expect(res.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer)).toEqual([
    '/categories/1/name',
    '/categories/1/external_id',
  ]);
});
