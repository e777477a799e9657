/**
 * What the SDK adds per call: the median latency of `GET /api/orders/{id}` through raw `fetch` and through
 * `api.orders.get()`, against the same mock, measured in one run and interleaved (the contenders run in a fresh
 * random order every round, so that warm-up, GC and machine noise hit all alike).
 *
 * The measure of record is the in-process mock (`mock.fetch`) with exactly two contenders, raw fetch and the
 * SDK (target: at most 10 % added median latency). Reference rows run in a second pass of their own: a bare
 * openapi-fetch client (no retries, timeouts or typed errors) and raw `fetch` with a per-attempt
 * AbortController and timer (the naive floor of any client that times out each attempt). They are kept out of
 * the first pass because interleaved contenders pay for each other's garbage: openapi-fetch's per-call
 * `Request` objects alone made every other contender's median a few microseconds worse. The same comparison
 * over HTTP on loopback follows for context.
 * Run: `npm run bench -w @restoapi/sdk` (options: `-- --calls 20000` (default 8,000 in-process, at most 2,000 over HTTP), `-- --no-http`, `-- --no-reference`).
 */
import { performance } from 'node:perf_hooks';
import createClient from 'openapi-fetch';
import { createMock } from '@restoapi/mock-server';
import { createMockServer } from '@restoapi/mock-server/node';
import { createRestoClient, type paths } from '../src/index.js';

const argv = process.argv.slice(2);
const callsAt = argv.indexOf('--calls');
const CALLS = callsAt >= 0 ? Number(argv[callsAt + 1]) : 8_000;
const WARMUP = 500;

type Contender = [name: string, run: () => Promise<number>];

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};
/** Fisher–Yates, in place. */
const shuffle = (values: number[]): void => {
  for (let i = values.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [values[i], values[j]] = [values[j]!, values[i]!];
  }
};
const us = (ms: number): string => `${(ms * 1000).toFixed(1)} µs`;

/** Runs the contenders interleaved and prints their medians against the first one; returns the last one's added %. */
async function interleave(label: string, contenders: Contender[], calls: number): Promise<number> {
  for (let i = 0; i < WARMUP; i++) for (const [, run] of contenders) await run();
  const times = contenders.map((): number[] => []);
  const order = contenders.map((_, index) => index);
  for (let i = 0; i < calls; i++) {
    shuffle(order);
    for (const index of order) {
      const started = performance.now();
      await contenders[index]![1]();
      times[index]!.push(performance.now() - started);
    }
  }
  const medians = times.map(median);
  const base = medians[0]!;
  console.log(`${label}: GET /api/orders/{id}, ${calls} calls each, interleaved after ${WARMUP} warm-up rounds`);
  contenders.forEach(([name], i) => {
    const m = medians[i]!;
    const added = i === 0 ? '' : `  (+${us(m - base)}, +${(((m - base) / base) * 100).toFixed(1)} %)`;
    console.log(`  ${name.padEnd(19)} median ${us(m)}${added}`);
  });
  return ((medians[contenders.length - 1]! - base) / base) * 100;
}

/** The measure (raw fetch vs the SDK), then the reference rows in their own pass. */
async function compare(label: string, baseUrl: string, fetch: typeof globalThis.fetch, calls: number): Promise<void> {
  const api = createRestoClient({ baseUrl, fetch });
  const { meta } = await api.session.login('dispatcher@demo', 'demo');
  const headers = { Authorization: `Token token="${meta.token}"` };

  // The baseline: what a hand-written call does (fetch with the URL and headers, status check, JSON parse).
  const raw: Contender = [
    'raw fetch',
    async () => {
      const response = await fetch(`${baseUrl}/api/orders/5001`, { headers });
      if (!response.ok) throw new Error(`raw fetch failed: ${response.status}`);
      return ((await response.json()) as { order: { id: number } }).order.id;
    },
  ];
  const sdk: Contender = ['SDK', async () => (await api.orders.get(5001)).order.id];
  const added = await interleave(label, [raw, sdk], calls);
  console.log(`  SDK added median latency: ${added.toFixed(1)} % (target ≤ 10 %)`);
  if (argv.includes('--no-reference')) return;

  const bare = createClient<paths>({ baseUrl, fetch: (request) => fetch(request), headers });
  await interleave(
    `${label}, reference rows`,
    [
      raw,
      // The naive floor of a client with a per-attempt timeout: a fresh AbortController and timer per call.
      // Passing a fresh signal makes `fetch` (and the in-process mock) follow it, which costs on its own.
      [
        'raw fetch + timeout',
        async () => {
          const controller = new AbortController();
          const timer = setTimeout(() => controller.abort(), 30_000);
          try {
            const response = await fetch(`${baseUrl}/api/orders/5001`, { headers, signal: controller.signal });
            if (!response.ok) throw new Error(`raw fetch failed: ${response.status}`);
            return ((await response.json()) as { order: { id: number } }).order.id;
          } finally {
            clearTimeout(timer);
          }
        },
      ],
      [
        'bare openapi-fetch',
        async () => (await bare.GET('/api/orders/{id}', { params: { path: { id: 5001 } } })).data!.order.id,
      ],
      sdk,
    ],
    Math.min(calls, 2_000),
  );
}

const mock = createMock();
await compare('in-process mock (mock.fetch)', 'http://localhost:4010', mock.fetch, CALLS);
mock.close();

if (!argv.includes('--no-http')) {
  const server = await createMockServer({ port: 0 });
  try {
    await compare('HTTP on loopback (global fetch)', server.url, globalThis.fetch, Math.min(CALLS, 2_000));
  } finally {
    await server.close();
  }
}
