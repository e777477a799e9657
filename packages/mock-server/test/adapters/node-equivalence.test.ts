import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createMock, type EngineRoute, type MockOptions } from '@restoapi/mock-server';
import { createMockServer, toFetchRequest, writeFetchResponse } from '@restoapi/mock-server/node';
import { createCorsPolicy } from '../../src/cors/cors-policy.js';
import { seedWithOrders } from '../orders/order-fixtures.js';

/**
 * createMockServer answers node:http requests through the engine's light request shape; the reference
 * server below is the adapter as it was before, where every request became a fetch Request and every
 * answer a Response. Both get the same requests in the same order; what goes over the wire must be the
 * same, header lines and their order included, apart from what differs between any two instances
 * (request ids, dates, session tokens, the port in absolute URLs).
 */

// A route of the caller's own, which needs a real fetch Request (and reads its body).
const echo: EngineRoute = async (req, url) => {
  if (!url.pathname.startsWith('/custom/')) return undefined;
  return new Response(
    JSON.stringify({ method: req.method, probe: req.headers.get('x-probe'), body: await req.text() }),
    {
      status: 200,
      headers: { 'Content-Type': 'application/json', 'X-Custom': ' padded ' },
    },
  );
};

const options = (): MockOptions => ({
  state: seedWithOrders(300, new Date('2026-11-20T18:00:00Z')),
  config: { maxBodyBytes: 4096 },
  routes: [echo],
});

