/**
 * How the mock's cost follows the size of its data (issue 17, "Cost must not grow with the data").
 * `scalingCurve` prints, per number of orders, the median time of a sorted, filtered 50-order page, of one
 * order with its sideloads (both in-process through `mock.fetch`, so that only the engine is measured) and
 * the time of an order import of 10,000 orders. Run alone with `--500k` (what `mock-bench.ts` does in a child
 * process when `BENCH_500K=1`), it loads a world of 500,000 orders with items, buddies and payments and prints
 * the process RSS and the import time at that size.
 */
import { pathToFileURL } from 'node:url';
import { createMock, demoSeed, type MockEngine, type MockStateJson } from '../src/index.js';

const BASE = 'http://localhost:4010';
const STATUSES = ['pending', 'accepted', 'cooking', 'ready', 'delivery', 'complete', 'cancelled'] as const;
/** The page of the issue: two statuses of two restaurants, latest delivery first. */
export const PAGE_PATH =
  '/api/orders?per_page=50&page=3&status=delivery&status=complete&restaurant_id=11&restaurant_id=12&sort_by=-delivery_at';

type Row = Record<string, unknown> & { id: number };

/**
 * The demo world plus `count` orders spread over the four restaurants, their couriers, 1,000 clients per
 * organization and every status, each with two items, one buddy and (every other one, paid by card) a
 * payment: what a team loading a realistic history has. Ids start at 100001.
 */
