/**
 * `--record` and `--redact` through their public parts: what a proxy in front of the mock records is a
 * valid fixture, a fresh mock seeded with it answers the recorded GETs with the same bodies, the logins
 * work with the replay password, and redaction is stable and leaves no client data behind.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { createMock, demoSeed, validateFixture, type MockStateJson } from '../../src/index.js';
import { createMockServer } from '../../src/node.js';
import { createProxyServer } from '../../src/proxy/proxy-server.js';
import {
  describeRecording,
  leftOutFile,
  Recorder,
  REPLAY_PASSWORD,
  UNKNOWN_ORGANIZATION,
  type ClientRedactor,
  type LeftOutRecord,
} from '../../src/proxy/recorder.js';
import { RecordingFile } from '../../src/proxy/recording-file.js';
import { createRedactor } from '../../src/proxy/redaction.js';

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

const RECORDED_GETS = [
  '/api/organizations',
  '/api/organizations/1',
  '/api/restaurants',
  '/api/restaurants/11',
  '/api/delivery_zones',
  '/api/delivery_zones/101',
  '/api/couriers',
  '/api/couriers/501',
  '/api/draft_categories',
  '/api/draft_categories/1001',
  '/api/draft_dishes',
  '/api/draft_dishes/10001',
  '/api/orders?per_page=100',
  '/api/orders/5001',
  '/api/orders/5001/items',
  '/api/orders/5001/buddies',
  '/api/orders/5002',
  '/api/orders/5002/items',
  '/api/orders/5002/buddies',
];

async function bodyOf(fetcher: typeof fetch, url: string, headers: Record<string, string>): Promise<unknown> {
  const res = await fetcher(url, { headers });
  expect(res.status, url).toBe(200);
  return res.json();
}

async function tokenOf(
  fetcher: typeof fetch,
  base: string,
  login: string,
  password: string,
): Promise<Record<string, string>> {
  const res = await fetcher(`${base}/api/session?login=${login}&password=${password}`, { method: 'POST' });
  expect(res.status, `login ${login}`).toBe(200);
  const { meta } = (await res.json()) as { meta: { token: string } };
  return { Authorization: `Token token="${meta.token}"` };
}

/** Runs the recorded GETs through a proxy in front of the demo mock; returns the recorder and what was seen. */
async function recordDemo(redactor?: ClientRedactor): Promise<{ recorder: Recorder; seen: Map<string, unknown> }> {
  // One instant for every recording, so that two recordings of the demo seed are the same world.
  const mock = await createMockServer({ port: 0, state: demoSeed(new Date('2026-11-20T18:30:00Z')) });
  cleanups.push(() => mock.close());
  const recorder = new Recorder(redactor);
  const proxy = await createProxyServer({ upstream: mock.url, onAnswer: recorder.observe.bind(recorder) });
  cleanups.push(() => proxy.close());
  const auth = await tokenOf(fetch, proxy.url, 'admin@pizza.demo', 'demo');
  const seen = new Map<string, unknown>();
  for (const get of RECORDED_GETS) seen.set(get, await bodyOf(fetch, proxy.url + get, auth));
  return { recorder, seen };
}

test('a recorded fixture validates, keeps no token or real password, and seeds a mock that answers the recorded GETs the same way', async () => {
  const { recorder, seen } = await recordDemo();
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'restoapi-proxy-record-')), 'staging.json');
  await recorder.save(file);
  const text = readFileSync(file, 'utf8');
  const fixture = JSON.parse(text) as MockStateJson;
  expect(validateFixture(fixture).valid).toBe(true);
  expect(fixture.sessions).toBeUndefined();
  expect(text).not.toMatch(/"password": "demo"|token/i);
  expect(fixture.apiUsers!.rows).toEqual([
    expect.objectContaining({ login: 'admin@pizza.demo', password: REPLAY_PASSWORD }),
  ]);
  expect(Object.keys(recorder.counts()).sort()).toEqual(
    [
      'apiUsers',
      'buddies',
      'couriers',
      'deliveryZones',
      'draftCategories',
      'draftDishes',
      'orderItems',
      'orders',
      'organizations',
      'payments',
      'restaurants',
      'staffMembers',
    ].sort(),
  );

  const replay = createMock({ state: fixture });
  const base = 'http://replay.test';
  const auth = await tokenOf(replay.fetch, base, 'admin@pizza.demo', REPLAY_PASSWORD);
  for (const [get, body] of seen) expect(await bodyOf(replay.fetch, base + get, auth), get).toEqual(body);
});

