import { expect, test } from 'vitest';
import { findZoneForPoint } from '../../src/zones/zone-lookup.js';
import { ANNA, DORA, KENJI, MANAGER, MAX, as, demoMock, seedWithManager } from '../support/catalog-client.js';

const NEUKOELLN = 'POLYGON((13.4200 52.4700, 13.4600 52.4690, 13.4650 52.4840, 13.4250 52.4850, 13.4200 52.4700))';
const WEEKEND_NIGHTS = [
  { day: 5, open_at: '2000-01-01T17:00:00Z', close_at: '2000-01-01T01:00:00Z' },
  { day: 6, open_at: '2000-01-01T17:00:00Z', close_at: '2000-01-01T01:00:00Z', is_working: true },
];

test('create refuses a body without organization_id, restaurant_id and name, pointing at each', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const res = await anna('POST', '/api/delivery_zones', { json: { delivery_time: 30 } });
  expect(res.status).toBe(422);
  expect(
    res.body.errors.map((e: { code: string; source: { pointer: string } }) => [e.code, e.source.pointer]).sort(),
  ).toEqual([
    ['required', '/name'],
    ['required', '/organization_id'],
    ['required', '/restaurant_id'],
  ]);
  expect(mock.runtime.state.deliveryZones.size).toBe(4);
});

test.each([
  [
    'self-intersecting',
    'POLYGON((13.40 52.47, 13.46 52.50, 13.46 52.47, 13.40 52.50, 13.40 52.47))',
    /intersects itself/,
  ],
  ['unclosed', 'POLYGON((13.40 52.47, 13.46 52.47, 13.46 52.50, 13.40 52.50))', /not a closed ring/],
  [
    'multi-part',
    'MULTIPOLYGON(((13.40 52.47, 13.46 52.47, 13.46 52.50, 13.40 52.47)),((13.50 52.47, 13.56 52.47, 13.56 52.50, 13.50 52.47)))',
    /MULTIPOLYGON/,
  ],
  [
    'with a hole',
    'POLYGON((13.40 52.47, 13.46 52.47, 13.46 52.50, 13.40 52.50, 13.40 52.47),(13.42 52.48, 13.44 52.48, 13.44 52.49, 13.42 52.48))',
    /holes/,
  ],
  ['malformed', 'POLYGON((13.40 52.47, 13.46))', /closed ring of at least 4 points/],
  ['not WKT at all', 'the whole of Kreuzberg', /POLYGON/],
])('a %s area is refused with 422 invalid_geometry at /area and nothing is stored', async (_kind, area, reason) => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const res = await anna('POST', '/api/delivery_zones', {
    json: { organization_id: 1, restaurant_id: 11, name: 'Neukölln', area },
  });
  expect(res.status).toBe(422);
  expect(res.body.errors).toHaveLength(1);
  expect(res.body.errors[0]).toMatchObject({ status: '422', code: 'invalid_geometry', source: { pointer: '/area' } });
  expect(res.body.errors[0].detail).toMatch(reason);
  expect(mock.runtime.state.deliveryZones.size).toBe(4);
  // An update with the same area is refused the same way and leaves the zone as it was.
  const update = await anna('PUT', '/api/delivery_zones/101', { json: { area } });
  expect(update.status).toBe(422);
  expect(update.body.errors[0]).toMatchObject({ code: 'invalid_geometry', source: { pointer: '/area' } });
  expect(mock.runtime.state.deliveryZones.get(101)!.area).toMatch(/^POLYGON\(\(13.3850 52.4870/);
});

test('a valid zone is created with 201, a Location, the documented defaults and timetable ids', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const res = await anna('POST', '/api/delivery_zones', {
    json: {
      organization_id: 1,
      restaurant_id: 11,
      name: 'Neukölln',
      area: NEUKOELLN,
      timezone: 'Europe/Berlin',
      price: 3.5,
      timetables: WEEKEND_NIGHTS,
    },
  });
  expect(res.status).toBe(201);
  expect(res.headers.get('location')).toBe(`/api/delivery_zones/${res.body.id}`);
  expect(res.body).toMatchObject({
    name: 'Neukölln',
    delivery_time: 60,
    price: 3.5,
    timezone: 'Europe/Berlin',
    free_delivery_count: null,
    free_delivery_price: null,
    minimal_order_price: null,
    area: NEUKOELLN,
    restaurant_id: 11,
    organization_id: 1,
  });
  const ids = res.body.timetables.map((entry: { id: number }) => entry.id);
  expect(new Set(ids).size).toBe(2);
  expect(res.body.timetables[0]).toEqual({
    id: ids[0],
    day: 5,
    open_at: '2000-01-01T17:00:00Z',
    close_at: '2000-01-01T01:00:00Z',
    date: null,
    is_working: true,
  });
  // Stored: the same zone comes back by id and in the list.
  expect((await anna('GET', `/api/delivery_zones/${res.body.id}`)).body).toEqual(res.body);
  expect(
    (await anna('GET', '/api/delivery_zones?organization_id=1')).body.delivery_zones.map((z: { id: number }) => z.id),
  ).toEqual([101, 102, res.body.id]);
});

