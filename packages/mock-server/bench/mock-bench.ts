/**
 * `npm run bench -w @restoapi/mock-server`: the mock measured side by side, in one run, with a
 * bare node:http server answering a prebuilt body of the same size (the ceiling) and with Prism
 * serving the same document. Load comes from autocannon over loopback; every figure is printed
 * with its ratio. Targets come from the mock-server issue; they are reported, never asserted.
 *
 * The mock and the bare server run in this process, so the CPU this process spends under each load
 * (process.cpuUsage: user + system) divided by the requests answered is printed too: the cost of a request
 * on the server's side, which the req/s ratio hides when one side is bound by the load generator.
 * A calibration row comes first: the bare server again, but spending a fixed 25 µs of busy work on every
 * request. On a two-core machine, with autocannon on the other core, it shows how far a server that does
 * any work at all falls below the bare ceiling (each answer then has to wake an idle load generator).
 * The single-order and draft-dish rows add a floor (`floor-servers.ts`): a hand-written server doing only
 * the work no server can skip to give that answer, so that a target can be read against it too. They also
 * load a rules floor (`rules-floor-servers.ts`: the floor plus the mock's obligations, by hand) and a parts
 * server (`parts-servers.ts`: the mock's own session lookup, validator and handler without its engine), so
 * that the mock's cost splits into its engine (mock / parts) and its parts (parts / floor).
 *
 * The servers of a row are loaded in turn, `BENCH_ROUNDS` times (default 3) for `BENCH_SECONDS` each
 * (default 3), and each figure is the median of its rounds; a ratio is the median of the rounds' ratios,
 * with their range, so that the servers compared are measured seconds apart, not a whole row apart.
 * `BENCH_ROUNDS_OUT=file` appends every round's CPU per request of each server to `file` (one JSON line a
 * server), so that the rounds of several runs can be pooled.
 *
 * After its rounds, each mock and floor server of the HTTP rows is loaded once more under the CPU profiler,
 * and the row prints where a request's CPU goes, phase by phase (`phase-profile.ts`; `BENCH_PROFILE=0` skips
 * it). `BENCH_QUICK=1` runs only the HTTP rows, without Prism; `BENCH_ROWS=order,page,dish` picks rows, and
 * `engine` in it (with `BENCH_QUICK=1`) adds the engine alone, hot, and the parts of a created dish; `ablation`
 * in it adds the dish's parts server without each of its parts in turn (what each part costs under load).
 */
import { spawn, spawnSync } from 'node:child_process';
import { appendFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { cpus } from 'node:os';
import { createMock, demoSeed, type MockStateJson } from '../src/index.js';
import { createMockServer } from '../src/node.js';
import type { OrderRecord } from '../src/state/mock-state.js';
import type { EngineRequest } from '../src/engine/engine-request.js';
import { seedWithOrders } from '../test/orders/order-fixtures.js';
import { scalingCurve } from './scale-bench.js';
import { draftDishFloor, orderFloor, orderPageFloor } from './floor-servers.js';
import { dishRulesFloorOf, organizationOfOrder } from './rules-floor-fixtures.js';
import { orderRulesFloor } from './rules-floor-servers.js';
import {
  DISH_PARTS,
  draftDishPartsServer,
  flushCaches,
  orderPartsServer,
  timeDishParts,
  type DishPart,
  type DishPartsHot,
} from './parts-servers.js';
import { startPrism } from '../../../scripts/testing/start-prism.js';
import { PHASE_MEANING, PHASES, breakdownLines, phasesOf, profiled, type PhaseBreakdown } from './phase-profile.js';

const DURATION_S = Number(process.env.BENCH_SECONDS ?? 3);
/**
 * `BENCH_WARMUP_SECONDS` (default 1; 0 skips it): each server of a row is loaded once for this long, unmeasured,
 * before the rounds. Pooled over 25 runs without it, the mock's first round cost 27% more CPU per request than
 * its later ones (dish 98.7 µs against 77.9 and 77.0; one order 40.4 against 34.4 and 34.8), the floors' 0–4%
 * (floor 46.5 against 44.7 and 44.1): the first load paid the JIT compiling the mock's code, not its requests.
 */
const WARMUP_S = Number(process.env.BENCH_WARMUP_SECONDS ?? 1);
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3));
/**
 * `BENCH_CONNECTIONS` (default 10): autocannon's connections. The targets are read at 10; 1 is a test suite's
 * view (one request at a time, each answer awaited before the next is sent).
 */
const CONNECTIONS = Math.max(1, Number(process.env.BENCH_CONNECTIONS ?? 10));
/** `BENCH_PROFILE=0` skips the profiled load of each server (the phase breakdown). */
const PROFILE = process.env.BENCH_PROFILE !== '0';
/** `BENCH_QUICK=1` runs only the HTTP rows, without Prism: for iterating on the server's cost. */
const QUICK = process.env.BENCH_QUICK === '1';
/**
 * `BENCH_ROWS=page,dish` runs only those of the HTTP rows (`order`, `page`, `dish`; all by default); `engine` adds
 * section 7 to a quick run; `ablation` adds to the dish row the parts server without each of its parts in turn.
 */
