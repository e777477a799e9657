#!/usr/bin/env node
// `npm start`: the whole demo on one machine. The mock server with the demo seed on port 4010
// (API, control API, docs, console), the carrier simulator registered with it, and a demo
// storefront placing an order now and then, so the console shows couriers at work.
// Options: --port N (default 4010), --no-carrier, --no-orders, --order-every SECONDS (default 45).
import { spawn } from 'node:child_process';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: {
    port: { type: 'string', default: '4010' },
    'no-carrier': { type: 'boolean', default: false },
    'no-orders': { type: 'boolean', default: false },
    'order-every': { type: 'string', default: '45' },
  },
});
const port = Number(values.port);
const base = `http://127.0.0.1:${port}`;
const children = [];

function run(name, args) {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const prefix = (line) => (name === 'mock' ? line : `[${name}] ${line}`);
  for (const stream of [child.stdout, child.stderr]) {
    let rest = '';
    stream.on('data', (chunk) => {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) console.log(prefix(line));
    });
  }
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`[${name}] exited (${signal ?? code}); stopping the demo`);
      stop(1);
    }
  });
  children.push(child);
  return child;
}

let stopping = false;
function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  clearInterval(orderTimer);
  for (const child of children) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 500).unref();
}
process.once('SIGINT', () => stop(0));
process.once('SIGTERM', () => stop(0));

async function waitFor(url, timeoutMs = 60_000) {
  const started = Date.now();
  for (;;) {
    try {
      const response = await fetch(url);
      if (response.status < 500) return;
    } catch {
      // not listening yet
    }
    if (Date.now() - started > timeoutMs) throw new Error(`${url} did not answer within ${timeoutMs / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

// Orders the storefront would place: real addresses inside the demo zones, configurable dishes.
const STOREFRONT_ORDERS = [
  {
    organization_id: 1,
    latitude: 52.4975,
    longitude: 13.431,
    address: 'Wiener Straße 18',
    contact_name: 'Jonas Becker',
    contact_phone: '+49 170 1112233',
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
  },
  {
    organization_id: 1,
    latitude: 52.5445,
    longitude: 13.4185,
    address: 'Stargarder Straße 7',
    contact_name: 'Mia Hoffmann',
    contact_phone: '+49 171 2223344',
    items: [{ dish_id: 10002, amount: 2, config: [{ group: 'Size', items: ['30 cm'] }] }],
  },
  {
    organization_id: 2,
    latitude: 52.511,
    longitude: 13.458,
    address: 'Boxhagener Straße 30',
    contact_name: 'Paul Richter',
    contact_phone: '+49 172 3334455',
    items: [
      { dish_id: 20001, amount: 2, config: [{ group: 'Sauce', items: ['Spicy mayo'] }] },
      { dish_id: 20003, amount: 1 },
    ],
  },
];
let orderTimer;
let placed = 0;
async function placeOrder() {
  const body = { city: 'Berlin', payment_source: 'cash', ...STOREFRONT_ORDERS[placed % STOREFRONT_ORDERS.length] };
  placed += 1;
  try {
    const response = await fetch(`${base}/__mock/orders`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
    const answer = await response.json();
    if (response.ok)
      console.log(
        `[storefront] placed ${answer.order.number} for ${body.contact_name} (${answer.order.final_sum.toFixed(2)})`,
      );
    else console.log(`[storefront] order refused: ${answer.errors?.[0]?.detail ?? response.status}`);
  } catch (error) {
    console.log(`[storefront] could not place an order: ${error.message}`);
  }
}

run('mock', ['packages/mock-server/src/cli.ts', '--port', String(port)]);
try {
  await waitFor(`${base}/__mock/clock`);
  // Orders need open zones (11:00–23:00 Berlin): run the demo on a Friday evening of virtual time.
  await fetch(`${base}/__mock/clock`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ now: '2026-11-20T18:30:00+01:00', frozen: false }),
  });
  if (!values['no-carrier']) {
    run('carrier', [
      'packages/carrier-kit/src/cli.ts',
      'simulate',
      '--base-url',
      base,
      '--port',
      '0',
      '--min-interval',
      '2000',
    ]);
  }
  if (!values['no-orders']) {
    console.log(
      `[storefront] placing a demo order every ${values['order-every']} s (--no-orders to stop); watch ${base}/console`,
    );
    setTimeout(placeOrder, 3_000);
    orderTimer = setInterval(placeOrder, Number(values['order-every']) * 1000);
  }
} catch (error) {
  console.error(error.message);
  stop(1);
}
