/**
 * `npm run bench -w @restoapi/mock-server` (after mock-bench.ts), or
 * `node --expose-gc --import tsx bench/session-bench.ts`: what a mock session (`X-Mock-Session`) costs.
 *
 * - creation: `mock.session(name)` for a new name, from the demo seed (the time a worker's first request
 *   spends before its answer), median and p95 over many sessions; beside it a whole `createMock()` and the
 *   first HTTP request of a new session, end to end over loopback;
 * - memory: RSS and heapUsed after a full GC, before and after 100 demo sessions, each session having
 *   answered one request (so its lazy parts exist), divided by 100.
 * Targets come from issue 15 (< 5 ms per session, < 100 MB for 100 sessions); reported, never asserted.
 */
import { createMock } from '../src/index.js';
import { createMockServer } from '../src/node.js';

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc (npm run bench does)');

function stats(samples: number[]): { median: number; p95: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: sorted[Math.floor(sorted.length / 2)]!, p95: sorted[Math.floor(sorted.length * 0.95)]! };
}

const ms = (value: number): string => `${value.toFixed(3)} ms`;
const mb = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
const kb = (bytes: number): string => `${Math.round(bytes / 1024)} kB`;

function settle(): NodeJS.MemoryUsage {
  for (let i = 0; i < 3; i++) gc!();
  return process.memoryUsage();
}

async function creation(): Promise<void> {
  const COUNT = 500;
  const mock = createMock({ sessions: { max: COUNT + 10, ttlMs: 0 } });
  // Warm-up: the first session compiles nothing (the validators are shared), but the JIT warms up.
  for (let i = 0; i < 20; i++) mock.session(`warm-${i}`);
  for (let i = 0; i < 20; i++) mock.sessions.drop(`warm-${i}`);
  const samples: number[] = [];
  for (let i = 0; i < COUNT; i++) {
    const started = performance.now();
    mock.session(`s-${i}`);
    samples.push(performance.now() - started);
  }
  mock.close();
  const session = stats(samples);

  const whole: number[] = [];
  for (let i = 0; i < 200; i++) {
    const started = performance.now();
    createMock().close();
    whole.push(performance.now() - started);
  }
  const instance = stats(whole);

  const server = await createMockServer({ port: 0, sessions: { max: 1000, ttlMs: 0 } });
  const first: number[] = [];
  const again: number[] = [];
  for (let i = 0; i < 200; i++) {
    const headers = { 'X-Mock-Session': `http-${i}` };
    let started = performance.now();
    await (await fetch(`${server.url}/__mock/clock`, { headers })).arrayBuffer();
    first.push(performance.now() - started);
    started = performance.now();
    await (await fetch(`${server.url}/__mock/clock`, { headers })).arrayBuffer();
    again.push(performance.now() - started);
  }
  await server.close();
  const http = stats(first);
  const warm = stats(again);

  console.log('session creation, from the demo seed (target < 5 ms)');
  console.log(
    `  mock.session(name), new          median ${ms(session.median)}  p95 ${ms(session.p95)}  (${COUNT} sessions)`,
  );
  console.log(`  createMock(), whole new mock     median ${ms(instance.median)}  p95 ${ms(instance.p95)}`);
  console.log(`  HTTP, first request of a session median ${ms(http.median)}  p95 ${ms(http.p95)}`);
  console.log(`  HTTP, next request of it         median ${ms(warm.median)}  p95 ${ms(warm.p95)}`);
}

async function memory(): Promise<void> {
  const COUNT = 100;
  const mock = createMock({ sessions: { max: COUNT, ttlMs: 0 } });
  await mock.fetch('http://localhost:4010/__mock/clock');
  const before = settle();
  for (let i = 0; i < COUNT; i++) {
    await mock.fetch('http://localhost:4010/__mock/clock', { headers: { 'X-Mock-Session': `m-${i}` } });
  }
  const after = settle();
  const rss = after.rss - before.rss;
  const heap = after.heapUsed - before.heapUsed;
  console.log(`memory of ${COUNT} demo sessions, after GC (target < 100 MB in all)`);
  console.log(`  RSS growth       ${mb(rss)}  (${kb(rss / COUNT)} per session)`);
  console.log(`  heapUsed growth  ${mb(heap)}  (${kb(heap / COUNT)} per session)`);
  mock.close();
}

// Memory first, in a process that has made no session yet: RSS never shrinks back after freed sessions.
await memory();
await creation();
