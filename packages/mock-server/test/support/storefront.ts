import {
  createControlClient,
  createMock,
  type ControlClient,
  type MockOptions,
  type MockEngine,
} from '@restoapi/mock-server';

/** Where the tests address the mock. */
export const base = 'http://localhost:4010';

/** Friday 20 November 2026, 18:30 in Berlin: every demo zone is open (11:00–23:00). */
export const FRIDAY_EVENING = '2026-11-20T18:30:00+01:00';

/** A demo-world mock checking its answers against the documents, with its typed control client, clock frozen at `at`. */
export async function storefrontMock(
  at = FRIDAY_EVENING,
  options: MockOptions = {},
): Promise<{ mock: MockEngine; control: ControlClient }> {
  const mock = createMock({ validateResponses: true, ...options });
  const control = createControlClient({ baseUrl: base, fetch: mock.fetch });
  const { response } = await control.PUT('/__mock/clock', { body: { now: at, frozen: true } });
  if (response.status !== 200) throw new Error(`could not set the clock: ${response.status}`);
  return { mock, control };
}

/** The example order of the documentation: a 40 cm Margherita with mozzarella and a cola, cash, to Wiener Straße 18 (zone 101). */
export function margheritaOrder() {
  return {
    organization_id: 1,
    latitude: 52.4975,
    longitude: 13.431,
    city: 'Berlin',
    address: 'Wiener Straße 18',
    apartment: '4',
    floor: '2',
    contact_name: 'Jonas Becker',
    contact_phone: '+49 170 1112233',
    description: 'Ring at Becker, 2nd floor.',
    payment_source: 'cash' as const,
    change: 50,
    items: [
      {
        dish_id: 10001,
        amount: 1,
        config: [
          { group: 'Size', items: ['40 cm'] },
          { group: 'Extra toppings', items: ['Mozzarella'] },
        ],
      },
      { dish_id: 10003, amount: 1 },
    ],
  };
}

/** Signs in with the demo password and returns the token. */
export async function login(mock: MockEngine, user: string): Promise<string> {
  const res = await mock.fetch(`${base}/api/session?login=${encodeURIComponent(user)}&password=demo`, {
    method: 'POST',
  });
  if (res.status !== 200) throw new Error(`login ${user} failed: ${res.status}`);
  return ((await res.json()) as { meta: { token: string } }).meta.token;
}

/** Answers are checked against the document by the mock itself, so tests read them loosely. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Loose = any;

/** JSON request to the mock. */
export async function call(
  mock: MockEngine,
  method: string,
  path: string,
  options: { json?: unknown; token?: string } = {},
): Promise<{ status: number; headers: Headers; body: Loose }> {
  const headers: Record<string, string> = {};
  if (options.json !== undefined) headers['Content-Type'] = 'application/json';
  if (options.token) headers.Authorization = `Token token="${options.token}"`;
  const res = await mock.fetch(`${base}${path}`, {
    method,
    headers,
    ...(options.json !== undefined ? { body: JSON.stringify(options.json) } : {}),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}
