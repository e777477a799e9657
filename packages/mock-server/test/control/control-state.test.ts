import { createControlClient, createMock } from '@restoapi/mock-server';
import { afterEach, expect, test } from 'vitest';
import { startCallbackReceiver, type CallbackReceiver } from '../support/callback-receiver.js';
import { base, call, margheritaOrder, storefrontMock } from '../support/storefront.js';

const receivers: CallbackReceiver[] = [];
afterEach(async () => {
  await Promise.all(receivers.splice(0).map((r) => r.close()));
});

test('the clock can be set, frozen, advanced and unfrozen', async () => {
  const { control } = await storefrontMock('2026-11-20T18:30:00+01:00');
  expect((await control.GET('/__mock/clock')).data).toEqual({ now: '2026-11-20T17:30:00.000Z', frozen: true });
  expect((await control.POST('/__mock/clock/advance', { body: { ms: 90_000 } })).data).toEqual({
    now: '2026-11-20T17:31:30.000Z',
    frozen: true,
  });
  const running = (await control.PUT('/__mock/clock', { body: { now: '2030-01-01T00:00:00Z', frozen: false } })).data!;
  expect(running.frozen).toBe(false);
  expect(Date.parse(running.now)).toBeGreaterThanOrEqual(Date.parse('2030-01-01T00:00:00Z'));
  expect((await control.POST('/__mock/clock/advance', { body: { ms: -1 } })).response.status).toBe(422);
  expect((await control.PUT('/__mock/clock', { body: { now: 'tomorrow' } })).response.status).toBe(422);
});

test('reset brings back the demo world or an empty one and disarms faults', async () => {
  const { mock, control } = await storefrontMock();
  await control.POST('/__mock/orders', { body: margheritaOrder() });
  await control.POST('/__mock/faults', { body: { method: 'GET', path: '/api/orders', status: 500 } });

  const empty = await control.POST('/__mock/reset', { body: { seed: 'empty' } });
  expect(empty.data).toMatchObject({ source: 'empty', tables: { orders: 0, organizations: 0 } });
  expect((await call(mock, 'POST', '/api/session?login=admin@pizza.demo&password=demo')).status).toBe(401);
  expect((await control.GET('/__mock/faults')).data!.faults).toEqual([]);

  const demo = await control.POST('/__mock/reset');
  expect(demo.data).toMatchObject({ source: 'demo', tables: { orders: 6, organizations: 2, restaurants: 4 } });
  expect((await call(mock, 'POST', '/api/session?login=admin@pizza.demo&password=demo')).status).toBe(200);
  // The demo world is dated from the virtual clock.
  expect(mock.runtime.state.orders.get(5002)!.created_at).toBe('2026-11-20T17:25:00.000Z');

  const both = await control.POST('/__mock/reset', { body: { seed: 'demo', state: { version: 1 } } });
  expect(both.response.status).toBe(422);
  expect((await call(mock, 'POST', '/__mock/reset', { json: { seed: 'full' } })).status).toBe(422);
});

test('the whole state exports and imports again, in another instance too', async () => {
  const { mock, control } = await storefrontMock();
  // A carrier of other restaurants: nothing pending that the importing instance would send at once.
  await control.POST('/__mock/carriers', { body: { callback_url: 'http://127.0.0.1:9/x', restaurant_ids: [21] } });
  await control.POST('/__mock/orders', { body: margheritaOrder() });
  const exported = (await control.GET('/__mock/state')).data!;
  expect(exported.version).toBe(1);
  expect(exported.carriers!.rows).toHaveLength(1);

  const other = createMock({ validateResponses: true, state: { version: 1 } });
  const otherControl = createControlClient({ baseUrl: base, fetch: other.fetch });
  expect((await otherControl.PUT('/__mock/state', { body: exported })).response.status).toBe(204);
  expect((await otherControl.GET('/__mock/state')).data).toEqual(exported);
  expect(JSON.parse(JSON.stringify(other.exportState()))).toEqual(JSON.parse(JSON.stringify(mock.exportState())));
  expect((await call(other, 'POST', '/api/session?login=admin@pizza.demo&password=demo')).status).toBe(200);

  const broken = await call(other, 'PUT', '/__mock/state', { json: { version: 1, ordres: { rows: [] } } });
  expect(broken.status).toBe(422);
  expect(broken.body.errors[0]).toMatchObject({ code: 'unknown_field', source: { pointer: '/ordres' } });
});