const ROWS = new Set((process.env.BENCH_ROWS ?? 'order,page,dish').split(','));
const require = createRequire(import.meta.url);

/**
 * `BENCH_PIN=1` (Linux, two or more CPUs, `taskset` at hand) runs the servers (this process, every thread) on
 * CPU 0 and autocannon on CPU 1. Off by default: on this machine it did not narrow the rounds' ranges, and it
 * puts V8's GC threads on the servers' core.
 */
const PIN = process.env.BENCH_PIN === '1' && process.platform === 'linux' && cpus().length >= 2 && pinServers();

function pinServers(): boolean {
  const pinned = spawnSync('taskset', ['-a', '-cp', '0', String(process.pid)], { stdio: 'ignore' });
  return pinned.status === 0;
}

interface Result {
  rps: number;
  p99: number;
  non2xx: number;
  /** CPU of this process per request in µs (only meaningful for the servers in this process). */
  cpuUs: number;
}

// autocannon runs in its own process: load generated on the server's event loop would measure itself.
async function load(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
  seconds = DURATION_S,
): Promise<Result> {
  const bin = require.resolve('autocannon/autocannon.js');
  const args = [bin, '-j', '-c', String(CONNECTIONS), '-d', String(seconds), '-m', init.method ?? 'GET'];
  for (const [name, value] of Object.entries(init.headers ?? {})) args.push('-H', `${name}=${value}`);
  if (init.body) args.push('-b', init.body);
  args.push(url);
  const cpuBefore = process.cpuUsage();
  const output = await new Promise<string>((resolve, reject) => {
    const child = PIN
      ? spawn('taskset', ['-c', '1', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
      : spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`autocannon exited with ${code}`))));
  });
  const cpu = process.cpuUsage(cpuBefore);
  const result = JSON.parse(output) as {
    requests: { average: number; total: number };
    latency: { p99: number };
    non2xx: number;
  };
  return {
    rps: result.requests.average,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    cpuUs: (cpu.user + cpu.system) / Math.max(1, result.requests.total),
  };
}

interface Target {
  url: string;
  init?: { method?: string; headers?: Record<string, string>; body?: string };
  /** Profile one more load of this target after the rounds (see `phase-profile.ts`), saved under this name. */
  profile?: string;
  /** The server's name in `BENCH_ROUNDS_OUT` (default: its profile name, else its URL). */
  name?: string;
}

/** A target's rounds, in the order they ran, and the phases of its profiled load when it had one. */
type Rounds = Result[] & { phases?: PhaseBreakdown };

/**
 * Loads the targets in turn, {@link ROUNDS} times, after one unmeasured load of each ({@link WARMUP_S}):
 * neighbours in time share the machine's state. Then each
 * target with a `profile` name is loaded once more under the CPU profiler (unless `BENCH_PROFILE=0`); its
 * figures stay those of the rounds, which ran without the profiler.
 */
async function sideBySide(targets: readonly Target[]): Promise<Rounds[]> {
  const rounds: Rounds[] = targets.map(() => []);
  if (WARMUP_S > 0) for (const target of targets) await load(target.url, target.init, WARMUP_S);
  for (let round = 0; round < ROUNDS; round++) {
    for (const [index, target] of targets.entries()) rounds[index]!.push(await load(target.url, target.init));
  }
  const out = process.env.BENCH_ROUNDS_OUT;
  if (out) {
    // One JSON line per server, every round's CPU per request: for pooling the rounds of several runs.
    const lines = targets.map((target, index) =>
      JSON.stringify({
        server: target.name ?? target.profile ?? `bare ${target.url}`,
        cpuUs: rounds[index]!.map((r) => r.cpuUs),
      }),
    );
    await appendFile(out, `${lines.join('\n')}\n`);
  }
  if (PROFILE) {
    for (const [index, target] of targets.entries()) {
      if (target.profile === undefined) continue;
      const { profile } = await profiled(target.profile, () => load(target.url, target.init));
      rounds[index]!.phases = phasesOf(profile);
    }
  }
  return rounds;
}

/**
 * What each part of a created dish costs under load: the parts server's CPU per request minus that of the same
 * server without the part, round by round (servers of a round run seconds apart), median and range.
 */
