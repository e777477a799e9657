import { expect, test } from 'vitest';
import { createMock, type MockStateJson } from '@restoapi/mock-server';

const avatar = {
  original: 'https://cdn.test/a.png',
  small: 'https://cdn.test/a.png',
  medium_square: 'https://cdn.test/a.png',
  medium: 'https://cdn.test/a.png',
};
const state: MockStateJson = {
  version: 1,
  apiUsers: {
    rows: [
      {
        id: 1,
        login: 'admin@pizza.demo',
        password: 'demo',
        name: 'Anna Schmidt',
        phone: '+49 30 1234567',
        avatar,
        account: { type: 'staff_member', id: 1 },
      },
    ],
  },
  staffMembers: { rows: [{ id: 1, role: 'administrator', organization_id: 1, restaurant_ids: [11, 12] }] },
};

const base = 'http://localhost:4010';

test('a session is created from query credentials and its token works in both forms', async () => {
  const mock = createMock({ state, validateResponses: true });
  const created = await mock.fetch(`${base}/api/session?login=admin@pizza.demo&password=demo`, { method: 'POST' });
  expect(created.status).toBe(200);
  const body = (await created.json()) as { meta: { token: string }; staff_members: unknown[] };
  expect(body.meta.token.length).toBeGreaterThanOrEqual(43);
  expect(body.staff_members).toHaveLength(1);
  const byHeader = await mock.fetch(`${base}/api/session`, {
    headers: { Authorization: `Token token="${body.meta.token}"` },
  });
  expect(byHeader.status).toBe(200);
  const byQuery = await mock.fetch(`${base}/api/session?token=${body.meta.token}`);
  expect(byQuery.status).toBe(200);
  expect(byQuery.headers.get('x-request-id')).toMatch(/^req_/);
});

test('form credentials work and wrong ones get 401 with the Token challenge', async () => {
  const mock = createMock({ state, validateResponses: true });
  const ok = await mock.fetch(`${base}/api/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'login=admin%40pizza.demo&password=demo',
  });
  expect(ok.status).toBe(200);
  const wrong = await mock.fetch(`${base}/api/session?login=admin@pizza.demo&password=nope`, { method: 'POST' });
  expect(wrong.status).toBe(401);
  expect(wrong.headers.get('www-authenticate')).toBe('Token realm="restoapi"');
});

test('DELETE ends the session for good', async () => {
  const mock = createMock({ state, validateResponses: true });
  const { meta } = (await (
    await mock.fetch(`${base}/api/session?login=admin@pizza.demo&password=demo`, { method: 'POST' })
  ).json()) as { meta: { token: string } };
  const auth = { Authorization: `Token token="${meta.token}"` };
  expect((await mock.fetch(`${base}/api/session`, { method: 'DELETE', headers: auth })).status).toBe(204);
  const after = await mock.fetch(`${base}/api/session`, { headers: auth });
  expect(after.status).toBe(401);
  const body = (await after.json()) as { errors: { code: string; source: { header: string } }[] };
  expect(body.errors[0]).toMatchObject({ code: 'unauthenticated', source: { header: 'Authorization' } });
});

test('a JSON body is not taken as credentials: the operation accepts forms only', async () => {
  const mock = createMock({ state, validateResponses: true });
  const res = await mock.fetch(`${base}/api/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ login: 'admin@pizza.demo', password: 'demo' }),
  });
  expect(res.status).toBe(415);
});

test('a token expires after the idle time, which every use slides forward', async () => {
  const mock = createMock({ state, validateResponses: true, config: { tokenTtlMs: 60_000 } });
  await mock.runtime.clock.set(new Date('2026-11-20T18:00:00Z'), true);
  const created = await mock.fetch(`${base}/api/session?login=admin@pizza.demo&password=demo`, { method: 'POST' });
  const { token } = ((await created.json()) as { meta: { token: string } }).meta;
  const use = async (): Promise<number> => (await mock.fetch(`${base}/api/session?token=${token}`)).status;

  await mock.runtime.clock.advance(59_000);
  expect(await use()).toBe(200); // slides the expiry to 18:01:59
  await mock.runtime.clock.advance(59_000);
  expect(await use()).toBe(200);
  // The stored time is what counts, also when it is changed from outside (a state edit).
  const session = mock.runtime.state.sessions.find((s) => s.token === token)!;
  session.last_used_at = new Date(mock.runtime.clock.nowMs() - 61_000).toISOString();
  expect(await use()).toBe(401);
  session.last_used_at = new Date(mock.runtime.clock.nowMs()).toISOString();
  expect(await use()).toBe(200);
  await mock.runtime.clock.advance(60_001);
  expect(await use()).toBe(401);
  mock.close();
});
