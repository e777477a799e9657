/**
 * `restoapi-mock proxy --record FILE` as a process: the recording is on disk after every answer, so a
 * SIGKILL of the proxy (no chance to save on exit) still leaves the whole browse session in a fixture
 * that validates and replays; a Ctrl-C says what was kept and what was left out, and why.
 */
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { BIN_SOURCES, freePort, startCli, type RunningCli } from '../../../../scripts/testing/run-cli.js';
import { createMock, demoSeed, validateFixture, type MockStateJson } from '../../src/index.js';
import { createMockServer } from '../../src/node.js';
import { leftOutFile, REPLAY_PASSWORD, UNKNOWN_ORGANIZATION } from '../../src/proxy/recorder.js';

const cleanups: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  while (cleanups.length) await cleanups.pop()!();
});

interface Browse {
  base: string;
  file: string;
  proxy: RunningCli;
  orders: { id: number; restaurant_id: number }[];
  opened: { order: { id: number }; restaurants: { id: number }[] };
}

/** A dispatcher logs in through the proxy, lists the orders and opens one. */
async function browse(): Promise<Browse> {
  const upstream = await createMockServer({ port: 0, state: demoSeed(new Date('2026-11-20T18:30:00Z')) });
  cleanups.push(() => upstream.close());
  const file = path.join(mkdtempSync(path.join(tmpdir(), 'restoapi-proxy-record-cli-')), 'session.json');
  const port = await freePort();
  const proxy = startCli([
    BIN_SOURCES['restoapi-mock']!,
    'proxy',
    '--upstream',
    upstream.url,
    '--port',
    String(port),
    '--record',
    file,
  ]);
  cleanups.push(() => proxy.stop('SIGKILL'));
  await proxy.waitFor(/RestoAPI proxy listening on/);
  const base = `http://127.0.0.1:${port}`;
  const login = await fetch(`${base}/api/session?login=dispatcher@demo&password=demo`, { method: 'POST' });
  const { meta } = (await login.json()) as { meta: { token: string } };
  const auth = { Authorization: `Token token="${meta.token}"` };
  const { orders } = (await (await fetch(`${base}/api/orders`, { headers: auth })).json()) as Browse;
  const opened = (await (await fetch(`${base}/api/orders/5002`, { headers: auth })).json()) as Browse['opened'];
  return { base, file, proxy, orders, opened };
}

test('a proxy killed with SIGKILL right after a browse session leaves the whole session in a fixture that replays', async () => {
  const { file, proxy, orders, opened } = await browse();
  const killed = await proxy.stop('SIGKILL');
  expect(killed.signal).toBe('SIGKILL');

  const fixture = JSON.parse(readFileSync(file, 'utf8')) as MockStateJson;
  expect(validateFixture(fixture).valid).toBe(true);
  const restaurants = opened.restaurants.map((restaurant) => restaurant.id);
  const kept = orders.filter((order) => restaurants.includes(order.restaurant_id)).map((order) => order.id);
  expect(fixture.orders!.rows.map((order) => order.id).sort()).toEqual(kept.sort());
  expect(fixture.apiUsers!.rows).toEqual([expect.objectContaining({ login: 'dispatcher@demo' })]);
  const { leftOut } = JSON.parse(readFileSync(leftOutFile(file), 'utf8')) as { leftOut: { id: number }[] };
  expect(leftOut.length + kept.length).toBe(orders.length);
  // No temporary file is left behind: every save renamed its file over the recording.
  expect(readdirSync(path.dirname(file)).sort()).toEqual(['session.json', 'session.json.left-out.json']);

  const replay = createMock({ state: fixture });
  const login = await replay.fetch(`http://replay.test/api/session?login=dispatcher@demo&password=${REPLAY_PASSWORD}`, {
    method: 'POST',
  });
  const { meta } = (await login.json()) as { meta: { token: string } };
  const again = await replay.fetch('http://replay.test/api/orders/5002', {
    headers: { Authorization: `Token token="${meta.token}"` },
  });
  expect(await again.json()).toEqual(opened);
});

test('on Ctrl-C the proxy says what the recording kept and what it left out, and why', async () => {
  const { file, proxy, orders, opened } = await browse();
  const stopped = await proxy.stop('SIGINT');
  expect(stopped.status).toBe(0);
  const restaurants = opened.restaurants.map((restaurant) => restaurant.id);
  const left = orders.filter((order) => !restaurants.includes(order.restaurant_id)).map((order) => order.id);
  expect(stopped.stdout).toContain(
    `recorded ${file}: apiUsers 1, dispatchers 1, restaurants 1, payments 1, orders ${orders.length - left.length}\n`,
  );
  expect(stopped.stdout).toContain(
    `left out ${left.length} orders (${left.sort((a, b) => a - b).join(', ')}): ${UNKNOWN_ORGANIZATION}\n`,
  );
  expect(stopped.stdout).toContain(`the records left out are kept in ${leftOutFile(file)}`);
});
