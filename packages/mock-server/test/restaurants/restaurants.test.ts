import { expect, test } from 'vitest';
import { ANNA, DORA, KENJI, MANAGER, MAX, as, demoMock, seedWithManager } from '../support/catalog-client.js';

const ids = (list: { id: number }[]): number[] => list.map((r) => r.id);

test('the list holds the restaurants in scope, narrowed by organization_id', async () => {
  const mock = demoMock();
  const dora = await as(mock, DORA);
  expect(ids((await dora('GET', '/api/restaurants')).body.restaurants)).toEqual([11, 12, 21, 22]);
  expect(ids((await dora('GET', '/api/restaurants?organization_id=2')).body.restaurants)).toEqual([21, 22]);
  const anna = await as(mock, ANNA);
  expect(ids((await anna('GET', '/api/restaurants')).body.restaurants)).toEqual([11, 12]);
  // A filter outside the scope matches nothing.
  expect((await anna('GET', '/api/restaurants?organization_id=2')).body).toMatchObject({
    restaurants: [],
    meta: { count: 0 },
  });
  expect(ids((await (await as(mock, MAX))('GET', '/api/restaurants')).body.restaurants)).toEqual([11, 12]);
});

test('a manager sees and edits only its own restaurants', async () => {
  const mock = demoMock({}, seedWithManager());
  const manager = await as(mock, MANAGER);
  expect(ids((await manager('GET', '/api/restaurants')).body.restaurants)).toEqual([12]);
  expect((await manager('GET', '/api/restaurants/11')).status).toBe(404);
  expect((await manager('PUT', '/api/restaurants/11', { json: { restaurant: { phone: '+49 1' } } })).status).toBe(404);
  expect(
    (await manager('PUT', '/api/restaurants/12', { json: { restaurant: { phone: '+49 30 1234503' } } })).status,
  ).toBe(200);
});

test('a single restaurant comes as a one-element restaurants array', async () => {
  const mock = demoMock();
  const res = await (await as(mock, ANNA))('GET', '/api/restaurants/11');
  expect(res.status).toBe(200);
  expect(res.body.restaurants).toHaveLength(1);
  expect(res.body.restaurants[0]).toMatchObject({ id: 11, name: 'Pizza Piccolo Kreuzberg', organization_id: 1 });
  expect((await (await as(mock, KENJI))('GET', '/api/restaurants/11')).status).toBe(404);
});

test('updating changes name, phone and address and answers like GET', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const res = await anna('PUT', '/api/restaurants/12', {
    json: { restaurant: { phone: '+49 30 1234503', name: 'PP Prenzlberg' } },
  });
  expect(res.status).toBe(200);
  expect(res.body.restaurants[0]).toMatchObject({
    id: 12,
    phone: '+49 30 1234503',
    name: 'PP Prenzlberg',
    address: 'Kastanienallee 12, 10435 Berlin',
  });
  expect((await anna('GET', '/api/restaurants/12')).body).toEqual(res.body);
});

test('non-editable fields: equal values are ignored, different ones are 422 not_editable', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const [restaurant] = (await anna('GET', '/api/restaurants/11')).body.restaurants;
  expect((await anna('PUT', '/api/restaurants/11', { json: { restaurant } })).status).toBe(200);
  const res = await anna('PUT', '/api/restaurants/11', {
    json: { restaurant: { is_running: false, organization_id: 2 } },
  });
  expect(res.status).toBe(422);
  expect(res.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer).sort()).toEqual([
    '/restaurant/is_running',
    '/restaurant/organization_id',
  ]);
  expect(
    (await anna('PUT', '/api/restaurants/11', { json: { restaurant: { opening: 'x' } } })).body.errors[0].code,
  ).toBe('unknown_field');
});

test('dispatchers and couriers may not edit restaurants (403); another organization gets 404', async () => {
  const mock = demoMock();
  const body = { json: { restaurant: { phone: '+49 1' } } };
  expect((await (await as(mock, DORA))('PUT', '/api/restaurants/11', body)).status).toBe(403);
  expect((await (await as(mock, MAX))('PUT', '/api/restaurants/11', body)).status).toBe(403);
  expect((await (await as(mock, KENJI))('PUT', '/api/restaurants/11', body)).status).toBe(404);
});
