import { expect, test } from 'vitest';
import { recordCount } from '../../src/state/session-limits.js';
import { ANNA, KENJI, as, call, demoMock } from '../support/catalog-client.js';

const client = (n: number) => ({
  external_id: `crm-${n}`,
  name: `Client ${n}`,
  phone_numbers: [`+49 176 44556${String(n).padStart(2, '0')}`],
});

test('maxRecords: a session at its limit refuses what would add a record, 429 naming the limit; reads go on', async () => {
  const mock = demoMock();
  const held = recordCount(mock.runtime);
  // Room for the sign-in's session token and nothing more.
  mock.runtime.config.maxRecords = held + 1;
  const anna = await as(mock, ANNA);
  const refused = await anna('POST', '/api/organizations/1/import/clients', { json: { clients: [client(1)] } });
  expect(refused.status).toBe(429);
  expect(refused.body.errors[0]).toMatchObject({ status: '429', code: 'record_limit_reached' });
  expect(refused.body.errors[0].detail).toContain(`maxRecords (${held + 1}; restoapi-mock --max-records)`);
  const signIn = await call(mock, 'POST', `/api/session?login=${encodeURIComponent(KENJI)}&password=demo`);
  expect(signIn.status).toBe(429);
  expect((await anna('GET', '/api/organizations/1')).status).toBe(200);
  expect(recordCount(mock.runtime)).toBe(held + 1);
});

test('maxConcurrentImports: one more import while the session runs its limit is 429 naming the limit', async () => {
  const mock = demoMock({ maxConcurrentImports: 1 });
  await mock.runtime.clock.set(mock.runtime.clock.now(), true);
  const anna = await as(mock, ANNA);
  const kenji = await as(mock, KENJI);
  const first = await anna('POST', '/api/organizations/1/import/clients', { json: { clients: [client(1)] } });
  expect(first.status).toBe(202);
  const second = await kenji('POST', '/api/organizations/2/import/clients', { json: { clients: [client(2)] } });
  expect(second.status).toBe(429);
  expect(second.body.errors[0]).toMatchObject({ code: 'import_limit_reached' });
  expect(second.body.errors[0].detail).toContain('maxConcurrentImports (1; restoapi-mock --max-concurrent-imports)');
  // Once the running job is done (the clock passes its end), the slot is free again.
  await mock.runtime.clock.advance(mock.runtime.config.importDurationMs + 1);
  const third = await kenji('POST', '/api/organizations/2/import/clients', { json: { clients: [client(2)] } });
  expect(third.status).toBe(202);
});

test('maxImportRecords: an import over the limit is 413 naming the field', async () => {
  const mock = demoMock({ maxImportRecords: 2 });
  const anna = await as(mock, ANNA);
  const res = await anna('POST', '/api/organizations/1/import/clients', {
    json: { clients: [client(1), client(2), client(3)] },
  });
  expect(res.status).toBe(413);
  expect(res.body.errors[0].source.pointer).toBe('/clients');
});