export function worldWithOrders(count: number, now = new Date('2026-11-20T18:00:00Z')): MockStateJson {
  const state = demoSeed(now);
  const rows = (name: keyof MockStateJson) => (state[name] as unknown as { rows: Row[] }).rows;
  const [order] = rows('orders');
  const [item] = rows('orderItems');
  const [buddy] = rows('buddies');
  const [payment] = rows('payments');
  const [client] = rows('clients');
  for (let c = 0; c < 2000; c++) {
    rows('clients').push({ ...client!, id: 200001 + c, organization_id: c < 1000 ? 1 : 2, name: `Client ${c}` });
  }
  const orders = rows('orders');
  const items = rows('orderItems');
  const buddies = rows('buddies');
  const payments = rows('payments');
  for (let i = 0; i < count; i++) {
    const id = 100001 + i;
    const restaurant = [11, 12, 21, 22][i % 4]!;
    const organization = restaurant < 20 ? 1 : 2;
    // A stride coprime with the range scatters the times, so id order and time order differ.
    const created = new Date(now.getTime() - ((i * 7919) % 10_000_000) * 1000);
    const deliveryAt = new Date(created.getTime() + ((i * 31) % 120) * 60_000).toISOString();
    const card = i % 2 === 1;
    const itemIds = [2 * i + 1_000_001, 2 * i + 1_000_002];
    orders.push({
      ...order!,
      id,
      number: `${organization === 1 ? 'PP' : 'SS'}-${id}`,
      status: STATUSES[i % STATUSES.length]!,
      created_at: created.toISOString(),
      status_changed_at: created.toISOString(),
      delivery_at: deliveryAt,
      pick_up_at: deliveryAt,
      restaurant_id: restaurant,
      organization_id: organization,
      delivery_zone_id: organization * 100 + (restaurant % 10),
      courier_id: organization === 1 ? [501, 502, null][i % 3]! : [601, null][i % 2]!,
      client_id: 200001 + (organization - 1) * 1000 + (i % 1000),
      payment_id: card ? id : null,
      payment_source: card ? 'card' : 'cash',
      courier_confirmed_at: null,
      restaurant_confirmed_at: null,
      links: { buddies: `/api/orders/${id}/buddies`, items: `/api/orders/${id}/items` },
    });
    for (const itemId of itemIds) items.push({ ...item!, id: itemId, order_id: id, buddy_id: id });
    buddies.push({ ...buddy!, id, order_id: id, item_ids: itemIds });
    if (card) payments.push({ ...payment!, id, order_id: id, created_at: created.toISOString() });
  }
  return state;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

async function token(mock: MockEngine, login: string): Promise<string> {
  const res = await mock.fetch(`${BASE}/api/session?login=${login}&password=demo`, { method: 'POST' });
  return ((await res.json()) as { meta: { token: string } }).meta.token;
}

/** Median µs of `samples` calls of GET `path` (after 200 to warm up). */
async function medianUs(mock: MockEngine, path: string, headers: Record<string, string>, samples = 2000) {
  const once = async () => {
    const res = await mock.fetch(BASE + path, { headers });
    if (res.status !== 200) throw new Error(`GET ${path}: ${res.status}`);
    await res.arrayBuffer();
  };
  for (let i = 0; i < 200; i++) await once();
  const times: number[] = [];
  for (let i = 0; i < samples; i++) {
    const t0 = performance.now();
    await once();
    times.push((performance.now() - t0) * 1000);
  }
  return median(times);
}

/**
 * Imports `count` orders into organization 1 (Kreuzberg, zone 101). Returns the wall-clock milliseconds and
 * the CPU milliseconds of this process (the import runs in it; on a shared machine the wall clock also
 * counts the time other processes hold the cores).
 */
export async function importOrders(
  mock: MockEngine,
  count: number,
  tag: string,
): Promise<{ ms: number; cpuMs: number }> {
  const headers = {
    Authorization: `Token token="${await token(mock, 'admin@pizza.demo')}"`,
    'Content-Type': 'application/json',
  };
  const orders = Array.from({ length: count }, (_, i) => ({
    external_id: `${tag}-${i}`,
    status: 'complete',
    city: 'Berlin',
    address: 'Wiener Straße 18',
    latitude: 52.4975,
    longitude: 13.431,
    total: 17.5,
    contact_name: 'Bench Client',
    contact_phone: '+49 170 0000000',
    payment_source: 'cash',
    buddies: [{ items: [{ name: 'Margherita', amount: 1, price: 15, item_price: 15 }] }],
  }));
  const body = JSON.stringify({ orders });
  const started = performance.now();
  const cpu = process.cpuUsage();
  const res = await mock.fetch(`${BASE}/api/organizations/1/import/orders`, { method: 'POST', headers, body });
  const answer = (await res.json()) as { organization_import?: { status: string }[] };
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  const imported = answer.organization_import?.filter((r) => r.status === 'imported').length ?? 0;
  if (imported !== count) throw new Error(`import: ${res.status}, ${imported} of ${count} imported`);
  return { ms, cpuMs: (used.user + used.system) / 1000 };
}

/** One point of the curve. */
export interface ScalePoint {
  orders: number;
  pageUs: number;
  getUs: number;
  importMs: number;
  importCpuMs: number;
}

/** Measures one size: page and GET medians first (on the loaded world), then the import. */
export async function measureSize(count: number): Promise<ScalePoint> {
  const mock = createMock({ state: worldWithOrders(count) });
  try {
    const headers = { Authorization: `Token token="${await token(mock, 'dispatcher@demo')}"` };
    const pageUs = await medianUs(mock, PAGE_PATH, headers);
    const getUs = await medianUs(mock, '/api/orders/100001', headers);
    const imported = await importOrders(mock, 10_000, `curve-${count}`);
    return { orders: count, pageUs, getUs, importMs: imported.ms, importCpuMs: imported.cpuMs };
  } finally {
    mock.close();
  }
}

/** Prints the scaling curve at the given sizes, each ratio to the smallest one. */
export async function scalingCurve(sizes: readonly number[]): Promise<ScalePoint[]> {
  console.log(`\nscaling (in-process mock.fetch, dispatcher; page: GET ${PAGE_PATH})`);
  // One throwaway round first: the smallest size must not be measured with a cold JIT.
  await measureSize(sizes[0]!);
  const points: ScalePoint[] = [];
  for (const size of sizes) {
    const point = await measureSize(size);
    points.push(point);
    const first = points[0]!;
    console.log(
      `  ${String(size).padStart(7)} orders: page median ${point.pageUs.toFixed(0).padStart(5)} µs (${(point.pageUs / first.pageUs).toFixed(2)}× of ${first.orders})  GET one order ${point.getUs.toFixed(0).padStart(4)} µs  import of 10,000 orders ${point.importMs.toFixed(0).padStart(5)} ms (CPU ${point.importCpuMs.toFixed(0)} ms)`,
    );
  }
  const first = points[0]!;
  const last = points.at(-1)!;
  const ratio = last.pageUs / first.pageUs;
  console.log(
    `  page at ${last.orders} vs ${first.orders} orders: ${ratio.toFixed(2)}× (target ≤ 1.2×) ${ratio <= 1.2 ? 'ok' : 'ABOVE TARGET'}`,
  );
  return points;
}

/** The 500,000-order world: RSS once loaded (and listed once, so the list index exists), then an import of 10,000. */
async function halfMillion(): Promise<void> {
  const started = performance.now();
  const mock = createMock({ state: worldWithOrders(500_000) });
  const headers = { Authorization: `Token token="${await token(mock, 'dispatcher@demo')}"` };
  const pageUs = await medianUs(mock, PAGE_PATH, headers, 500);
  const loadS = (performance.now() - started) / 1000;
  globalThis.gc?.();
  const rss = process.memoryUsage().rss;
  const imported = await importOrders(mock, 10_000, 'half-million');
  globalThis.gc?.();
  const after = process.memoryUsage().rss;
  const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
  const { state } = mock.runtime;
  console.log(
    [
      `500,000 orders (${state.orders.size} orders, ${state.orderItems.size} items, ${state.buddies.size} buddies, ${state.payments.size} payments, ${state.clients.size} clients; generated and loaded in ${loadS.toFixed(1)} s)`,
      `  process RSS ${mb(rss)} MB (target < 1024 MB) ${rss < 2 ** 30 ? 'ok' : 'ABOVE TARGET'}; ${mb(after)} MB after the import`,
      `  page median ${pageUs.toFixed(0)} µs`,
      `  order import of 10,000 orders at that size: ${imported.ms.toFixed(0)} ms, CPU ${imported.cpuMs.toFixed(0)} ms (target < 2000 ms) ${imported.ms < 2000 ? 'ok' : 'ABOVE TARGET'}`,
    ].join('\n'),
  );
  mock.close();
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const run = process.argv.includes('--500k') ? halfMillion() : scalingCurve([1_000, 10_000, 100_000]).then(() => {});
  run.catch((error: unknown) => {
    console.error(error);
    process.exitCode = 1;
  });
}
