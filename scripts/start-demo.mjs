#!/usr/bin/env node
// `npm start`: the whole demo on one machine. The mock server with the demo seed on port 4010
// (API, control API, docs, console), the carrier simulator registered with it, and a demo
// storefront placing an order now and then, so the console shows couriers at work.
// Options: --port N (default 4010), --no-carrier, --no-orders, --order-every SECONDS (default 45).
// Exit codes: 0 stopped with Ctrl-C, 1 a part of the demo failed, 2 a bad option or a port in use.
import { spawn } from 'node:child_process';
import { Command, CommanderError, InvalidArgumentError } from 'commander';

function port(value) {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError('a port is a whole number from 0 to 65535');
  return n;
}

function seconds(value) {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0)
    throw new InvalidArgumentError('expected a number of seconds greater than 0');
  return n;
}

const program = new Command('npm start --')
  .description('The RestoAPI demo: the mock with the demo data, a simulated carrier and a storefront placing orders')
  .option('--port <port>', 'port of the mock (API, control API, docs, console)', port, 4010)
  .option('--no-carrier', "do not run the demo's carrier (run your own: it then gets every order)")
  .option('--no-orders', 'do not place demo orders')
  .option('--order-every <seconds>', 'time between two demo orders', seconds, 45)
  .showHelpAfterError()
  .exitOverride();
let values;
try {
  values = program.parse().opts();
} catch (error) {
  // Commander has printed its message already.
  process.exit(error instanceof CommanderError && error.exitCode === 0 ? 0 : 2);
}
const children = [];

/** Starts a part of the demo; resolves with its first output line matching `ready` (undefined: at once). */
function run(name, args, ready) {
  const child = spawn(process.execPath, ['--import', 'tsx', ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const prefix = (line) => (name === 'mock' ? line : `[${name}] ${line}`);
  let resolveReady;
  const readyLine = new Promise((resolve) => (resolveReady = resolve));
  for (const [stream, print] of [
    [child.stdout, console.log],
    [child.stderr, console.error],
  ]) {
    let rest = '';
    stream.on('data', (chunk) => {
      const lines = (rest + chunk.toString()).split('\n');
      rest = lines.pop() ?? '';
      for (const line of lines) {
        print(prefix(line));
        const match = ready?.exec(line);
        if (match) resolveReady(match);
      }
    });
  }
  child.on('exit', (code, signal) => {
    resolveReady(undefined);
    if (stopping) return;
    // A bad invocation of a part (the mock's port is taken) is the demo's bad invocation too.
    if (code === 2) {
      console.error(
        `npm start: the ${name} could not start; \`npm start -- --port <port>\` runs the demo on another port`,
      );
      stop(2);
      return;
    }
    console.error(`[${name}] exited (${signal ?? code}); stopping the demo`);
    stop(1);
  });
  children.push(child);
  return readyLine;
}

let stopping = false;
function stop(code = 0) {
  if (stopping) return;
  stopping = true;
  process.exitCode = code;
  clearInterval(orderTimer);
  for (const child of children) child.kill('SIGTERM');
  setTimeout(() => process.exit(code), 500).unref();
}
process.once('SIGINT', () => stop(0));
process.once('SIGTERM', () => stop(0));

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
async function placeOrder(base) {
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

// Nothing is sent anywhere before our own mock says it listens: whatever else holds the port is left alone.
// Orders need open zones (11:00–23:00 Berlin): the demo runs on a Friday evening of virtual time, and the
// seed's orders are dated relative to it, so they sit in the past of the mock's clock like new ones.
const listening = await run(
  'mock',
  ['packages/mock-server/src/cli.ts', '--port', String(values.port), '--clock', '2026-11-20T18:30:00+01:00'],
  /^RestoAPI mock listening on (http:\/\/\S+)$/,
);
const base = listening?.[1];
if (base) {
  if (values.carrier) {
    console.log(
      "[demo] the demo's carrier takes every order; to try your own carrier, run the demo with npm start -- --no-carrier",
    );
    run('carrier', [
      'packages/carrier-kit/src/cli.ts',
      'simulate',
      '--base-url',
      base,
      '--port',
      '0',
      '--min-interval',
      '2000',
      '--name',
      'Demo carrier',
    ]);
  }
  if (values.orders) {
    console.log(
      `[storefront] placing a demo order every ${values.orderEvery} s (--no-orders to stop); watch ${base}/console`,
    );
    setTimeout(() => placeOrder(base), 3_000);
    orderTimer = setInterval(() => placeOrder(base), values.orderEvery * 1000);
  }
}
