import { createMock, demoSeed, type MockConfig, type MockStateJson, type MockEngine } from '@restoapi/mock-server';

/** Where the tests address the mock. */
export const base = 'http://localhost:4010';

/** Answers are checked against the document by the mock itself, so tests read them loosely. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Loose = any;

/** A parsed answer. */
export interface Answer<T = Loose> {
  status: number;
  body: T;
  headers: Headers;
}

/** A demo-world mock that checks every answer against the document. */
export function demoMock(config: Partial<MockConfig> = {}, state?: MockStateJson): MockEngine {
  return createMock({ validateResponses: true, config, ...(state ? { state } : {}) });
}

/** The demo seed plus a manager of Pizza Piccolo for restaurant 12 only (login `manager@pizza.demo` / `demo`). */
export function seedWithManager(): MockStateJson {
  const state = demoSeed();
  (state.apiUsers!.rows as unknown[]).push({
    id: 9,
    login: 'manager@pizza.demo',
    password: 'demo',
    api_key: null,
    name: 'Tom Manager',
    phone: '+49 30 1234599',
    avatar: {
      original: 'https://cdn.test/a.jpg',
      small: 'https://cdn.test/a.jpg',
      medium_square: 'https://cdn.test/a.jpg',
      medium: 'https://cdn.test/a.jpg',
    },
    account: { type: 'staff_member', id: 9 },
  });
  (state.staffMembers!.rows as unknown[]).push({ id: 9, role: 'manager', organization_id: 1, restaurant_ids: [12] });
  return state;
}

/** Signs in (password `demo`) and returns the token. */
export async function login(mock: MockEngine, user: string): Promise<string> {
  const res = await mock.fetch(`${base}/api/session?login=${encodeURIComponent(user)}&password=demo`, {
    method: 'POST',
  });
  if (res.status !== 200) throw new Error(`login ${user} failed: ${res.status}`);
  return ((await res.json()) as { meta: { token: string } }).meta.token;
}

/** Options of {@link call}. */
export interface CallOptions {
  token?: string;
  json?: unknown;
  form?: FormData;
  body?: BodyInit;
  headers?: Record<string, string>;
}

/** Sends one request and parses the JSON answer (if any). */
export async function call<T = Loose>(
  mock: MockEngine,
  method: string,
  path: string,
  options: CallOptions = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.Authorization = `Token token="${options.token}"`;
  let body: BodyInit | undefined = options.body;
  if (options.json !== undefined) {
    headers['Content-Type'] ??= 'application/json';
    body = JSON.stringify(options.json);
  }
  if (options.form) body = options.form;
  const res = await mock.fetch(`${base}${path}`, { method, headers, ...(body !== undefined ? { body } : {}) });
  const text = await res.text();
  return { status: res.status, body: text ? (JSON.parse(text) as T) : (undefined as T), headers: res.headers };
}

/** Signs in and returns a caller bound to that session. */
export async function as(
  mock: MockEngine,
  user: string,
): Promise<<T = Loose>(method: string, path: string, options?: Omit<CallOptions, 'token'>) => Promise<Answer<T>>> {
  const token = await login(mock, user);
  return (method, path, options = {}) => call(mock, method, path, { ...options, token });
}

/** The demo logins. */
export const ANNA = 'admin@pizza.demo';
export const KENJI = 'admin@sushi.demo';
export const DORA = 'dispatcher@demo';
export const MAX = 'courier@pizza.demo';
export const MANAGER = 'manager@pizza.demo';
