import { afterAll, beforeAll, expect, test } from 'vitest';
import type { MockServer } from '../../src/node.js';
import { benchMock } from './bench-mock.js';
import type { FloorServer } from '../../bench/floor-servers.js';
import { dishRulesFloorOf, organizationOfOrder } from '../../bench/rules-floor-fixtures.js';
import { orderRulesFloor } from '../../bench/rules-floor-servers.js';

// The rules floors say what the mock's obligations cost a hand-written server. They must give the mock's
// answers, with its head, and refuse what it refuses, or the figure would flatter (or blame) the engine.

let mock: MockServer;
let dispatcher: string;
let staff: string;
const floors: FloorServer[] = [];

beforeAll(async () => {
  ({ mock, dispatcher, staff } = await benchMock());
});

afterAll(async () => {
  for (const floor of floors) floor.server.close();
  await mock.close();
});

/** The header names of an answer in the order they came, without node's own (`date`, `connection`, `keep-alive`). */
function headNames(res: Response): string[] {
  return [...res.headers.keys()].filter((name) => !['date', 'connection', 'keep-alive'].includes(name));
}

test('the order rules floor answers the mock’s very bytes and head, and refuses where the mock does', async () => {
  const headers = { Authorization: `Token token="${dispatcher}"` };
  const fromMock = await fetch(`${mock.url}/api/orders/5001`, { headers });
  const text = await fromMock.text();
  const floor = await orderRulesFloor(
    [{ token: dispatcher, account: 'dispatcher', organizationIds: [] }],
    mock.mock.runtime.config.tokenTtlMs,
    new Map([[5001, { text, organizationId: organizationOfOrder(mock, 5001) }]]),
  );
  floors.push(floor);
  const res = await fetch(`${floor.url}/api/orders/5001`, { headers });
  expect(res.status).toBe(200);
  expect(await res.text()).toBe(text);
  expect(headNames(res)).toEqual(headNames(fromMock));
  expect(res.headers.get('vary')).toBe('Origin');
  expect(res.headers.get('x-request-id')).toMatch(/^req_[0-9a-z]+$/);

  for (const [path, init] of [
    ['/api/orders/5001', { headers: { Authorization: 'Token token="nope"' } }],
    ['/api/orders/5001', {}],
    ['/api/orders/5001?page=1', { headers }],
    ['/api/orders/999999', { headers }],
    ['/api/orders/0x1', { headers }],
    ['/api/orders/1e3', { headers }],
    ['/api/orders/05001', { headers }],
  ] as const) {
    const [a, b] = [await fetch(mock.url + path, init), await fetch(floor.url + path, init)];
    expect(b.status, path).toBe(a.status);
  }
});

test('the dish rules floor creates the mock’s very dish, last in its category, and refuses what the mock refuses', async () => {
  const headers = { Authorization: `Token token="${staff}"`, 'Content-Type': 'application/json' };
  const floor = await dishRulesFloorOf(mock, staff, [
    { token: dispatcher, account: 'dispatcher', organizationIds: [] },
  ]);
  floors.push(floor);
  const body = (fields: Record<string, unknown>) =>
    JSON.stringify({ draft_dish: { name: 'Rules', draft_category_id: 1001, organization_id: 1, ...fields } });
  const send = (url: string, text: string, extra: Record<string, string> = {}) =>
    fetch(`${url}/api/draft_dishes`, { method: 'POST', headers: { ...headers, ...extra }, body: text });

  const sent = body({
    price: '12.9',
    options: [
      {
        name: 'Size',
        multiple: false,
        items: [
          { name: '30 cm', price: 0 },
          { name: '40 cm', price: '4.00' },
        ],
      },
    ],
  });
  const [a, b] = [await send(mock.url, sent), await send(floor.url, sent)];
  expect([a.status, b.status]).toEqual([201, 201]);
  expect(await b.text()).toBe(await a.text());
  expect(headNames(b)).toEqual(headNames(a));
  expect(b.headers.get('location')).toBe(a.headers.get('location'));

  const refusals: [string, string, Record<string, string>?][] = [
    ['price with three decimals', body({ price: '1.005' })],
    ['negative price', body({ price: '-1.00' })],
    [
      'option price with three decimals',
      body({ price: '1.00', options: [{ name: 'S', multiple: false, items: [{ name: 'x', price: '0.001' }] }] }),
    ],
    ['unknown category', body({ price: '1.00', draft_category_id: 999999 })],
    ['foreign organization', body({ price: '1.00', organization_id: 999999 })],
    ['no name', JSON.stringify({ draft_dish: { price: '1.00', draft_category_id: 1001, organization_id: 1 } })],
    ['broken JSON', '{"draft_dish":'],
    ['not JSON', body({ price: '1.00' }), { 'Content-Type': 'text/plain' }],
    ['unknown token', body({ price: '1.00' }), { Authorization: 'Token token="nope"' }],
    ['a dispatcher', body({ price: '1.00' }), { Authorization: `Token token="${dispatcher}"` }],
  ];
  for (const [why, text, extra] of refusals) {
    const [fromMock, fromFloor] = [await send(mock.url, text, extra), await send(floor.url, text, extra)];
    expect(fromMock.status, why).toBeGreaterThanOrEqual(400);
    expect(fromFloor.status, why).toBe(fromMock.status);
  }
});