test('a zone without optional fields starts with no area and an empty timetable', async () => {
  const anna = await as(demoMock(), ANNA);
  const res = await anna('POST', '/api/delivery_zones', {
    json: { organization_id: 1, restaurant_id: 12, name: 'Later' },
  });
  expect(res.status).toBe(201);
  expect(res.body).toMatchObject({ area: null, timezone: 'UTC', price: 0, timetables: [] });
});

test('create: a restaurant of another organization, an organization out of scope, a bad time zone and bad timetables are 422', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const pointers = async (json: object) => {
    const res = await anna('POST', '/api/delivery_zones', { json });
    expect(res.status).toBe(422);
    return res.body.errors.map((e: { code: string; source: { pointer: string } }) => `${e.code} ${e.source.pointer}`);
  };
  expect(await pointers({ organization_id: 1, restaurant_id: 21, name: 'X' })).toEqual([
    'invalid_value /restaurant_id',
  ]);
  expect(await pointers({ organization_id: 2, restaurant_id: 21, name: 'X' })).toEqual([
    'invalid_value /organization_id',
  ]);
  expect(await pointers({ organization_id: 1, restaurant_id: 11, name: 'X', timezone: 'Europe/Kreuzberg' })).toEqual([
    'invalid_value /timezone',
  ]);
  expect(await pointers({ organization_id: 1, restaurant_id: 11, name: 'X', price: 2.555 })).toEqual([
    'invalid_value /price',
  ]);
  expect(
    await pointers({
      organization_id: 1,
      restaurant_id: 11,
      name: 'X',
      timetables: [{ id: 1011, day: 1, open_at: '2000-01-01T11:00:00Z', close_at: '2000-01-01T23:00:00Z' }],
    }),
  ).toEqual(['not_editable /timetables/0/id']);
  // 2026-12-24 is a Thursday (4), not a Monday.
  expect(
    await pointers({
      organization_id: 1,
      restaurant_id: 11,
      name: 'X',
      timetables: [{ day: 1, date: '2026-12-24', open_at: '2000-01-01T11:00:00Z', close_at: '2000-01-01T16:00:00Z' }],
    }),
  ).toEqual(['invalid_value /timetables/0/day']);
  expect(mock.runtime.state.deliveryZones.size).toBe(4);
});

test('update changes the fields sent, replaces the timetable keeping sent ids, and accepts a GET body sent back', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const res = await anna('PUT', '/api/delivery_zones/101', {
    json: {
      delivery_time: 40,
      free_delivery_price: null,
      timetables: [
        { id: 1011, day: 1, open_at: '2000-01-01T12:00:00Z', close_at: '2000-01-01T22:00:00Z' },
        { day: 4, date: '2026-12-24', open_at: '2000-01-01T11:00:00Z', close_at: '2000-01-01T16:00:00Z' },
      ],
    },
  });
  expect(res.status).toBe(200);
  expect(res.body).toMatchObject({
    id: 101,
    name: 'Kreuzberg',
    delivery_time: 40,
    free_delivery_price: null,
    minimal_order_price: 12,
  });
  expect(res.body.timetables).toHaveLength(2);
  expect(res.body.timetables[0]).toEqual({
    id: 1011,
    day: 1,
    open_at: '2000-01-01T12:00:00Z',
    close_at: '2000-01-01T22:00:00Z',
    date: null,
    is_working: true,
  });
  expect(res.body.timetables[1]).toMatchObject({ day: 4, date: '2026-12-24', is_working: true });
  expect(res.body.timetables[1].id).not.toBe(1011);
  expect((await anna('GET', '/api/delivery_zones/101')).body).toEqual(res.body);

  const sentBack = await anna('PUT', '/api/delivery_zones/101', { json: res.body });
  expect(sentBack.status).toBe(200);
  expect(sentBack.body).toEqual(res.body);
});

test('update refuses other ids, a changed organization, a foreign restaurant and unknown timetable ids', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const res = await anna('PUT', '/api/delivery_zones/101', {
    json: {
      id: 999,
      organization_id: 2,
      restaurant_id: 21,
      timetables: [{ id: 2011, day: 1, open_at: '2000-01-01T11:00:00Z', close_at: '2000-01-01T23:00:00Z' }],
    },
  });
  expect(res.status).toBe(422);
  expect(
    res.body.errors.map((e: { code: string; source: { pointer: string } }) => `${e.code} ${e.source.pointer}`).sort(),
  ).toEqual([
    'invalid_value /restaurant_id',
    'not_editable /id',
    'not_editable /organization_id',
    'not_editable /timetables/0/id',
  ]);
  expect(mock.runtime.state.deliveryZones.get(101)!.timetables).toHaveLength(7);
  const unknown = await anna('PUT', '/api/delivery_zones/101', { json: { colour: 'red' } });
  expect(unknown.status).toBe(422);
  expect(unknown.body.errors[0]).toMatchObject({ code: 'unknown_field', source: { pointer: '/colour' } });
});

