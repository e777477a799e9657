import { expect, test } from 'vitest';
import { ANNA, DORA, KENJI, MAX, as, demoMock } from '../support/catalog-client.js';

test('a staff member sees exactly its own organization, a dispatcher every one, a courier the one it delivers for', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const dora = await as(mock, DORA);
  const max = await as(mock, MAX);
  const own = await anna('GET', '/api/organizations');
  expect(own.status).toBe(200);
  expect(own.body.organizations.map((o: { id: number }) => o.id)).toEqual([1]);
  expect(own.body.meta).toEqual({ count: 1, total: 1 });
  expect((await dora('GET', '/api/organizations')).body.organizations.map((o: { id: number }) => o.id)).toEqual([1, 2]);
  expect((await max('GET', '/api/organizations')).body.organizations.map((o: { id: number }) => o.id)).toEqual([1]);
});

test("another organization's record answers 404, exactly like a missing one", async () => {
  const mock = demoMock();
  const kenji = await as(mock, KENJI);
  const foreign = await kenji('GET', '/api/organizations/1');
  expect(foreign.status).toBe(404);
  expect(foreign.body.errors[0]).toMatchObject({ code: 'not_found', source: { parameter: 'id' } });
  expect((await kenji('GET', '/api/organizations/999')).status).toBe(404);
  expect((await kenji('GET', '/api/organizations/2')).body.organization.name).toBe('Sakura Sushi');
});

test('updating changes only the editable fields and social_network replaces the whole set of links', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const res = await anna('PUT', '/api/organizations/1', {
    json: { organization: { about: 'Pizza from two ovens', social_network: { vk: 'https://vk.com/pizzapiccolo' } } },
  });
  expect(res.status).toBe(200);
  expect(res.body.organization).toMatchObject({
    about: 'Pizza from two ovens',
    social_network: { vk: 'https://vk.com/pizzapiccolo' },
    name: 'Pizza Piccolo',
  });
  expect(res.body.organization.social_network.instagram).toBeUndefined();
  expect((await anna('GET', '/api/organizations/1')).body.organization.about).toBe('Pizza from two ovens');
});

test('a GET body can be sent back: non-editable fields equal to the stored value are ignored', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const { organization } = (await anna('GET', '/api/organizations/1')).body;
  const res = await anna('PUT', '/api/organizations/1', {
    json: { organization: { ...organization, phone: '+49 30 1234568' } },
  });
  expect(res.status).toBe(200);
  expect(res.body.organization).toEqual({ ...organization, phone: '+49 30 1234568' });
});

test('a different value of a non-editable field is 422 not_editable with its pointer, and nothing changes', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const res = await anna('PUT', '/api/organizations/1', {
    json: { organization: { name: 'Renamed', host: 'other.restoapi.dev', accept_cashless: false } },
  });
  expect(res.status).toBe(422);
  expect(res.body.errors.map((e: { code: string; source: { pointer: string } }) => [e.code, e.source.pointer])).toEqual(
    [
      ['not_editable', '/organization/host'],
      ['not_editable', '/organization/accept_cashless'],
    ],
  );
  expect((await anna('GET', '/api/organizations/1')).body.organization.name).toBe('Pizza Piccolo');
});

test('an unknown field is 422 unknown_field', async () => {
  const mock = demoMock();
  const anna = await as(mock, ANNA);
  const res = await anna('PUT', '/api/organizations/1', { json: { organization: { slogan: 'x' } } });
  expect(res.status).toBe(422);
  expect(res.body.errors[0]).toMatchObject({ code: 'unknown_field', source: { pointer: '/organization/slogan' } });
});

test('dispatchers and couriers may not edit an organization (403); staff of another organization gets 404', async () => {
  const mock = demoMock();
  const body = { json: { organization: { about: 'x' } } };
  expect((await (await as(mock, DORA))('PUT', '/api/organizations/1', body)).status).toBe(403);
  expect((await (await as(mock, MAX))('PUT', '/api/organizations/1', body)).status).toBe(403);
  expect((await (await as(mock, KENJI))('PUT', '/api/organizations/1', body)).status).toBe(404);
  expect((await (await as(mock, DORA))('POST', '/api/organizations/1/publish')).status).toBe(403);
  expect((await (await as(mock, KENJI))('POST', '/api/organizations/1/publish')).status).toBe(404);
});