test('--redact replaces client names, phones and addresses by the same fakes every time, and nothing else', async () => {
  const first = (await recordDemo(await createRedactor())).recorder.toFixture();
  const second = (await recordDemo(await createRedactor())).recorder.toFixture();
  expect(second).toEqual(first);
  const plain = (await recordDemo()).recorder.toFixture();
  const order = (fixture: MockStateJson) => fixture.orders!.rows.find((row) => row.id === 5001)!;
  expect(order(plain)).toMatchObject({
    contact_name: 'Jonas Becker',
    contact_phone: '+49 170 1112233',
    address: 'Wiener Straße 18',
  });
  const redacted = order(first);
  expect(redacted.contact_name).not.toBe('Jonas Becker');
  expect(redacted.contact_phone).not.toBe('+49 170 1112233');
  expect(redacted.address).not.toBe('Wiener Straße 18');
  expect(redacted.address_text).toBe(order(plain).address_text.replace('Wiener Straße 18', redacted.address));
  expect(JSON.stringify(first)).not.toMatch(/Jonas Becker|1112233|Wiener Straße 18/);
  // The same client in two places gets the same fake: the order's contact and its participant.
  expect(first.buddies!.rows.find((b) => b.order_id === 5001)!.name).toBe(redacted.contact_name);
  // What is not client data stays as it was, and the fixture still validates.
  expect({ ...redacted, contact_name: '', contact_phone: '', address: '', address_text: '' }).toEqual({
    ...order(plain),
    contact_name: '',
    contact_phone: '',
    address: '',
    address_text: '',
  });
  expect(validateFixture(first).valid).toBe(true);
});

test("a dispatcher's browse session is recorded: orders whose restaurant was seen get its organization, the others are left out with the reason, and the fixture replays", async () => {
  const mock = await createMockServer({ port: 0, state: demoSeed(new Date('2026-11-20T18:30:00Z')) });
  cleanups.push(() => mock.close());
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'restoapi-proxy-record-')), 'browse.json');
  const recording = new RecordingFile(file, new Recorder());
  const proxy = await createProxyServer({ upstream: mock.url, onAnswer: recording.observe.bind(recording) });
  cleanups.push(() => proxy.close());
  const auth = await tokenOf(fetch, proxy.url, 'dispatcher@demo', 'demo');
  const list = (await bodyOf(fetch, `${proxy.url}/api/orders`, auth)) as {
    orders: { id: number; restaurant_id: number }[];
  };
  const opened = (await bodyOf(fetch, `${proxy.url}/api/orders/5002`, auth)) as {
    restaurants: { id: number; organization_id: number }[];
  };
  const seenRestaurants = opened.restaurants.map((restaurant) => restaurant.id);
  const keptIds = list.orders.filter((order) => seenRestaurants.includes(order.restaurant_id)).map((o) => o.id);
  const leftIds = list.orders.filter((order) => !seenRestaurants.includes(order.restaurant_id)).map((o) => o.id);
  expect(keptIds.length).toBeGreaterThan(0);
  expect(leftIds.length).toBeGreaterThan(0);

  // The file already holds the session: it is saved before each answer goes back.
  const fixture = JSON.parse(readFileSync(file, 'utf8')) as MockStateJson;
  expect(validateFixture(fixture).valid).toBe(true);
  expect(fixture.orders!.rows.map((order) => order.id).sort()).toEqual([...keptIds].sort());
  for (const order of fixture.orders!.rows) expect(order.organization_id).toBe(opened.restaurants[0]!.organization_id);
  expect(fixture.dispatchers!.rows).toEqual([{ id: 1, name: 'Dora Fischer' }]);
  const aside = JSON.parse(readFileSync(leftOutFile(file), 'utf8')) as { leftOut: LeftOutRecord[] };
  expect(aside.leftOut.map((record) => record.id).sort()).toEqual([...leftIds].sort());
  for (const record of aside.leftOut) {
    expect(record).toMatchObject({ table: 'orders', reason: UNKNOWN_ORGANIZATION });
    expect(record.record).toEqual(list.orders.find((order) => order.id === record.id));
  }
  const recorded = await recording.close();
  expect(describeRecording('browse.json', recorded)).toBe(
    [
      `recorded browse.json: apiUsers 1, dispatchers 1, restaurants 1, payments 1, orders ${keptIds.length}`,
      `left out ${leftIds.length} orders (${[...leftIds].sort((a, b) => a - b).join(', ')}): ${UNKNOWN_ORGANIZATION}`,
      `the records left out are kept in browse.json.left-out.json`,
    ].join('\n'),
  );

  const replay = createMock({ state: fixture });
  const base = 'http://replay.test';
  const replayAuth = await tokenOf(replay.fetch, base, 'dispatcher@demo', REPLAY_PASSWORD);
  expect(await bodyOf(replay.fetch, `${base}/api/orders/5002`, replayAuth)).toEqual(opened);
  const replayed = (await bodyOf(replay.fetch, `${base}/api/orders`, replayAuth)) as { orders: unknown[] };
  expect(replayed.orders).toEqual(list.orders.filter((order) => keptIds.includes(order.id)));
});