test('pending callbacks of an imported state are sent again', async () => {
  const { control } = await storefrontMock();
  const carrier = await startCallbackReceiver([{ status: 500 }]);
  receivers.push(carrier);
  await control.POST('/__mock/carriers', { body: { callback_url: carrier.url } });
  await control.POST('/__mock/orders', { body: margheritaOrder() });
  await carrier.nth(1);
  await control.POST('/__mock/clock/advance', { body: { ms: 0 } });
  const exported = (await control.GET('/__mock/state')).data!;

  const { control: restored } = await storefrontMock();
  await restored.POST('/__mock/reset', { body: { state: exported } });
  await restored.POST('/__mock/clock/advance', { body: { ms: 5_000 } });
  await carrier.nth(2);
  const [callback] = (await restored.GET('/__mock/callbacks')).data!.callbacks;
  expect(callback!.state).toBe('delivered');
  expect(callback!.attempts.map((a) => a.status)).toEqual([500, 200]);
});

test('settings can be read and changed', async () => {
  const { control } = await storefrontMock();
  const before = (await control.GET('/__mock/config')).data!;
  expect(before).toMatchObject({ importDurationMs: 3000, callbackTimeoutMs: 10000, validateResponses: true });
  const after = (await control.PUT('/__mock/config', { body: { importDurationMs: 0 } })).data!;
  expect(after).toEqual({ ...before, importDurationMs: 0 });
  expect((await control.PUT('/__mock/config', { body: {} })).response.status).toBe(422);
  expect((await control.PUT('/__mock/config', { body: { speed: 3 } as never })).response.status).toBe(422);
});

test('unknown control paths are 404 and wrong methods 405; bodies need application/json', async () => {
  const { mock } = await storefrontMock();
  expect((await call(mock, 'GET', '/__mock/nothing')).status).toBe(404);
  const wrong = await call(mock, 'DELETE', '/__mock/clock');
  expect(wrong.status).toBe(405);
  expect(wrong.headers.get('allow')).toBe('GET, PUT');
  const form = await mock.fetch(`${base}/__mock/clock/advance`, {
    method: 'POST',
    headers: { 'Content-Type': 'text/plain' },
    body: '{"ms":1}',
  });
  expect(form.status).toBe(415);
  const malformed = await mock.fetch(`${base}/__mock/clock/advance`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: '{"ms":',
  });
  expect(malformed.status).toBe(400);
});

test('carriers are listed and removed; a removed carrier gets no more callbacks', async () => {
  const { control } = await storefrontMock();
  const first = (await control.POST('/__mock/carriers', { body: { callback_url: 'http://127.0.0.1:9/a' } })).data!
    .carrier;
  await control.POST('/__mock/carriers', {
    body: { callback_url: 'http://127.0.0.1:9/b', restaurant_ids: [21, 22], chaos: { delayMs: 10 } },
  });
  const listed = (await control.GET('/__mock/carriers')).data!.carriers;
  expect(listed.map((c) => [c.name, c.restaurant_ids, c.chaos])).toEqual([
    ['Carrier 1', null, null],
    ['Carrier 2', [21, 22], { delayMs: 10 }],
  ]);
  expect(
    (await control.POST('/__mock/carriers', { body: { callback_url: 'http://127.0.0.1:9/c', restaurant_ids: [99] } }))
      .response.status,
  ).toBe(422);
  expect((await control.DELETE('/__mock/carriers/{id}', { params: { path: { id: first.id } } })).response.status).toBe(
    204,
  );
  expect((await control.DELETE('/__mock/carriers/{id}', { params: { path: { id: first.id } } })).response.status).toBe(
    404,
  );
  await control.POST('/__mock/orders', { body: margheritaOrder() });
  expect((await control.GET('/__mock/callbacks')).data!.callbacks).toEqual([]);
});
