/**
 * X-Mock-Session over HTTP: one mock server, several isolated worlds, picked per request by a header.
 */
import { afterEach, expect, test } from 'vitest';
import { createControlClient } from '@restoapi/mock-server';
import { createMockServer, type MockServer, type MockServerOptions } from '@restoapi/mock-server/node';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.js';
import { FRIDAY_EVENING, margheritaOrder, type Loose } from '../support/storefront.js';

const open: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((server) => server.close()));
});

async function server(options: MockServerOptions = {}): Promise<MockServer> {
  const started = await createMockServer({ validateResponses: true, ...options });
  open.push(started);
  return started;
}

async function receiver(...args: Parameters<typeof startCallbackReceiver>): Promise<CallbackReceiver> {
  const started = await startCallbackReceiver(...args);
  open.push(started);
  return started;
}

/** A JSON call to the server, in a session when `session` is given. */
async function call(
  url: string,
  method: string,
  path: string,
  options: { session?: string; json?: unknown; token?: string } = {},
): Promise<{ status: number; headers: Headers; body: Loose }> {
  const headers: Record<string, string> = {};
  if (options.session !== undefined) headers['X-Mock-Session'] = options.session;
  if (options.json !== undefined) headers['Content-Type'] = 'application/json';
  if (options.token) headers.Authorization = `Token token="${options.token}"`;
  const res = await fetch(`${url}${path}`, {
    method,
    headers,
    ...(options.json !== undefined ? { body: JSON.stringify(options.json) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null };
}

async function login(url: string, user: string, session?: string): Promise<string> {
  const res = await call(url, 'POST', `/api/session?login=${user}&password=demo`, session ? { session } : {});
  expect(res.status).toBe(200);
  return res.body.meta.token as string;
}

const newCategory = { draft_category: { name: 'Desserts', organization_id: 1 } };

test('a reset in one session leaves the other sessions and the default session as they were', async () => {
  const { url } = await server();
  expect((await call(url, 'POST', '/__mock/reset', { session: 'worker-1', json: { seed: 'empty' } })).status).toBe(200);

  expect((await call(url, 'GET', '/__mock/state', { session: 'worker-1' })).body.organizations).toEqual({
    nextId: 1,
    rows: [],
  });
  expect((await call(url, 'GET', '/__mock/state', { session: 'worker-2' })).body.organizations.rows).toHaveLength(2);
  expect((await call(url, 'GET', '/__mock/state')).body.organizations.rows).toHaveLength(2);
  // `default` names the session of requests without the header.
  expect((await call(url, 'GET', '/__mock/state', { session: 'default' })).body.organizations.rows).toHaveLength(2);
});

test('data made in one session is invisible in another, and ids are counted per session', async () => {
  const { url } = await server();
  const tokenA = await login(url, 'admin@pizza.demo', 'a');
  const tokenB = await login(url, 'admin@pizza.demo', 'b');

  const inA = await call(url, 'POST', '/api/draft_categories', { session: 'a', token: tokenA, json: newCategory });
  const inB = await call(url, 'POST', '/api/draft_categories', { session: 'b', token: tokenB, json: newCategory });
  expect(inA.status).toBe(201);
  expect(inB.body.draft_category.id).toBe(inA.body.draft_category.id);

  const id = inA.body.draft_category.id as number;
  await call(url, 'DELETE', `/api/draft_categories/${id}`, { session: 'b', token: tokenB });
  expect((await call(url, 'GET', `/api/draft_categories/${id}`, { session: 'b', token: tokenB })).status).toBe(404);
  expect((await call(url, 'GET', `/api/draft_categories/${id}`, { session: 'a', token: tokenA })).status).toBe(200);
  const inDefault = await call(url, 'GET', `/api/draft_categories/${id}`, {
    token: await login(url, 'admin@pizza.demo'),
  });
  expect(inDefault.status).toBe(404);
});

test('a token made in one session is refused in another with 401', async () => {
  const { url } = await server();
  const token = await login(url, 'dispatcher@demo', 'a');

  expect((await call(url, 'GET', '/api/orders', { session: 'a', token })).status).toBe(200);
  const elsewhere = await call(url, 'GET', '/api/orders', { session: 'b', token });
  expect(elsewhere.status).toBe(401);
  expect(elsewhere.headers.get('www-authenticate')).toBe('Token realm="restoapi"');
  expect((await call(url, 'GET', '/api/orders', { token })).status).toBe(401);
});

test('each session has its own clock, faults, notifications and storefront orders', async () => {
  const { url } = await server();
  await call(url, 'PUT', '/__mock/clock', { session: 'a', json: { now: FRIDAY_EVENING, frozen: true } });
  await call(url, 'PUT', '/__mock/clock', { session: 'b', json: { now: '2030-01-01T00:00:00Z', frozen: true } });
  expect((await call(url, 'GET', '/__mock/clock', { session: 'a' })).body.now).toBe('2026-11-20T17:30:00.000Z');
  expect((await call(url, 'GET', '/__mock/clock', { session: 'b' })).body.now).toBe('2030-01-01T00:00:00.000Z');
  expect((await call(url, 'GET', '/__mock/clock')).body.frozen).toBe(false);

  await call(url, 'POST', '/__mock/faults', {
    session: 'a',
    json: { method: 'GET', path: '/api/couriers', status: 503 },
  });
  expect((await call(url, 'GET', '/api/couriers', { session: 'a' })).status).toBe(503);
  expect((await call(url, 'GET', '/api/couriers', { session: 'b' })).status).toBe(401);
  expect((await call(url, 'GET', '/__mock/faults')).body.faults).toEqual([]);

  const placed = await call(url, 'POST', '/__mock/orders', { session: 'a', json: margheritaOrder() });
  expect(placed.status).toBe(201);
  const orderId = placed.body.order.id as number;
  await call(url, 'PUT', `/api/orders/${orderId}/status`, {
    session: 'a',
    token: await login(url, 'dispatcher@demo', 'a'),
    json: { status: 'accepted' },
  });
  const sms = (session?: string) =>
    call(url, 'GET', `/__mock/notifications?order_id=${orderId}`, session ? { session } : {});
  expect((await sms('a')).body.notifications.length).toBeGreaterThan(0);
  expect((await sms('b')).body.notifications).toEqual([]);
  expect((await sms()).body.notifications).toEqual([]);
  expect(
    (
      await call(url, 'GET', `/api/orders/${orderId}`, {
        session: 'b',
        token: await login(url, 'dispatcher@demo', 'b'),
      })
    ).status,
  ).toBe(404);
});

test('settings and a state import act on the session they name only', async () => {
  const { url } = await server();
  await call(url, 'PUT', '/__mock/config', { session: 'a', json: { importDurationMs: 0 } });
  expect((await call(url, 'GET', '/__mock/config', { session: 'a' })).body.importDurationMs).toBe(0);
  expect((await call(url, 'GET', '/__mock/config', { session: 'b' })).body.importDurationMs).toBe(3000);
  expect((await call(url, 'GET', '/__mock/config')).body.importDurationMs).toBe(3000);

  const exported = (await call(url, 'GET', '/__mock/state', { session: 'a' })).body;
  exported.organizations.rows[0].name = 'Pizza Grande';
  expect((await call(url, 'PUT', '/__mock/state', { session: 'b', json: exported })).status).toBe(204);
  const name = async (session?: string) =>
    (await call(url, 'GET', '/__mock/state', session ? { session } : {})).body.organizations.rows[0].name;
  expect(await name('b')).toBe('Pizza Grande');
  expect(await name('a')).toBe('Pizza Piccolo');
  expect(await name()).toBe('Pizza Piccolo');
});

test('import jobs are per session: a running menu import in one session does not make another busy', async () => {
  const { url } = await server({ config: { importDurationMs: 60_000 } });
  const menu = { dishes: [{ name: 'Ramen', price: 9, category_name: 'Soups' }] };
  const tokenA = await login(url, 'admin@pizza.demo', 'a');
  const tokenB = await login(url, 'admin@pizza.demo', 'b');

  const first = await call(url, 'POST', '/api/organizations/1/import/menu', {
    session: 'a',
    token: tokenA,
    json: menu,
  });
  expect(first.status).toBe(202);
  const again = await call(url, 'POST', '/api/organizations/1/import/menu', {
    session: 'a',
    token: tokenA,
    json: menu,
  });
  expect(again.status).toBe(409);
  const other = await call(url, 'GET', '/api/organizations/1/import/menu', { session: 'b', token: tokenB });
  expect(other.body).toMatchObject({ status: 'idle', job_id: null });
  expect(
    (await call(url, 'POST', '/api/organizations/1/import/menu', { session: 'b', token: tokenB, json: menu })).status,
  ).toBe(202);
});

test('callbacks of a session go only to the carriers registered in it, name the session, and the carrier answers back into it', async () => {
  const { url } = await server();
  const carrier = await receiver([{ status: 500 }, { status: 500 }]);
  await call(url, 'PUT', '/__mock/clock', { session: 'a', json: { now: FRIDAY_EVENING, frozen: true } });
  await call(url, 'PUT', '/__mock/clock', { session: 'b', json: { now: FRIDAY_EVENING, frozen: true } });
  await call(url, 'PUT', '/__mock/clock', { json: { now: FRIDAY_EVENING, frozen: true } });
  expect(
    (await call(url, 'POST', '/__mock/carriers', { session: 'a', json: { callback_url: carrier.url } })).status,
  ).toBe(201);
  expect((await call(url, 'GET', '/__mock/carriers', { session: 'b' })).body.carriers).toEqual([]);

  // Orders of the default session and of session b reach no carrier.
  await call(url, 'POST', '/__mock/orders', { json: margheritaOrder() });
  await call(url, 'POST', '/__mock/orders', { session: 'b', json: margheritaOrder() });
  const placed = await call(url, 'POST', '/__mock/orders', { session: 'a', json: margheritaOrder() });
  await carrier.nth(1);
  expect(carrier.received).toHaveLength(1);
  expect(carrier.received[0]!.headers['x-mock-session']).toBe('a');

  // The failed attempt is retried on session a's clock only.
  await call(url, 'POST', '/__mock/clock/advance', { session: 'b', json: { ms: 10 * 60_000 } });
  await call(url, 'POST', '/__mock/clock/advance', { json: { ms: 10 * 60_000 } });
  expect(carrier.received).toHaveLength(1);
  await call(url, 'POST', '/__mock/clock/advance', { session: 'a', json: { ms: 2_000 } });
  expect(carrier.received).toHaveLength(2);
  expect(carrier.received[1]!.headers['x-mock-session']).toBe('a');

  const secureId = carrier.received[0]!.query.order_secure_id!;
  expect(carrier.received[0]!.query.order_id).toBe(String(placed.body.order.id));
  expect((await call(url, 'GET', `/api-delivery/orders/${secureId}`, { session: 'a' })).status).toBe(200);
  expect((await call(url, 'GET', `/api-delivery/orders/${secureId}`)).status).toBe(404);
});

test('a bad session name is a 400 naming the header, and creates nothing', async () => {
  const { url, mock } = await server();
  for (const name of ['', 'two words', 'x'.repeat(65), 'ümlaut', 'a/b']) {
    const res = await fetch(`${url}/api/orders`, { headers: { 'X-Mock-Session': name } });
    expect(res.status, name).toBe(400);
    expect((await res.json()).errors[0]).toMatchObject({
      code: 'invalid_session',
      source: { header: 'X-Mock-Session' },
    });
  }
  expect(mock.sessions.size).toBe(0);
  expect((await call(url, 'GET', '/__mock/clock', { session: 'x'.repeat(64) })).status).toBe(200);
  expect((await call(url, 'GET', '/__mock/clock', { session: 'A-z_0.9' })).status).toBe(200);
});

test('GET /__mock/sessions lists the sessions, and DELETE drops one so that its next use starts from the seed', async () => {
  const { url } = await server();
  const control = createControlClient({ baseUrl: url, session: 'w1' });
  await control.POST('/__mock/reset', { body: { seed: 'empty' } });

  const { data } = await control.GET('/__mock/sessions');
  expect(data!.sessions.map((s) => s.name)).toEqual(['default', 'w1']);
  expect(data!.sessions[1]).toMatchObject({ name: 'w1', size: 0 });
  expect(data!.sessions[0]!.size).toBeGreaterThan(50);
  expect(data!).toMatchObject({ max_sessions: 100, ttl_ms: 30 * 60_000 });
  expect(data!.sessions[0]!.expires_at).toBeNull();
  expect(Date.parse(data!.sessions[1]!.expires_at!)).toBe(Date.parse(data!.sessions[1]!.last_used_at) + 30 * 60_000);

  // Listing or dropping never creates the session a request names.
  await call(url, 'GET', '/__mock/sessions', { session: 'nosy' });
  expect((await call(url, 'DELETE', '/__mock/sessions/w1', { session: 'w1' })).status).toBe(204);
  expect((await call(url, 'GET', '/__mock/sessions')).body.sessions.map((s: Loose) => s.name)).toEqual(['default']);
  expect((await call(url, 'DELETE', '/__mock/sessions/w1')).status).toBe(404);
  const refused = await call(url, 'DELETE', '/__mock/sessions/default');
  expect(refused.status).toBe(409);
  expect(refused.body.errors[0]).toMatchObject({ code: 'default_session', source: { parameter: 'name' } });
  expect((await call(url, 'DELETE', '/__mock/sessions/not%20a%20name')).status).toBe(400);

  expect((await control.GET('/__mock/state')).data!.organizations!.rows).toHaveLength(2);
});

test('a new session beyond the limit is refused with 429 naming the limit; the others keep working', async () => {
  const { url, mock } = await server({ sessions: { max: 2, ttlMs: 0 } });
  await call(url, 'GET', '/__mock/clock', { session: 'a' });
  await call(url, 'GET', '/__mock/clock', { session: 'b' });

  const refused = await call(url, 'GET', '/__mock/clock', { session: 'c' });
  expect(refused.status).toBe(429);
  expect(refused.body.errors[0]).toMatchObject({ code: 'session_limit_reached', source: { header: 'X-Mock-Session' } });
  expect(refused.body.errors[0].detail).toContain('at most 2 named sessions (--max-sessions 2)');
  // Without a time to live no place frees itself, so there is nothing to wait for.
  expect(refused.headers.get('retry-after')).toBeNull();
  expect(mock.sessions.size).toBe(2);
  expect((await call(url, 'GET', '/__mock/clock', { session: 'a' })).status).toBe(200);
  expect((await call(url, 'GET', '/__mock/clock')).status).toBe(200);

  await call(url, 'DELETE', '/__mock/sessions/a');
  expect((await call(url, 'GET', '/__mock/clock', { session: 'c' })).status).toBe(200);
});

test('idle sessions expire after the time to live; with one, the limit answer says when a place frees', async () => {
  let now = Date.parse('2026-11-20T17:00:00Z');
  const { url } = await server({ sessions: { max: 1, ttlMs: 60_000, now: () => now } });
  await call(url, 'POST', '/__mock/reset', { session: 'old', json: { seed: 'empty' } });

  now += 20_000;
  const refused = await call(url, 'GET', '/__mock/clock', { session: 'new' });
  expect(refused.status).toBe(429);
  expect(refused.headers.get('retry-after')).toBe('40');

  now += 40_001;
  expect((await call(url, 'GET', '/__mock/clock', { session: 'new' })).status).toBe(200);
  expect((await call(url, 'GET', '/__mock/sessions')).body.sessions.map((s: Loose) => s.name)).toEqual([
    'default',
    'new',
  ]);
});