test('an order left out for want of its restaurant is completed as soon as a later answer shows that restaurant', async () => {
  const mock = await createMockServer({ port: 0, state: demoSeed(new Date('2026-11-20T18:30:00Z')) });
  cleanups.push(() => mock.close());
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'restoapi-proxy-record-')), 'later.json');
  const recording = new RecordingFile(file, new Recorder());
  const proxy = await createProxyServer({ upstream: mock.url, onAnswer: recording.observe.bind(recording) });
  cleanups.push(() => proxy.close());
  const auth = await tokenOf(fetch, proxy.url, 'dispatcher@demo', 'demo');
  const { orders } = (await bodyOf(fetch, `${proxy.url}/api/orders`, auth)) as {
    orders: { id: number; restaurant_id: number }[];
  };
  const leftOut = (): number[] =>
    (JSON.parse(readFileSync(leftOutFile(file), 'utf8')) as { leftOut: LeftOutRecord[] }).leftOut.map((r) => r.id);
  expect(leftOut().sort()).toEqual(orders.map((order) => order.id).sort());
  // Opening one order of each restaurant shows every restaurant: nothing is left out any more.
  const restaurants = [...new Set(orders.map((order) => order.restaurant_id))];
  for (const restaurant of restaurants)
    await bodyOf(fetch, `${proxy.url}/api/orders/${orders.find((o) => o.restaurant_id === restaurant)!.id}`, auth);
  const fixture = JSON.parse(readFileSync(file, 'utf8')) as MockStateJson;
  expect(fixture.orders!.rows.map((order) => order.id).sort()).toEqual(orders.map((order) => order.id).sort());
  expect(() => readFileSync(leftOutFile(file))).toThrow();
});

test('a record the fixture schema refuses is left out naming the field, and the rest of the recording is written', async () => {
  const recorder = new Recorder();
  const [first, second] = demoSeed().organizations!.rows;
  recorder.observe(
    {
      method: 'GET',
      url: new URL('http://x/api/organizations'),
      operation: { operationId: 'listOrganizations' } as never,
      params: {},
    },
    200,
    { organizations: [{ ...first, name: 42 }, second] },
  );
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'restoapi-proxy-record-')), 'partly.json');
  const recording = await recorder.save(file);
  expect(recording.leftOut).toEqual([
    {
      table: 'organizations',
      id: 1,
      reason: expect.stringMatching(/^the fixture schema refuses it: \/name must be string/),
      record: { ...first, name: 42 },
    },
  ]);
  const fixture = JSON.parse(readFileSync(file, 'utf8')) as MockStateJson;
  expect(validateFixture(fixture).valid).toBe(true);
  expect(fixture.organizations!.rows).toEqual([second]);
  expect(JSON.parse(readFileSync(leftOutFile(file), 'utf8'))).toEqual({ leftOut: recording.leftOut });
});
