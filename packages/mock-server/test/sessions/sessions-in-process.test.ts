/**
 * Sessions in process: `mock.session(name)` is a whole instance of its own, reached without a header;
 * `mock.fetch` honours the header too. Expiry closes the instance: its callback retries stop.
 */
import { setupServer } from 'msw/node';
import { afterEach, expect, test, vi } from 'vitest';
import { createMock, type MockEngine } from '@restoapi/mock-server';
import { createMswHandlers } from '@restoapi/mock-server/msw';
import { FRIDAY_EVENING, base, call, login, margheritaOrder } from '../support/storefront.js';

afterEach(() => {
  vi.useRealTimers();
});

test('mock.session(name) works on its own world without a header, the same one the header reaches', async () => {
  const mock = createMock();
  const worker = mock.session('worker-1');
  expect((await call(worker, 'POST', '/__mock/reset', { json: { seed: 'empty' } })).status).toBe(200);

  expect(mock.session('worker-1')).toBe(worker);
  expect(worker.exportState().organizations).toEqual({ nextId: 1, rows: [] });
  const viaHeader = await mock.fetch(`${base}/__mock/state`, { headers: { 'X-Mock-Session': 'worker-1' } });
  expect((await viaHeader.json()).organizations.rows).toEqual([]);
  expect(mock.exportState().organizations!.rows).toHaveLength(2);
  expect(mock.session('default').exportState().organizations!.rows).toHaveLength(2);
  mock.close();
});

test('named sessions start from sessionSeed, read once when the first one is made, whatever the default session did', async () => {
  const fixture = () => ({ version: 1 as const, dispatchers: { rows: [{ id: 1, name: 'Dora Fischer' }] } });
  let reads = 0;
  const mock = createMock({
    state: fixture(),
    sessionSeed: () => {
      reads += 1;
      return fixture();
    },
  });
  mock.runtime.state.dispatchers.get(1)!.name = 'Changed';
  await call(mock, 'POST', '/__mock/reset', { json: { seed: 'empty' } });
  expect(reads).toBe(0);

  expect(mock.session('fresh').exportState().dispatchers!.rows).toEqual([{ id: 1, name: 'Dora Fischer' }]);
  mock.session('fresh').runtime.state.dispatchers.get(1)!.name = 'Changed too';
  expect(mock.session('another').exportState().dispatchers!.rows).toEqual([{ id: 1, name: 'Dora Fischer' }]);
  expect(reads).toBe(1);
  mock.close();
});

test('without sessionSeed, named sessions start from the demo seed, or from the state given', () => {
  const demo = createMock();
  expect(demo.session('a').exportState()).toEqual(demo.exportState());
  const given = createMock({ state: { version: 1, dispatchers: { rows: [{ id: 7, name: 'Eva' }] } } });
  expect(given.session('a').exportState().dispatchers!.rows).toEqual([{ id: 7, name: 'Eva' }]);
  demo.close();
  given.close();
});

test('mock.session refuses a bad name and a session beyond the limit with an error naming them', () => {
  const mock = createMock({ sessions: { max: 1 } });
  expect(() => mock.session('two words')).toThrow(/X-Mock-Session must be 1 to 64 characters/);
  mock.session('one');
  expect(() => mock.session('two')).toThrow(/at most 1 named sessions \(--max-sessions 1\)/);
  expect(() => createMock({ sessions: { max: -1 } })).toThrow(/sessions\.max must be a whole number/);
  mock.close();
});

test('only the default session reports changes (the --state file): named sessions are never persisted', async () => {
  const onChange = vi.fn();
  const mock = createMock({ onChange });
  await call(mock.session('scratch'), 'POST', '/__mock/orders', { json: margheritaOrder() });
  await call(mock.session('scratch'), 'POST', '/__mock/reset', { json: { seed: 'empty' } });
  expect(onChange).not.toHaveBeenCalled();
  const token = await login(mock, 'admin@pizza.demo');
  await call(mock, 'POST', '/api/draft_categories', {
    token,
    json: { draft_category: { name: 'Desserts', organization_id: 1 } },
  });
  expect(onChange).toHaveBeenCalled();
  mock.close();
});

/** A session with a carrier that always fails and one delivery order: its first callback attempt made. */
async function failingCarrierSession(
  mock: ReturnType<typeof createMock>,
  name: string,
  sent: string[],
): Promise<MockEngine> {
  const session = mock.session(name);
  await call(session, 'PUT', '/__mock/clock', { json: { now: FRIDAY_EVENING, frozen: false } });
  await call(session, 'POST', '/__mock/carriers', { json: { callback_url: 'http://carrier.test/callbacks' } });
  await call(session, 'POST', '/__mock/orders', { json: margheritaOrder() });
  await vi.waitFor(() => expect(sent).toHaveLength(1));
  return session;
}

test('callback retries run on real time while a session lives, and stop when it expires', async () => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'] });
  const sent: string[] = [];
  const callbackFetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    sent.push(new Headers(init?.headers).get('x-mock-session') ?? '');
    return new Response('down', { status: 500 });
  };
  const mock = createMock({ callbackFetch, sessions: { ttlMs: 60_000 } });

  await failingCarrierSession(mock, 'lives', sent);
  expect(sent).toEqual(['lives']);
  await vi.advanceTimersByTimeAsync(5_000);
  expect(sent.length).toBeGreaterThan(1);

  mock.sessions.drop('lives');
  sent.length = 0;
  const dying = await failingCarrierSession(mock, 'dies', sent);
  // Past the time to live: the sweep drops the session and closes its instance.
  await vi.advanceTimersByTimeAsync(61_000);
  expect(mock.sessions.list().map((s) => s.name)).toEqual(['default']);
  const attempts = sent.length;
  await vi.advanceTimersByTimeAsync(10 * 60_000);
  expect(sent).toHaveLength(attempts);
  expect(dying.runtime.clock.pending).toBeGreaterThan(0);
  mock.close();
});

test('under MSW, handlers bound to a session serve it without a header, and the shared handlers honour the header', async () => {
  const API = 'https://api.restaurant.test';
  const mock = createMock({ validateResponses: true });
  const server = setupServer(...createMswHandlers(mock, { baseUrl: API }));
  server.listen({ onUnhandledRequest: 'error' });
  try {
    // Per test: one session, its own handlers in front.
    server.use(...createMswHandlers(mock.session('test-1'), { baseUrl: API }));
    await fetch(`${API}/__mock/reset`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"seed":"empty"}',
    });
    expect(mock.session('test-1').runtime.state.organizations.size).toBe(0);
    expect(mock.runtime.state.organizations.size).toBe(2);

    server.resetHandlers();
    const viaHeader = await fetch(`${API}/__mock/state`, { headers: { 'X-Mock-Session': 'test-1' } });
    expect((await viaHeader.json()).organizations.rows).toEqual([]);
    expect((await fetch(`${API}/__mock/state`).then((r) => r.json())).organizations.rows).toHaveLength(2);
  } finally {
    server.close();
    mock.close();
  }
});