function ablationLines(parts: Rounds, without: readonly { part: DishPart; rounds: Rounds }[]): string {
  const lines = [
    `  the parts under load, each left out in turn (parts server ${typical(parts).cpuUs.toFixed(1)} µs/req; the part's cost is the difference, per round):`,
  ];
  for (const { part, rounds } of without) {
    const cost = spreadOf(rounds.map((round, i) => parts[i]!.cpuUs - round.cpuUs));
    lines.push(
      `    without ${part.padEnd(16)} ${typical(rounds).cpuUs.toFixed(1).padStart(6)} µs/req  ${part} costs ${cost.median.toFixed(1)} µs (${cost.low.toFixed(1)} to ${cost.high.toFixed(1)})`,
    );
  }
  return lines.join('\n');
}

/** The median of each figure over the rounds (non-2xx summed). */
function typical(rounds: Rounds): Result {
  return {
    rps: median(rounds.map((r) => r.rps)),
    p99: median(rounds.map((r) => r.p99)),
    cpuUs: median(rounds.map((r) => r.cpuUs)),
    non2xx: rounds.reduce((sum, r) => sum + r.non2xx, 0),
  };
}

/** The CPU-per-request ratio of `a` to `b`, round by round: median and range. */
function cpuRatio(a: Rounds, b: Rounds): { median: number; low: number; high: number } {
  return spreadOf(a.map((r, i) => r.cpuUs / b[i]!.cpuUs));
}

/** The median of per-round figures with their lowest and highest. */
function spreadOf(values: number[]): { median: number; low: number; high: number } {
  return { median: median(values), low: Math.min(...values), high: Math.max(...values) };
}

function ratioText(ratio: { median: number; low: number; high: number }): string {
  return ROUNDS > 1
    ? `${ratio.median.toFixed(2)}× (${ratio.low.toFixed(2)}–${ratio.high.toFixed(2)} over ${ROUNDS} rounds)`
    : `${ratio.median.toFixed(2)}×`;
}

