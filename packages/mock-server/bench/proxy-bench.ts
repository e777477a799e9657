/**
 * What `restoapi-mock proxy` costs per request: the mock answered directly and through the proxy (both in
 * this process), one connection at a time so that latency is a request's own, in the same run. Load comes
 * from autocannon in a second process. Server CPU per request is this process's user + system time divided
 * by the requests answered: direct it is the mock's, through the proxy the mock's plus the proxy's, so the
 * difference is the proxy's (forwarding, holding the body, checking request and answer).
 * `BENCH_SECONDS` sets the length of each load (default 5).
 */
import { spawn } from 'node:child_process';
import { Agent, createServer, request, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { createMockServer } from '../src/node.js';
import { createProxyServer } from '../src/proxy/proxy-server.js';
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
  try {
    const login = await fetch(`${mock.url}/api/session?login=dispatcher@demo&password=demo`, { method: 'POST' });
    const { meta } = (await login.json()) as { meta: { token: string } };
    const auth = { Authorization: `Token token="${meta.token}"` };
    console.log(`proxy benchmark: autocannon, 1 connection, ${SECONDS} s per target, loopback, same process\n`);
    console.log(
      '| request | direct mean / p99 | via proxy mean / p99 | added latency (mean) | CPU/request direct | via proxy | proxy CPU/request | bare pass-through CPU/request |',
    );
    console.log('| --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const [name, path] of [
      ['GET one order with sideloads', '/api/orders/5001'],
      ['GET 50 of 10,000 orders (45 kB)', '/api/orders?per_page=50&status=pending'],
    ] as const) {
      // Warm up: the first requests of an operation compile its validators, which no later request pays.
      for (const base of [mock.url, proxy.url, bare.url])
        for (let i = 0; i < 50; i += 1) await (await fetch(base + path, { headers: auth })).arrayBuffer();
      const direct = await measure(mock.url + path, auth);
      const via = await measure(proxy.url + path, auth);
      const passThrough = await measure(bare.url + path, auth);
      const errors = { direct: direct.errors, proxy: via.errors, 'bare pass-through': passThrough.errors };
      if (Object.values(errors).some((count) => count > 0))
        throw new Error(`${name}: failed requests ${JSON.stringify(errors)}`);
      console.log(
        `| ${name} | ${ms(direct.mean)} / ${ms(direct.p99)} | ${ms(via.mean)} / ${ms(via.p99)} | ${ms(via.mean - direct.mean)} | ${us(direct.cpuUs)} | ${us(via.cpuUs)} | ${us(via.cpuUs - direct.cpuUs)} | ${us(passThrough.cpuUs - direct.cpuUs)} |`,
      );
    }
    const violations = proxy.report().violations;
    if (violations > 0)
      throw new Error(`the proxy saw ${violations} violations of the mock: the bench measured error paths`);
  } finally {
    bare.server.closeAllConnections();
    bare.server.close();
    await proxy.close();
    await mock.close();
  }
}

await main();
