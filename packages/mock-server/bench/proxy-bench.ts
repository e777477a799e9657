/**
 * What `restoapi-mock proxy` costs per request: the mock answered directly and through the proxy (both in
 * this process), one connection at a time so that latency is a request's own, in the same run. Load comes
 * from autocannon in a second process. Server CPU per request is this process's user + system time divided
 * by the requests answered: direct it is the mock's, through the proxy the mock's plus the proxy's, so the
 * difference is the proxy's (forwarding, holding the body, checking request and answer).
 * `--record` is measured the same way (a proxy saving its recording after every answer), and then the cost of
 * one save as the recording grows, since each save rewrites the whole fixture.
 * `BENCH_SECONDS` sets the length of each load (default 5).
 */
import { spawn } from 'node:child_process';
import { Agent, createServer, request, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { createMockServer } from '../src/node.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createProxyServer } from '../src/proxy/proxy-server.js';
import { Recorder } from '../src/proxy/recorder.js';
import { RecordingFile } from '../src/proxy/recording-file.js';
import { seedWithOrders } from '../test/orders/order-fixtures.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const require = createRequire(import.meta.url);

interface Figures {
  /** Mean and 99th percentile latency, ms. */
  mean: number;
  p99: number;
  rps: number;
  /** This process's CPU per answered request, µs. */
  cpuUs: number;
  errors: number;
}

/** One autocannon run (one connection) in its own process, with this process's CPU over it. */
async function measure(url: string, headers: Record<string, string>): Promise<Figures> {
  const args = [require.resolve('autocannon/autocannon.js'), '-j', '-c', '1', '-d', String(SECONDS)];
  for (const [name, value] of Object.entries(headers)) args.push('-H', `${name}=${value}`);
  const before = process.cpuUsage();
  const text = await new Promise<string>((resolve, reject) => {
    const child = spawn(process.execPath, [...args, url], { stdio: ['ignore', 'pipe', 'inherit'] });
    const parts: Buffer[] = [];
    child.stdout.on('data', (part: Buffer) => parts.push(part));
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0 ? resolve(Buffer.concat(parts).toString()) : reject(new Error(`autocannon: exit ${code}`)),
    );
  });
  const used = process.cpuUsage(before);
  const run = JSON.parse(text) as {
    latency: { mean: number; p99: number };
    requests: { average: number; total: number };
    non2xx: number;
    errors: number;
  };
  return {
    mean: run.latency.mean,
    p99: run.latency.p99,
    rps: run.requests.average,
    cpuUs: (used.user + used.system) / Math.max(1, run.requests.total),
    errors: run.non2xx + run.errors,
  };
}

/**
 * Calibration: a bare node:http pass-through (keep-alive agent, bodies piped, no checks) in front of the same
 * mock. What it adds is the cost of any proxy on loopback (two more socket writes and reads per request).
 */
async function bareProxy(upstream: URL): Promise<{ url: string; server: Server }> {
  const agent = new Agent({ keepAlive: true });
  const server = createServer((req, res) => {
    const out = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

const ms = (n: number): string => `${n.toFixed(2)} ms`;
const us = (n: number): string => `${Math.round(n)} µs`;

async function main(): Promise<void> {
  const mock = await createMockServer({ state: seedWithOrders(10_000) });
  const proxy = await createProxyServer({ upstream: mock.url });
  const bare = await bareProxy(new URL(mock.url));
  const dir = mkdtempSync(join(tmpdir(), 'restoapi-proxy-bench-'));
  const recording = new RecordingFile(join(dir, 'recording.json'), new Recorder());
  const recorder = await createProxyServer({ upstream: mock.url, onAnswer: recording.observe.bind(recording) });
  try {
    const login = await fetch(`${mock.url}/api/session?login=dispatcher@demo&password=demo`, { method: 'POST' });
    const { meta } = (await login.json()) as { meta: { token: string } };
    const auth = { Authorization: `Token token="${meta.token}"` };
    console.log(`proxy benchmark: autocannon, 1 connection, ${SECONDS} s per target, loopback, same process\n`);
    console.log(
      '| request | direct mean / p99 | via proxy mean / p99 | added latency (mean) | CPU/request direct | via proxy | proxy CPU/request | bare pass-through CPU/request | via proxy --record mean / p99 |',
    );
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const [name, path] of [
      ['GET one order with sideloads', '/api/orders/5001'],
      ['GET 50 of 10,000 orders (45 kB)', '/api/orders?per_page=50&status=pending'],
    ] as const) {
      // Warm up: the first requests of an operation compile its validators, which no later request pays.
      for (const base of [mock.url, proxy.url, bare.url, recorder.url])
        for (let i = 0; i < 50; i += 1) await (await fetch(base + path, { headers: auth })).arrayBuffer();
      const direct = await measure(mock.url + path, auth);
      const via = await measure(proxy.url + path, auth);
      const passThrough = await measure(bare.url + path, auth);
      const recorded = await measure(recorder.url + path, auth);
      const errors = {
        direct: direct.errors,
        proxy: via.errors,
        'bare pass-through': passThrough.errors,
        recording: recorded.errors,
      };
      if (Object.values(errors).some((count) => count > 0))
        throw new Error(`${name}: failed requests ${JSON.stringify(errors)}`);
      console.log(
        `| ${name} | ${ms(direct.mean)} / ${ms(direct.p99)} | ${ms(via.mean)} / ${ms(via.p99)} | ${ms(via.mean - direct.mean)} | ${us(direct.cpuUs)} | ${us(via.cpuUs)} | ${us(via.cpuUs - direct.cpuUs)} | ${us(passThrough.cpuUs - direct.cpuUs)} | ${ms(recorded.mean)} / ${ms(recorded.p99)} |`,
      );
    }
    // A save rewrites the whole recording, so its cost grows with what was recorded: one order list seen,
    // as after browsing that many orders, then one more answer.
    console.log(
      '\n| orders recorded | one save after an answer (compact, not flushed) | final save on exit (indented, flushed) |',
    );
    console.log('| --- | --- | --- |');
    const order = (await (await fetch(`${mock.url}/api/orders/5001`, { headers: auth })).json()) as {
      order: Record<string, unknown>;
      restaurants: unknown[];
    };
    for (const count of [100, 1_000, 5_000]) {
      const big = new Recorder();
      const exchange = (operationId: string) =>
        ({ method: 'GET', url: new URL('http://bench/api'), operation: { operationId }, params: {} }) as never;
      big.observe(exchange('getOrder'), 200, order);
      const orders = Array.from({ length: count }, (_, i) => ({ ...order.order, id: 1_000_000 + i }));
      big.observe(exchange('listOrders'), 200, { orders });
      const file = join(dir, `orders-${count}.json`);
      const timed = async (draft: boolean): Promise<number> => {
        const started = performance.now();
        for (let i = 0; i < 5; i += 1) await big.save(file, { draft });
        return (performance.now() - started) / 5;
      };
      await timed(true);
      console.log(`| ${count.toLocaleString('en')} | ${ms(await timed(true))} | ${ms(await timed(false))} |`);
    }
    const violations = proxy.report().violations;
    if (violations > 0)
      throw new Error(`the proxy saw ${violations} violations of the mock: the bench measured error paths`);
  } finally {
    bare.server.closeAllConnections();
    bare.server.close();
    await recorder.close();
    rmSync(dir, { recursive: true, force: true });
    await proxy.close();
    await mock.close();
  }
}

await main();