async function bare(body: string, status: number, busyUs = 0): Promise<{ url: string; server: Server }> {
  const bytes = Buffer.from(body);
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (busyUs > 0) {
        const until = performance.now() + busyUs / 1000;
        while (performance.now() < until);
      }
      res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': bytes.length });
      res.end(bytes);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

function row(
  name: string,
  measured: { mock: Rounds; ceiling: Rounds; floor?: Rounds; rules?: Rounds; parts?: Rounds; prism?: Result },
  target: number,
  cpuTarget: number,
): string {
  const mock = typical(measured.mock);
  const ceiling = typical(measured.ceiling);
  const ratio = mock.rps / ceiling.rps;
  const vsPrism = measured.prism ? mock.rps / measured.prism.rps : undefined;
  const cpu = cpuRatio(measured.mock, measured.ceiling);
  const lines = [
    `${name}`,
    `  mock      ${mock.rps.toFixed(0).padStart(7)} req/s  p99 ${String(mock.p99).padStart(4)} ms  server CPU ${mock.cpuUs.toFixed(0).padStart(3)} µs/req  (non-2xx ${mock.non2xx})`,
    `  node:http ${ceiling.rps.toFixed(0).padStart(7)} req/s  p99 ${String(ceiling.p99).padStart(4)} ms  server CPU ${ceiling.cpuUs.toFixed(0).padStart(3)} µs/req`,
  ];
  if (measured.floor) {
    const floor = typical(measured.floor);
    lines.push(
      `  floor     ${floor.rps.toFixed(0).padStart(7)} req/s  p99 ${String(floor.p99).padStart(4)} ms  server CPU ${floor.cpuUs.toFixed(0).padStart(3)} µs/req  (hand-written, bench/floor-servers.ts; non-2xx ${floor.non2xx})`,
    );
  }
  if (measured.rules) {
    const rules = typical(measured.rules);
    lines.push(
      `  rules     ${rules.rps.toFixed(0).padStart(7)} req/s  p99 ${String(rules.p99).padStart(4)} ms  server CPU ${rules.cpuUs.toFixed(0).padStart(3)} µs/req  (the floor plus the mock's obligations, hand-written, bench/rules-floor-servers.ts; non-2xx ${rules.non2xx})`,
    );
  }
  if (measured.parts) {
    const parts = typical(measured.parts);
    lines.push(
      `  parts     ${parts.rps.toFixed(0).padStart(7)} req/s  p99 ${String(parts.p99).padStart(4)} ms  server CPU ${parts.cpuUs.toFixed(0).padStart(3)} µs/req  (the mock's own parts without its engine, bench/parts-servers.ts; non-2xx ${parts.non2xx})`,
    );
  }
  if (measured.prism)
    lines.push(
      `  prism     ${measured.prism.rps.toFixed(0).padStart(7)} req/s  p99 ${String(measured.prism.p99).padStart(4)} ms  (non-2xx ${measured.prism.non2xx})`,
    );
  lines.push(
    `  server CPU per request, mock / node:http ${ratioText(cpu)}${measured.floor ? '' : ` (target ≤ ${cpuTarget}×) ${cpu.median <= cpuTarget ? 'ok' : 'ABOVE TARGET'}`}`,
  );
  if (measured.floor) {
    const floor = cpuRatio(measured.floor, measured.ceiling);
    const vsFloor = cpuRatio(measured.mock, measured.floor);
    lines.push(
      `  server CPU per request, floor / node:http ${ratioText(floor)}: the least a server giving this answer costs here${floor.median > cpuTarget ? ', above the target' : ''}`,
      `  server CPU per request, mock / floor ${ratioText(vsFloor)} (target ≤ ${cpuTarget}×) ${vsFloor.median <= cpuTarget ? 'ok' : 'ABOVE TARGET'}`,
    );
    if (measured.rules) {
      const rulesVsFloor = cpuRatio(measured.rules, measured.floor);
      lines.push(
        `  server CPU per request, rules floor / floor ${ratioText(rulesVsFloor)}: what the obligations cost a hand-written server${rulesVsFloor.median > cpuTarget ? ', above the target on their own' : ''}`,
        `  server CPU per request, mock / rules floor ${ratioText(cpuRatio(measured.mock, measured.rules))}: what the mock costs beyond them`,
      );
    }
    if (measured.parts) {
      lines.push(
        `  server CPU per request, mock / parts ${ratioText(cpuRatio(measured.mock, measured.parts))}: what the engine costs (adapter, routing, the steps between the parts)`,
        `  server CPU per request, parts / floor ${ratioText(cpuRatio(measured.parts, measured.floor))}: what the mock's parts cost (sessions, validation, the handler)`,
      );
    }
  }
  lines.push(
    `  ratio to node:http ${ratio.toFixed(2)} (target ≥ ${target}) ${ratio >= target ? 'ok' : 'BELOW TARGET'}`,
  );
  if (vsPrism !== undefined)
    lines.push(`  ratio to prism     ${vsPrism.toFixed(1)}× (target ≥ 15×) ${vsPrism >= 15 ? 'ok' : 'BELOW TARGET'}`);
  if (measured.mock.phases) lines.push(...breakdownLines('the mock', measured.mock.phases, mock.cpuUs));
  if (measured.floor?.phases)
    lines.push(...breakdownLines('the floor', measured.floor.phases, typical(measured.floor).cpuUs, 3));
  return lines.join('\n');
}

/** The draft dish every dish figure creates: a priced dish with one configurator group of two items. */
const DISH_BODY = JSON.stringify({
  draft_dish: {
    name: 'Quattro Formaggi',
    price: '12.90',
    draft_category_id: 1001,
    organization_id: 1,
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
  },
});

/** A header reader over a record, without a closure per request (tsx, which runs the bench, names each one). */
class BenchHeaders {
  constructor(private readonly headers: Record<string, string>) {}

  get(name: string): string | null {
    return this.headers[name.toLowerCase()] ?? null;
  }
}

/** A request in the engine's own shape, as an adapter hands it over (see `src/engine/engine-request.ts`). */
function benchRequest(method: string, path: string, headers: Record<string, string>, body?: Uint8Array): EngineRequest {
  return new BenchRequest(method, path, headers, body);
}

/** See {@link benchRequest}: a class, so that a request costs the hot loop one object and no closures. */
class BenchRequest implements EngineRequest {
  readonly url: URL;
  readonly headers: BenchHeaders;
  readonly hasBody: boolean;

  constructor(
    readonly method: string,
    path: string,
    private readonly sent: Record<string, string>,
    private readonly body: Uint8Array | undefined,
  ) {
    this.url = new URL(`http://localhost:4010${path}`);
    this.headers = new BenchHeaders(sent);
    this.hasBody = body !== undefined;
  }

  bytes(): Promise<Uint8Array> {
    return Promise.resolve(this.body ?? new Uint8Array());
  }

  bytesNow(): Uint8Array | undefined {
    return this.body;
  }

  toRequest(): Request {
    return new Request(this.url, {
      method: this.method,
      headers: this.sent,
      ...(this.body ? { body: this.body as BodyInit } : {}),
    });
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)]!;
}

/** Every order the holder of `auth` sees, as the API answers them, page by page (100 a page). */
async function everyOrder(baseUrl: string, auth: Record<string, string>): Promise<Record<string, unknown>[]> {
  const orders: Record<string, unknown>[] = [];
  for (let page = 1; ; page++) {
    const res = await fetch(`${baseUrl}/api/orders?per_page=100&page=${page}`, { headers: auth });
    const answer = (await res.json()) as { orders: Record<string, unknown>[]; meta: { page_count: number } };
    orders.push(...answer.orders);
    if (page >= answer.meta.page_count) return orders;
  }
}

async function token(baseUrl: string, login: string): Promise<string> {
  const res = await fetch(`${baseUrl}/api/session?login=${encodeURIComponent(login)}&password=demo`, {
    method: 'POST',
  });
  return ((await res.json()) as { meta: { token: string } }).meta.token;
}