test('moving a zone to the other restaurant sends later lookups there', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  expect(findZoneForPoint(mock.runtime, 1, 13.431, 52.4975)?.restaurant_id).toBe(11);
  expect((await anna('PUT', '/api/delivery_zones/101', { json: { restaurant_id: 12 } })).status).toBe(200);
  expect(findZoneForPoint(mock.runtime, 1, 13.431, 52.4975)?.restaurant_id).toBe(12);
});

test('delete answers 204, the zone is gone and no longer covers its addresses', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  expect(findZoneForPoint(mock.runtime, 1, 13.431, 52.4975)?.id).toBe(101);
  const res = await anna('DELETE', '/api/delivery_zones/101');
  expect(res.status).toBe(204);
  expect(res.body).toBeUndefined();
  expect((await anna('GET', '/api/delivery_zones/101')).status).toBe(404);
  expect(findZoneForPoint(mock.runtime, 1, 13.431, 52.4975)).toBeUndefined();
  // Orders placed in the zone keep their restaurant.
  expect(mock.runtime.state.orders.get(5001)!.restaurant_id).toBe(11);
});

test('a created zone is found by point at once, and its area change moves the lookup', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  expect(findZoneForPoint(mock.runtime, 1, 13.44, 52.477)).toBeUndefined();
  const created = (
    await anna('POST', '/api/delivery_zones', {
      json: { organization_id: 1, restaurant_id: 12, name: 'Neukölln', area: NEUKOELLN },
    })
  ).body;
  expect(findZoneForPoint(mock.runtime, 1, 13.44, 52.477)?.id).toBe(created.id);
  expect(findZoneForPoint(mock.runtime, 2, 13.44, 52.477)).toBeUndefined();
  expect(findZoneForPoint(mock.runtime, null, 13.44, 52.477)?.id).toBe(created.id);
  await anna('PUT', `/api/delivery_zones/${created.id}`, { json: { area: null } });
  expect(findZoneForPoint(mock.runtime, 1, 13.44, 52.477)).toBeUndefined();
});

test('dispatchers and couriers may read zones but get 403 on writes; other organizations get 404', async () => {
  const mock = demoMock();
  const dora = await as(mock, DORA);
  const max = await as(mock, MAX);
  const kenji = await as(mock, KENJI);
  const body = { organization_id: 1, restaurant_id: 11, name: 'X' };
  expect((await dora('GET', '/api/delivery_zones')).body.delivery_zones).toHaveLength(4);
  expect((await dora('POST', '/api/delivery_zones', { json: body })).status).toBe(403);
  expect((await dora('PUT', '/api/delivery_zones/101', { json: { name: 'Y' } })).status).toBe(403);
  expect((await dora('DELETE', '/api/delivery_zones/101')).status).toBe(403);
  expect((await max('GET', '/api/delivery_zones')).body.delivery_zones.map((z: { id: number }) => z.id)).toEqual([
    101, 102,
  ]);
  expect((await max('POST', '/api/delivery_zones', { json: body })).status).toBe(403);
  expect((await max('PUT', '/api/delivery_zones/101', { json: { name: 'Y' } })).status).toBe(403);
  expect((await max('DELETE', '/api/delivery_zones/201')).status).toBe(404);
  expect((await kenji('GET', '/api/delivery_zones')).body).toEqual(
    expect.objectContaining({ meta: { count: 2, total: 2 } }),
  );
  expect((await kenji('GET', '/api/delivery_zones?organization_id=1')).body.delivery_zones).toEqual([]);
  expect((await kenji('GET', '/api/delivery_zones/101')).status).toBe(404);
  expect((await kenji('PUT', '/api/delivery_zones/101', { json: { name: 'Y' } })).status).toBe(404);
  expect((await kenji('DELETE', '/api/delivery_zones/101')).status).toBe(404);
  expect(mock.runtime.state.deliveryZones.get(101)!.name).toBe('Kreuzberg');
});

test('a manager sees and edits only the zones of its restaurants', async () => {
  const mock = demoMock({}, seedWithManager());
  const manager = await as(mock, MANAGER);
  expect((await manager('GET', '/api/delivery_zones')).body.delivery_zones.map((z: { id: number }) => z.id)).toEqual([
    102,
  ]);
  expect((await manager('PUT', '/api/delivery_zones/101', { json: { name: 'Y' } })).status).toBe(404);
  const create = await manager('POST', '/api/delivery_zones', {
    json: { organization_id: 1, restaurant_id: 11, name: 'X' },
  });
  expect(create.status).toBe(422);
  expect(create.body.errors[0].source.pointer).toBe('/restaurant_id');
  expect((await manager('PUT', '/api/delivery_zones/102', { json: { restaurant_id: 11 } })).status).toBe(422);
  expect((await manager('PUT', '/api/delivery_zones/102', { json: { name: 'Prenzlberg' } })).body.name).toBe(
    'Prenzlberg',
  );
});