/** The fetch-based adapter; `withCors`: with the CORS policy applied as it was, by `setHeader` before the answer. */
async function referenceServer(withCors = false): Promise<{ url: string; close: () => Promise<void> }> {
  const mock = createMock(options());
  const cors = createCorsPolicy(withCors);
  let origin = '';
  const server = createServer((req, res) => {
    void (async () => {
      try {
        const request = toFetchRequest(req, origin);
        const decision = cors.decide(req.method ?? 'GET', request.headers);
        if (decision.kind === 'answer') {
          res.writeHead(decision.status, decision.headers);
          res.end(decision.body ?? undefined);
          return;
        }
        for (const name in decision.headers) res.setHeader(name, decision.headers[name]!);
        await writeFetchResponse(await mock.handle(request), res);
      } catch (error) {
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
        res.end(
          JSON.stringify({
            errors: [{ status: '500', code: 'internal', title: 'Internal error', detail: String(error) }],
          }),
        );
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  mock.runtime.baseUrl = origin;
  return {
    url: origin,
    close: async () => {
      mock.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

interface Exchange {
  method: string;
  path: string;
  /** Raw header pairs, repeats allowed; `TOKEN` and `STAFF` stand for each server's own session tokens. */
  headers?: [string, string][];
  body?: string | Buffer;
}

interface Wire {
  status: number;
  headers: string[];
  body: string;
}

function send(
  base: string,
  exchange: Exchange,
): Promise<{ status: number; rawHeaders: string[]; headers: IncomingHttpHeaders; body: Buffer }> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        method: exchange.method,
        path: exchange.path,
        // Raw header pairs (repeats kept), so node adds nothing of its own: Host and the body length are given here.
        headers: [
          ['Host', `${hostname}:${port}`],
          ...(exchange.headers ?? []),
          ...(exchange.body === undefined ? [] : [['Content-Length', String(Buffer.byteLength(exchange.body))]]),
        ].flat(),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            rawHeaders: res.rawHeaders,
            headers: res.headers,
            body: Buffer.concat(chunks),
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(exchange.body);
  });
}

class Client {
  tokens: Record<string, string> = {};
  constructor(readonly url: string) {}

  async run(exchange: Exchange): Promise<Wire> {
    const sub = (text: string): string => text.replace(/TOKEN|STAFF/g, (name) => this.tokens[name] ?? name);
    const res = await send(this.url, {
      ...exchange,
      path: sub(exchange.path),
      headers: exchange.headers?.map(([k, v]) => [k, sub(v)]),
    });
    const normalize = (text: string): string => {
      let out = text.split(this.url).join('ORIGIN');
      for (const [name, token] of Object.entries(this.tokens)) out = out.split(token).join(name);
      return out
        .replace(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})/g, 'TIME')
        .replace(/req_[0-9a-z_]+/g, 'ID');
    };
    const headers: string[] = [];
    for (let i = 0; i < res.rawHeaders.length; i += 2) {
      const name = res.rawHeaders[i]!;
      headers.push(`${name}: ${/^(date|keep-alive)$/i.test(name) ? '*' : normalize(res.rawHeaders[i + 1]!)}`);
    }
    return { status: res.status, headers, body: normalize(res.body.toString('latin1')) };
  }

  async login(name: 'TOKEN' | 'STAFF', login: string): Promise<Wire> {
    const res = await send(this.url, {
      method: 'POST',
      path: `/api/session?login=${encodeURIComponent(login)}&password=demo`,
    });
    this.tokens[name] = (JSON.parse(res.body.toString()) as { meta: { token: string } }).meta.token;
    return this.run({ method: 'GET', path: '/api/session', headers: [['Authorization', `Token token="${name}"`]] });
  }
}

const png = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
  'base64',
);
const boundary = '----restoapi-test';
const multipart = Buffer.concat([
  Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="p.png"\r\nContent-Type: image/png\r\n\r\n`,
  ),
  png,
  Buffer.from(`\r\n--${boundary}--\r\n`),
]);
const dish = JSON.stringify({
  draft_dish: { name: 'Quattro Formaggi', price: '12.90', draft_category_id: 1001, organization_id: 1 },
});
const auth: [string, string] = ['Authorization', 'Token token="TOKEN"'];
const staff: [string, string] = ['Authorization', 'Token token="STAFF"'];
const json: [string, string] = ['Content-Type', 'application/json'];

const exchanges: Exchange[] = [
  { method: 'GET', path: '/api/orders/5001', headers: [auth] },
  { method: 'GET', path: '/api/orders/5001?token=TOKEN' },
  { method: 'GET', path: '/api/orders/5001', headers: [auth, ['authorization', 'Token token="other"']] },
  { method: 'GET', path: '/api/orders/5001' },
  {
    method: 'GET',
    path: '/api/orders?per_page=3&status=pending&status=delivery&restaurant_id=11&sort_by=-delivery_at',
    headers: [auth],
  },
  { method: 'GET', path: '/api/orders?per_page=1000', headers: [auth] },
  { method: 'GET', path: '/api/orders?per_page=100&page=2&sort_by=number', headers: [auth] },
  { method: 'GET', path: '/orders/5001/', headers: [auth] },
  { method: 'GET', path: '/api/orders/999999', headers: [auth] },
  { method: 'PATCH', path: '/api/orders/5001', headers: [auth] },
  { method: 'HEAD', path: '/api/orders/5001', headers: [auth] },
  { method: 'GET', path: '/nope' },
  { method: 'GET', path: '/api/orders/5001/receipt.html', headers: [auth] },
  { method: 'PUT', path: '/api/orders/5001/status?status=accepted', headers: [staff] },
  { method: 'POST', path: '/api/draft_dishes', headers: [staff, json], body: dish },
  {
    method: 'POST',
    path: '/api/draft_dishes',
    headers: [staff, ['Content-Type', 'application/json; charset=utf-8']],
    body: dish,
  },
  { method: 'POST', path: '/api/draft_dishes', headers: [staff, json], body: '{"draft_dish": ' },
  { method: 'POST', path: '/api/draft_dishes', headers: [staff, ['Content-Type', 'text/plain']], body: dish },
  {
    method: 'POST',
    path: '/api/draft_dishes',
    headers: [staff, json],
    body: JSON.stringify({ draft_dish: { name: 'x'.repeat(5000) } }),
  },
  {
    method: 'POST',
    path: '/api/draft_dishes',
    headers: [staff, json],
    body: JSON.stringify({ draft_dish: { name: 'No price' } }),
  },
  { method: 'POST', path: '/api/draft_dishes', headers: [staff, json] },
  {
    method: 'PUT',
    path: '/api/draft_dishes/10003/photo',
    headers: [staff, ['Content-Type', `multipart/form-data; boundary=${boundary}`]],
    body: multipart,
  },
  { method: 'GET', path: '/api/draft_dishes/10003', headers: [staff] },
  {
    method: 'POST',
    path: '/custom/echo',
    headers: [['X-Probe', 'a'], ['x-probe', 'b'], json],
    body: '{"hello":"wörld"}',
  },
  { method: 'GET', path: '/__mock/clock' },
  { method: 'DELETE', path: '/__mock/clock' },
  {
    method: 'POST',
    path: '/__mock/faults',
    headers: [json],
    body: JSON.stringify({ method: 'GET', path: '/api/orders/*', status: 503, count: 1 }),
  },
  { method: 'GET', path: '/api/orders/5001', headers: [auth] },
  { method: 'GET', path: '/api/orders/5001', headers: [auth] },
  { method: 'DELETE', path: '/api/session', headers: [auth] },
  { method: 'GET', path: '/api/session', headers: [auth] },
];

let servers: { url: string; close: () => Promise<void> }[] = [];
beforeAll(async () => {
  servers = [await createMockServer({ ...options(), cors: false }), await referenceServer()];
});
afterAll(async () => {
  await Promise.all(servers.map((server) => server.close()));
});

test('createMockServer puts the same bytes on the wire as the fetch-based adapter, request after request', async () => {
  const [light, reference] = servers.map((server) => new Client(server.url)) as [Client, Client];
  expect(await light.login('TOKEN', 'dispatcher@demo')).toEqual(await reference.login('TOKEN', 'dispatcher@demo'));
  expect(await light.login('STAFF', 'admin@pizza.demo')).toEqual(await reference.login('STAFF', 'admin@pizza.demo'));
  const statuses: number[] = [];
  const sizes: number[] = [];
  for (const exchange of exchanges) {
    const got = await light.run(exchange);
    expect(got, `${exchange.method} ${exchange.path}`).toEqual(await reference.run(exchange));
    statuses.push(got.status);
    sizes.push(got.body.length);
  }
  // The sequence reaches every kind of answer it is meant to. (A target that is no URL, `OPTIONS *`, left:
  // the fetch path cannot even build its Request (a 500), so createMockServer answers it alone, with a 400;
  // test/strict-input checks that answer.)
  expect(new Set(statuses)).toEqual(new Set([200, 201, 204, 400, 401, 404, 405, 409, 413, 415, 422, 503]));
  // Small answers go out as strings, large ones as buffers: both kinds were compared.
  expect(sizes.some((size) => size < 16 * 1024) && sizes.some((size) => size > 64 * 1024)).toBe(true);
});

test('the photo URLs returned over HTTP serve the uploaded bytes (a route that needs a fetch Request)', async () => {
  const client = new Client(servers[0]!.url);
  await client.login('STAFF', 'admin@pizza.demo');
  const upload = await send(client.url, {
    method: 'PUT',
    path: '/api/draft_dishes/10001/photo',
    headers: [
      ['Authorization', `Token token="${client.tokens.STAFF}"`],
      ['Content-Type', `multipart/form-data; boundary=${boundary}`],
    ],
    body: multipart,
  });
  expect(upload.status).toBe(200);
  const photo = (JSON.parse(upload.body.toString()) as { draft_dish: { photo: { original: string } } }).draft_dish.photo
    .original;
  const served = await send(client.url, { method: 'GET', path: new URL(photo).pathname });
  expect(served.status).toBe(200);
  expect(served.headers['content-type']).toBe('image/png');
  expect(served.body.equals(png)).toBe(true);
});

test('with CORS on, the CORS headers sit where setting them before the answer put them, answer after answer', async () => {
  const pair = [await createMockServer(options()), await referenceServer(true)];
  try {
    const [light, reference] = pair.map((server) => new Client(server.url)) as [Client, Client];
    expect(await light.login('TOKEN', 'dispatcher@demo')).toEqual(await reference.login('TOKEN', 'dispatcher@demo'));
    expect(await light.login('STAFF', 'admin@pizza.demo')).toEqual(await reference.login('STAFF', 'admin@pizza.demo'));
    const names = new Set<string>();
    for (const [at, exchange] of exchanges.entries()) {
      // Every other request from a page on another origin (granted headers), the rest without (Vary only).
      const sent =
        at % 2 ? { ...exchange, headers: [...(exchange.headers ?? []), ['Origin', 'http://app.example']] } : exchange;
      const got = await light.run(sent as Exchange);
      expect(got, `${exchange.method} ${exchange.path}`).toEqual(await reference.run(sent as Exchange));
      for (const line of got.headers) names.add(line.split(':')[0]!.toLowerCase());
    }
    expect(names).toContain('access-control-allow-origin');
    expect(names).toContain('vary');
  } finally {
    await Promise.all(pair.map((server) => server.close()));
  }
});