async function main(): Promise<void> {
  console.log(
    `mock-server benchmark: autocannon, ${CONNECTIONS} connections, ${DURATION_S} s per load after a ${WARMUP_S} s warm-up of each server, ${ROUNDS} round${ROUNDS === 1 ? '' : 's'} of the servers compared in a row, loopback${PIN ? '; servers on CPU 0, autocannon on CPU 1' : ''}\n`,
  );
  // Memory with 100,000 orders, measured first: the loads below leave garbage and thousands of dishes behind.
  if (!QUICK) {
    globalThis.gc?.();
    const before = process.memoryUsage().rss;
    const mock = createMock({ state: seedWithOrders(100_000) });
    const rows = (mock.runtime.state.orders.all() as OrderRecord[]).length;
    globalThis.gc?.();
    const rss = process.memoryUsage().rss;
    console.log(
      `100,000 orders in memory: process RSS ${(rss / 2 ** 20).toFixed(0)} MB (${((rss - before) / 2 ** 20).toFixed(0)} MB for the instance, ${rows} orders; target < 400 MB) ${rss < 400 * 2 ** 20 ? 'ok' : 'ABOVE TARGET'}`,
    );
    mock.close();
  }

  const server = await createMockServer({ state: seedWithOrders(10_000) });
  const p = QUICK ? undefined : await startPrism({ timeoutMs: 60_000 });
  try {
    const dispatcherToken = await token(server.url, 'dispatcher@demo');
    const staffToken = await token(server.url, 'admin@pizza.demo');
    const auth = { Authorization: `Token token="${dispatcherToken}"` };
    const staff = {
      Authorization: `Token token="${staffToken}"`,
      'Content-Type': 'application/json',
    };
    const prismAuth = { Authorization: 'Token token="bench"' };
    const prismLoad = (path: string, init?: Target['init']) => (p ? load(p.url + path, init) : undefined);

    // 0. Calibration: what 25 µs of work per request does to the ratio on this machine.
    if (!QUICK) {
      const calibrationBody = await (await fetch(`${server.url}/api/orders/5001`, { headers: auth })).text();
      const plain = await bare(calibrationBody, 200);
      const busy = await bare(calibrationBody, 200, 25);
      const [ceilingRounds, workedRounds] = await sideBySide([{ url: plain.url }, { url: busy.url }]);
      plain.server.close();
      busy.server.close();
      const [ceiling, worked] = [typical(ceilingRounds!), typical(workedRounds!)];
      console.log(
        [
          'calibration: bare node:http, and the same server spending 25 µs of busy work per request',
          `  node:http       ${ceiling.rps.toFixed(0).padStart(7)} req/s  server CPU ${ceiling.cpuUs.toFixed(0).padStart(3)} µs/req`,
          `  node:http+25µs  ${worked.rps.toFixed(0).padStart(7)} req/s  server CPU ${worked.cpuUs.toFixed(0).padStart(3)} µs/req`,
          `  ratio ${(worked.rps / ceiling.rps).toFixed(2)}: the most any server doing 25 µs of work per request can score here`,
          `  server CPU ratio ${ratioText(cpuRatio(workedRounds!, ceilingRounds!))}: what 25 µs of work per request shows as CPU per request here`,
        ].join('\n'),
      );
    }

    if (ROWS.has('order')) {
      // 1. One order with its sideloads.
      const orderPath = '/api/orders/5001';
      const orderBody = await (await fetch(server.url + orderPath, { headers: auth })).text();
      const c1 = await bare(orderBody, 200);
      const f1 = await orderFloor(dispatcherToken, new Map([[5001, { text: orderBody }]]));
      const r1 = await orderRulesFloor(
        [{ token: dispatcherToken, account: 'dispatcher', organizationIds: [] }],
        server.mock.runtime.config.tokenTtlMs,
        new Map([[5001, { text: orderBody, organizationId: organizationOfOrder(server, 5001) }]]),
      );
      const p1 = await orderPartsServer(server);
      const [mock1, ceiling1, floor1, rules1, parts1] = await sideBySide([
        { url: server.url + orderPath, init: { headers: auth }, profile: 'order-mock' },
        { url: c1.url + orderPath, name: 'order-bare' },
        { url: f1.url + orderPath, init: { headers: auth }, profile: 'order-floor' },
        { url: r1.url + orderPath, init: { headers: auth }, name: 'order-rules' },
        { url: p1.url + orderPath, init: { headers: auth }, name: 'order-parts' },
      ]);
      const prism1 = await prismLoad(orderPath, { headers: prismAuth });
      c1.server.close();
      f1.server.close();
      r1.server.close();
      p1.server.close();
      console.log(
        row(
          `GET ${orderPath} (order + restaurants, couriers, payments)`,
          {
            mock: mock1!,
            ceiling: ceiling1!,
            floor: floor1!,
            rules: rules1!,
            parts: parts1!,
            ...(prism1 ? { prism: prism1 } : {}),
          },
          0.6,
          1.3,
        ),
      );
    }

    if (ROWS.has('page')) {
      // 2. A filtered, sorted page of 50 over 10,000 orders, against a hand-written server with an index.
      const listPath =
        '/api/orders?per_page=50&status=delivery&status=pending&restaurant_id=11&restaurant_id=12&sort_by=-delivery_at';
      const listBody = await (await fetch(server.url + listPath, { headers: auth })).text();
      const c2 = await bare(listBody, 200);
      const f2 = await orderPageFloor(
        dispatcherToken,
        await everyOrder(server.url, auth),
        new Map([[listPath, listBody]]),
      );
      const [mock2, ceiling2, floor2] = await sideBySide([
        { url: server.url + listPath, init: { headers: auth }, profile: 'page-mock' },
        { url: c2.url + listPath },
        { url: f2.url + listPath, init: { headers: auth }, profile: 'page-floor' },
      ]);
      const prism2 = await prismLoad(listPath, { headers: prismAuth });
      c2.server.close();
      f2.server.close();
      console.log(
        row(
          'GET /api/orders?per_page=50 over 10,000 orders, filtered and sorted',
          { mock: mock2!, ceiling: ceiling2!, floor: floor2!, ...(prism2 ? { prism: prism2 } : {}) },
          0.25,
          2,
        ),
      );
    }

    if (ROWS.has('dish')) {
      // 3. Creating a draft dish with full validation.
      const dish = DISH_BODY;
      const createdBody = await (
        await fetch(`${server.url}/api/draft_dishes`, { method: 'POST', headers: staff, body: dish })
      ).text();
      const c3 = await bare(createdBody, 201);
      const f3 = await draftDishFloor(staffToken, createdBody);
      const r3 = await dishRulesFloorOf(server, staffToken);
      const post = { method: 'POST', headers: staff, body: dish };
      const p3 = await draftDishPartsServer(server);
      // `ablation` in BENCH_ROWS: the parts server once more without each part in turn (see `DishPart`).
      const ablated = ROWS.has('ablation')
        ? await Promise.all(
            DISH_PARTS.map(async (part) => ({
              part,
              server: await draftDishPartsServer(server, { without: [part], created: createdBody }),
            })),
          )
        : [];
      const [mock3, ceiling3, floor3, rules3, parts3, ...without3] = await sideBySide([
        { url: `${server.url}/api/draft_dishes`, init: post, profile: 'dish-mock' },
        { url: `${c3.url}/api/draft_dishes`, init: post, name: 'dish-bare' },
        { url: `${f3.url}/api/draft_dishes`, init: post, profile: 'dish-floor' },
        { url: `${r3.url}/api/draft_dishes`, init: post, name: 'dish-rules' },
        { url: `${p3.url}/api/draft_dishes`, init: post, name: 'dish-parts' },
        ...ablated.map(({ part, server: s }) => ({
          url: `${s.url}/api/draft_dishes`,
          init: post,
          name: `dish-parts-without-${part}`,
        })),
      ]);
      for (const { server: s } of ablated) s.server.close();
      const prism3 = await prismLoad('/api/draft_dishes', {
        method: 'POST',
        headers: { ...prismAuth, 'Content-Type': 'application/json' },
        body: dish,
      });
      c3.server.close();
      f3.server.close();
      r3.server.close();
      p3.server.close();
      console.log(
        row(
          'POST /api/draft_dishes with full validation',
          {
            mock: mock3!,
            ceiling: ceiling3!,
            floor: floor3!,
            rules: rules3!,
            parts: parts3!,
            ...(prism3 ? { prism: prism3 } : {}),
          },
          0.5,
          1.5,
        ),
      );
      if (ablated.length > 0)
        console.log(
          ablationLines(
            parts3!,
            ablated.map(({ part }, i) => ({ part, rounds: without3[i]! })),
          ),
        );
    }
  } finally {
    p?.stop();
    await server.close();
  }

  if (PROFILE)
    console.log(`\nphases: ${PHASES.map((phase) => `${phase}: ${PHASE_MEANING[phase]}`).join('\n        ')}`);
  if (QUICK) {
    if (ROWS.has('engine')) await engineAlone();
    return;
  }

  // 4. Menu import of 5,000 dishes with the job duration set to zero.
  {
    const mock = createMock({ config: { importDurationMs: 0 } });
    const login = await mock.fetch('http://localhost:4010/api/session?login=admin@pizza.demo&password=demo', {
      method: 'POST',
    });
    const headers = {
      Authorization: `Token token="${((await login.json()) as { meta: { token: string } }).meta.token}"`,
      'Content-Type': 'application/json',
    };
    const dishes = Array.from({ length: 5000 }, (_, i) => ({
      name: `Dish ${i}`,
      price: 5 + (i % 20),
      category_name: `Category ${i % 25}`,
      external_id: `d-${i}`,
    }));
    const started = performance.now();
    const res = await mock.fetch('http://localhost:4010/api/organizations/1/import/menu', {
      method: 'POST',
      headers,
      body: JSON.stringify({ dishes }),
    });
    await mock.runtime.clock.runDue();
    const state = await (await mock.fetch('http://localhost:4010/api/organizations/1/import/menu', { headers })).json();
    const ms = performance.now() - started;
    console.log(
      `\nmenu import, 5,000 dishes, job duration 0: ${ms.toFixed(0)} ms (status ${res.status}, job ${(state as { job_status: string }).job_status}; target < 1000 ms) ${ms < 1000 ? 'ok' : 'ABOVE TARGET'}`,
    );
    mock.close();
  }

  // 5. Order import of 10,000 orders over 100 zones.
  {
    const seed = demoSeed();
    const zones = seed.deliveryZones!.rows as {
      id: number;
      restaurant_id: number;
      organization_id: number;
      area: string;
      timetables: unknown[];
    }[];
    const template = zones[0]!;
    zones.length = 0;
    for (let i = 0; i < 100; i++) {
      const lon = 13.3 + (i % 10) * 0.02;
      const lat = 52.45 + Math.floor(i / 10) * 0.01;
      const ring = `POLYGON((${lon} ${lat}, ${lon + 0.02} ${lat}, ${lon + 0.02} ${lat + 0.01}, ${lon} ${lat + 0.01}, ${lon} ${lat}))`;
      zones.push({ ...template, id: 1000 + i, restaurant_id: i % 2 ? 11 : 12, organization_id: 1, area: ring });
    }
    const mock = createMock({ state: seed as MockStateJson });
    const login = await mock.fetch('http://localhost:4010/api/session?login=admin@pizza.demo&password=demo', {
      method: 'POST',
    });
    const headers = {
      Authorization: `Token token="${((await login.json()) as { meta: { token: string } }).meta.token}"`,
      'Content-Type': 'application/json',
    };
    const orders = Array.from({ length: 10_000 }, (_, i) => ({
      external_id: `imp-${i}`,
      status: 'complete',
      city: 'Berlin',
      address: `Teststraße ${i}`,
      latitude: 52.4505 + (i % 97) * 0.001,
      longitude: 13.3005 + (i % 199) * 0.001,
      total: 20,
      contact_name: 'Bench Client',
      contact_phone: '+49 170 0000000',
      payment_source: 'cash',
      buddies: [{ items: [{ name: 'Margherita', amount: 1, price: 9.5, item_price: 9.5 }] }],
    }));
    const started = performance.now();
    const res = await mock.fetch('http://localhost:4010/api/organizations/1/import/orders', {
      method: 'POST',
      headers,
      body: JSON.stringify({ orders }),
    });
    const body = (await res.json()) as { organization_import: { status: string }[] };
    const ms = performance.now() - started;
    const imported = body.organization_import.filter((r) => r.status === 'imported').length;
    console.log(
      `order import, 10,000 orders over 100 zones: ${ms.toFixed(0)} ms (${imported} imported; target < 2000 ms) ${ms < 2000 ? 'ok' : 'ABOVE TARGET'}`,
    );
    mock.close();
  }

  // 6. In-process bound fetch latency.
  {
    const mock = createMock();
    const login = await mock.fetch('http://localhost:4010/api/session?login=dispatcher@demo&password=demo', {
      method: 'POST',
    });
    const headers = {
      Authorization: `Token token="${((await login.json()) as { meta: { token: string } }).meta.token}"`,
    };
    for (let i = 0; i < 500; i++)
      await (await mock.fetch('http://localhost:4010/api/orders/5001', { headers })).arrayBuffer();
    const samples: number[] = [];
    for (let i = 0; i < 5000; i++) {
      const t0 = performance.now();
      await (await mock.fetch('http://localhost:4010/api/orders/5001', { headers })).arrayBuffer();
      samples.push((performance.now() - t0) * 1000);
    }
    const m = median(samples);
    console.log(
      `in-process mock.fetch GET /api/orders/5001: median ${m.toFixed(1)} µs over 5,000 calls (target < 60 µs) ${m < 60 ? 'ok' : 'ABOVE TARGET'}`,
    );
    mock.close();
  }

  // 7. The engine alone, hot, and the parts of a created dish.
  await engineAlone();

  // 8. The scaling curve: a sorted, filtered page, one order and an import at 1k, 10k and 100k orders.
  await scalingCurve([1_000, 10_000, 100_000]);

  // 9. 500,000 orders in a process of their own, so that the RSS is theirs (about a minute; BENCH_500K=1).
  if (process.env.BENCH_500K === '1') {
    console.log('');
    const script = new URL('./scale-bench.ts', import.meta.url).pathname;
    await new Promise<void>((resolve, reject) => {
      const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', script, '--500k'], { stdio: 'inherit' });
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`500k bench exited with ${code}`))));
    });
  } else console.log('\n500,000 orders: skipped (BENCH_500K=1 runs it, about a minute)');
}

