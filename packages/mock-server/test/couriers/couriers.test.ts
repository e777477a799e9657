import { expect, test } from 'vitest';
import { ANNA, DORA, KENJI, MAX, as, demoMock } from '../support/catalog-client.js';

const ids = (list: { id: number }[]): number[] => list.map((c) => c.id);

test('a dispatcher sees every courier, a staff member those of its organization', async () => {
  const mock = demoMock();
  expect(ids((await (await as(mock, DORA))('GET', '/api/couriers')).body.couriers)).toEqual([501, 502, 601]);
  expect(ids((await (await as(mock, DORA))('GET', '/api/couriers?organization_id=2')).body.couriers)).toEqual([601]);
  const anna = await as(mock, ANNA);
  const own = await anna('GET', '/api/couriers');
  expect(ids(own.body.couriers)).toEqual([501, 502]);
  expect(own.body.meta).toEqual({ count: 2, total: 2 });
  expect((await anna('GET', '/api/couriers?organization_id=2')).body.couriers).toEqual([]);
});

test('a courier sees only its own record', async () => {
  const mock = demoMock();
  const max = await as(mock, MAX);
  expect(ids((await max('GET', '/api/couriers')).body.couriers)).toEqual([501]);
  expect((await max('GET', '/api/couriers/501')).body.courier).toMatchObject({
    id: 501,
    name: 'Max Müller',
    organization_id: 1,
  });
  expect((await max('GET', '/api/couriers/502')).status).toBe(404);
});

test("another organization's courier answers 404", async () => {
  const mock = demoMock();
  expect((await (await as(mock, KENJI))('GET', '/api/couriers/501')).status).toBe(404);
  expect((await (await as(mock, KENJI))('GET', '/api/couriers/601')).status).toBe(200);
  expect((await (await as(mock, DORA))('GET', '/api/couriers/999')).status).toBe(404);
});
