import { demoSeed } from '@restoapi/mock-server';
import { afterEach, describe, expect, test } from 'vitest';
import { AuthenticationError, type TokenStore } from '@restoapi/sdk';
import { startMock, TRANSPORTS, type MockTarget, expectInvalid } from '../support/mock-target.js';

describe.each(TRANSPORTS)('session over %s', (transport) => {
  let target: MockTarget;
  afterEach(() => target?.close());

  /** A fetch that records each request (as a `Request`, whatever form it came in) before passing it on. */
  function recordingFetch(seen: Request[]) {
    return (input: string | Request, init?: RequestInit) => {
      seen.push(typeof input === 'string' ? new Request(input, init) : input.clone());
      return (target.fetch ?? globalThis.fetch)(input, init);
    };
  }

  test('login stores the token and sends it as Authorization: Token token="…" on later calls', async () => {
    target = await startMock(transport);
    const seen: Request[] = [];
    const api = target.client({ fetch: recordingFetch(seen) });
    const session = await api.session.login('admin@pizza.demo', 'demo');
    expect(session.api_user).toMatchObject({ login: 'admin@pizza.demo', account: { type: 'staff_member' } });
    expect(await api.session.token()).toBe(session.meta.token);

    // The credentials travel as a form body, not in the URL.
    const login = seen[0]!;
    expect(new URL(login.url).search).toBe('');
    expect(login.headers.get('content-type')).toBe('application/x-www-form-urlencoded');
    expect(Object.fromEntries(new URLSearchParams(await login.text()))).toEqual({
      login: 'admin@pizza.demo',
      password: 'demo',
    });

    // The answer's shape is not shown by the spec (typed `unknown`); the mock decided it is the login's answer.
    if (target.ours) expect(await api.session.get()).toMatchObject({ api_user: { id: session.api_user.id } });
    else expect(await api.session.get()).toBeDefined();
    expect(seen[1]!.headers.get('authorization')).toBe(`Token token="${session.meta.token}"`);
  });

  test('logout invalidates the token on the service and forgets it', async () => {
    target = await startMock(transport);
    const api = await target.signIn('dispatcher@demo');
    const token = (await api.session.token())!;
    await expect(api.session.logout()).resolves.toBeUndefined();
    expect(await api.session.token()).toBeUndefined();

    const stale = target.client({ token });
    const error = await stale.session.get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error).toMatchObject({ status: 401, operation: 'GET /api/session' });
  });

  test('an async token supplier plugs in the caller storage, read before every request', async () => {
    target = await startMock(transport);
    const signer = await target.signIn('courier@pizza.demo');
    const stored = { token: (await signer.session.token())! };
    let reads = 0;
    const api = target.client({
      token: async () => {
        reads += 1;
        return stored.token;
      },
    });
    const current = await api.session.get();
    if (target.ours) expect(current).toMatchObject({ api_user: { login: 'courier@pizza.demo' } });
    await api.couriers.get(501);
    expect(reads).toBe(2);
  });

  test('a TokenStore is written by login and cleared by logout', async () => {
    target = await startMock(transport);
    const writes: (string | null)[] = [];
    let current: string | null = null;
    const store: TokenStore = {
      get: async () => current,
      set: async (token) => {
        writes.push(token);
        current = token;
      },
    };
    const api = target.client({ token: store });
    const { meta } = await api.session.login('admin@sushi.demo', 'demo');
    expect(current).toBe(meta.token);
    await api.session.logout();
    expect(writes).toEqual([meta.token, null]);
  });

  test('tokenIn: query sends the token as the token query parameter instead of the header', async () => {
    target = await startMock(transport);
    const seen: Request[] = [];
    const api = target.client({ fetch: recordingFetch(seen), tokenIn: 'query' });
    const { meta } = await api.session.login('admin@pizza.demo', 'demo');
    const { organizations } = await api.organizations.list();
    expect(organizations.map((o) => o.id)).toEqual([1]);
    const last = seen.at(-1)!;
    expect(new URL(last.url).searchParams.get('token')).toBe(meta.token);
    expect(last.headers.get('authorization')).toBeNull();
    // Requests with a body keep it when the token moves to the query string.
    const updated = await api.organizations.update(1, { about: 'Pizza from the query string' });
    expect(updated.organization.about).toBe('Pizza from the query string');
    expect(new URL(seen.at(-1)!.url).searchParams.get('token')).toBe(meta.token);
  });

  test('wrong credentials are an AuthenticationError with the request id', async () => {
    target = await startMock(transport);
    const api = target.client();
    const error = await api.session.login('admin@pizza.demo', 'wrong').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).requestId).toMatch(/^req_/);
    expect(await api.session.token()).toBeUndefined();
  });

  test('loginWithApiKey signs in with an API key', async () => {
    const state = demoSeed();
    const users = state.apiUsers!.rows as { id: number; api_key: string | null }[];
    users.find((u) => u.id === 3)!.api_key = 'key_dispatcher_0123456789';
    target = await startMock(transport, { state });
    const api = target.client();
    const { api_user } = await api.session.loginWithApiKey('key_dispatcher_0123456789');
    expect(api_user.account.type).toBe('dispatcher');
    await expect(target.client().session.loginWithApiKey('nope')).rejects.toBeInstanceOf(AuthenticationError);
  });

  test('missing credentials are a 422 with a field pointer', async () => {
    target = await startMock(transport);
    const error = await target
      .client()
      .session.login('', '')
      .catch((e: unknown) => e);
    expectInvalid(target, error, '/login');
  });
});
