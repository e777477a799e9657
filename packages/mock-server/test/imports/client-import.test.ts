import { expect, test } from 'vitest';
import type { MockEngine } from '@restoapi/mock-server';
import { ANNA, DORA, KENJI, as, demoMock } from '../support/catalog-client.js';

const jonas = {
  external_id: 'crm-7001',
  name: 'Jonas Becker',
  email: 'jonas.becker@example.com',
  gender: 'male',
  birthdate: '14/03/1991',
  registered_at: '2024-05-02T12:15:00+02:00',
  addresses: ['Wiener Straße 18'],
  phone_numbers: ['+49 170 1112233'],
  tags: ['regular'],
  is_blacklisted: false,
};
const mia = { external_id: 'crm-7002', name: 'Mia Hoffmann', phone_numbers: ['+49 176 4455667'] };

function orgClients(mock: MockEngine, organizationId = 1) {
  return mock.runtime.state.clients.filter((c) => c.organization_id === organizationId);
}

test('clients are created, then matched by external_id and updated on re-import', async () => {
  const mock = demoMock({ importDurationMs: 0 });
  const anna = await as(mock, ANNA);
  const res = await anna('POST', '/api/organizations/1/import/clients', { json: { clients: [jonas, mia] } });
  expect(res.status).toBe(202);
  expect(res.body.status).toBe('queued');
  expect(orgClients(mock)).toHaveLength(4);
  const state = (await anna('GET', '/api/organizations/1/import/clients')).body;
  expect(state).toMatchObject({ status: 'idle', job_id: res.body.job_id, job_status: 'done', job_percent: 100 });
  expect(state.job_message).toBe('Imported 2 clients: 2 created, 0 updated.');

  await anna('POST', '/api/organizations/1/import/clients', {
    json: { clients: [{ external_id: 'crm-7001', tags: ['vip'], is_blacklisted: true }] },
  });
  const updated = orgClients(mock).filter((c) => c.external_id === 'crm-7001');
  expect(updated).toHaveLength(1);
  expect(updated[0]).toMatchObject({
    name: 'Jonas Becker',
    tags: ['vip'],
    is_blacklisted: true,
    birthdate: '14/03/1991',
  });
  expect(orgClients(mock)).toHaveLength(4);
});

test('from_scratch=true deletes the previously imported clients first and keeps storefront clients', async () => {
  const mock = demoMock({ importDurationMs: 0 });
  const anna = await as(mock, ANNA);
  await anna('POST', '/api/organizations/1/import/clients', { json: { clients: [jonas, mia] } });
  const res = await anna('POST', '/api/organizations/1/import/clients?from_scratch=true', {
    json: { clients: [{ external_id: 'crm-9000', name: 'Neu' }] },
  });
  expect(res.status).toBe(202);
  expect(
    orgClients(mock)
      .map((c) => c.external_id ?? c.name)
      .sort(),
  ).toEqual(['Jonas Becker', 'Mia Hoffmann', 'crm-9000']);
  // Other organizations' clients are untouched.
  expect(orgClients(mock, 2)).toHaveLength(1);
  // An empty list with from_scratch only deletes.
  await anna('POST', '/api/organizations/1/import/clients?from_scratch=true', { json: { clients: [] } });
  expect(orgClients(mock).every((c) => c.external_id === null)).toBe(true);
});

test('a client import runs as a job with its own busy slot, independent of a menu import', async () => {
  const mock = demoMock({ importDurationMs: 1000 });
  await mock.runtime.clock.set(mock.runtime.clock.now(), true);
  const anna = await as(mock, ANNA);
  const menu = await anna('POST', '/api/organizations/1/import/menu', {
    json: { dishes: [{ name: 'Pizza', category_name: 'Pizza', price: 5 }] },
  });
  expect(menu.status).toBe(202);
  const first = await anna('POST', '/api/organizations/1/import/clients?from_scratch=true', {
    json: { clients: [jonas] },
  });
  expect(first.status).toBe(202);
  const busy = await anna('POST', '/api/organizations/1/import/clients', { json: { clients: [mia] } });
  expect(busy.status).toBe(409);
  expect(busy.body).toMatchObject({ status: 'busy', job_id: first.body.job_id, errors: [{ code: 'import_busy' }] });
  // Nothing happens before the job is done, so a failed or pending job deletes nothing.
  expect(orgClients(mock)).toHaveLength(2);
  await mock.runtime.clock.advance(500);
  expect((await anna('GET', '/api/organizations/1/import/clients')).body).toMatchObject({
    status: 'busy',
    job_status: 'working',
    job_percent: 50,
    job_message: 'Importing clients (0 of 1)',
  });
  await mock.runtime.clock.advance(500);
  expect(orgClients(mock)).toHaveLength(3);
  expect((await anna('GET', '/api/organizations/1/import/clients')).body.status).toBe('idle');
});

test('duplicate external ids and impossible birthdates are 422 at submission; nothing is queued', async () => {
  const mock = demoMock({ importDurationMs: 0 });
  const anna = await as(mock, ANNA);
  const res = await anna('POST', '/api/organizations/1/import/clients', {
    json: { clients: [jonas, { ...mia, birthdate: '31/02/1990' }, { external_id: 'crm-7001' }] },
  });
  expect(res.status).toBe(422);
  expect(res.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer)).toEqual([
    '/clients/1/birthdate',
    '/clients/2/external_id',
  ]);
  const schema = await anna('POST', '/api/organizations/1/import/clients', { json: { clients: [{ name: 'No id' }] } });
  expect(schema.body.errors[0]).toMatchObject({ code: 'required', source: { pointer: '/clients/0/external_id' } });
  expect(mock.runtime.state.importJobs.size).toBe(0);
  expect(orgClients(mock)).toHaveLength(2);
});

test('more clients than maxImportRecords is 413; scope is 403 for a dispatcher and 404 for another organization', async () => {
  const mock = demoMock({ maxImportRecords: 1 });
  const anna = await as(mock, ANNA);
  expect((await anna('POST', '/api/organizations/1/import/clients', { json: { clients: [jonas, mia] } })).status).toBe(
    413,
  );
  expect(
    (await (await as(mock, DORA))('POST', '/api/organizations/1/import/clients', { json: { clients: [] } })).status,
  ).toBe(403);
  expect((await (await as(mock, DORA))('GET', '/api/organizations/1/import/clients')).status).toBe(403);
  expect((await (await as(mock, KENJI))('GET', '/api/organizations/1/import/clients')).status).toBe(404);
  expect((await anna('GET', '/api/organizations/1/import/clients')).body).toEqual({
    status: 'idle',
    job_id: null,
    job_status: null,
    job_message: null,
    job_percent: null,
  });
});