/** 7. The engine alone, hot: the work the single-order and draft-dish rows pay for, without HTTP; then the parts of a created dish. */
async function engineAlone(): Promise<void> {
  const mock = createMock({ state: seedWithOrders(10_000) });
  const tokenOf = async (login: string): Promise<string> => {
    const res = await mock.fetch(`http://localhost:4010/api/session?login=${login}&password=demo`, {
      method: 'POST',
    });
    return ((await res.json()) as { meta: { token: string } }).meta.token;
  };
  const dispatcher = await tokenOf('dispatcher@demo');
  const staff = await tokenOf('admin@pizza.demo');
  const dish = new TextEncoder().encode(DISH_BODY);
  const perCall = async (make: () => EngineRequest, expected: number): Promise<{ hot: number; cold: number }> => {
    // Cold: each call timed on its own after `flushCaches` (as the load generator, the kernel and the other
    // connections flush the caches between two requests over HTTP), so that the flush is not counted (the
    // timing's own cost, about 1 µs, is). Hot: seven loops of 10,000 calls timed whole, through `answerNow` as
    // the node adapter calls it; the median loop.
    const cold = async (calls: number): Promise<number> => {
      let total = 0;
      for (let i = 0; i < calls; i++) {
        flushCaches();
        const started = process.cpuUsage();
        const answer = await mock.answer(make());
        const cpu = process.cpuUsage(started);
        if (answer.status !== expected) throw new Error(`engine answered ${answer.status}`);
        total += cpu.user + cpu.system;
      }
      return total / calls;
    };
    const loop = async (calls: number): Promise<number> => {
      const started = process.cpuUsage();
      for (let i = 0; i < calls; i++) {
        const now = mock.answerNow(make());
        const answer = now instanceof Promise ? await now : now;
        if (answer.status !== expected) throw new Error(`engine answered ${answer.status}`);
      }
      const cpu = process.cpuUsage(started);
      return (cpu.user + cpu.system) / calls;
    };
    await loop(20_000);
    const hot: number[] = [];
    for (let i = 0; i < 7; i++) hot.push(await loop(10_000));
    return { hot: median(hot), cold: await cold(2_000) };
  };
  const get = await perCall(
    () => benchRequest('GET', '/api/orders/5001', { authorization: `Token token="${dispatcher}"` }),
    200,
  );
  const post = await perCall(
    () =>
      benchRequest(
        'POST',
        '/api/draft_dishes',
        { authorization: `Token token="${staff}"`, 'content-type': 'application/json' },
        dish,
      ),
    201,
  );
  console.log(
    [
      'engine alone, in process (mock.answer, no HTTP), CPU per call:',
      `  hot loop:                          GET one order ${get.hot.toFixed(1)} µs, POST a draft dish ${post.hot.toFixed(1)} µs`,
      `  caches flushed before each call:   GET one order ${get.cold.toFixed(1)} µs, POST a draft dish ${post.cold.toFixed(1)} µs`,
    ].join('\n'),
  );
  const { hot, cold } = timeDishParts({ mock }, staff, DISH_BODY);
  const ns = (value: number): string => `${value.toFixed(0)} ns`.padStart(9);
  const us = (value: number): string => `${(value / 1000).toFixed(1)} µs`.padStart(8);
  const line = (label: string, part: keyof DishPartsHot, floorLabel: string, floorPart: keyof DishPartsHot): string =>
    `  ${label.padEnd(32)}${ns(hot[part])}${us(cold[part])}   ${floorLabel.padEnd(30)}${ns(hot[floorPart])}${us(cold[floorPart])}`;
  console.log(
    [
      "the parts of a created dish alone, CPU per call hot and with the caches flushed before it, beside the floor's equivalent of each:",
      `  ${''.padEnd(32)}${'hot'.padStart(9)}${'cold'.padStart(8)}   ${''.padEnd(30)}${'hot'.padStart(9)}${'cold'.padStart(8)}`,
      line('session lookup (authenticate)', 'authenticate', 'floor: token regex and a map', 'tokenLookup'),
      line('request check (validateRequest)', 'validateRequest', 'floor: ajv alone', 'ajvAlone'),
      line('handler (createDraftDish)', 'handler', 'floor: a spread and a Map.set', 'spreadAndStore'),
      line('JSON.parse of the body', 'parse', 'JSON.stringify of the answer', 'stringify'),
      `  (each cold figure includes the timing's own cost: an empty call timed cold took ${us(cold.nothing).trim()})`,
    ].join('\n'),
  );
  mock.close();
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
