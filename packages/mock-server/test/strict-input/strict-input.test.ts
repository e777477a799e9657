import { request } from 'node:http';
import { connect } from 'node:net';
import { expect, test } from 'vitest';
import { createMockServer } from '../../src/node.js';
import { changedParts, freezeClock, stateOf } from '../support/frozen-state.js';

/** One raw request over HTTP: the path is sent exactly as written (no URL parser tidies it first). */
function send(
  url: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: { errors?: { code: string; source?: { parameter?: string } }[] } }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {} });
      });
    });
    req.on('error', reject);
    req.end();
  });
}

async function signIn(url: string, login: string): Promise<Record<string, string>> {
  const res = await fetch(`${url}/api/session?login=${encodeURIComponent(login)}&password=demo`, { method: 'POST' });
  const { meta } = (await res.json()) as { meta: { token: string } };
  return { Authorization: `Token token="${meta.token}"` };
}

test('a malformed percent-encoding in a path is 400 naming the parameter, on the main, carrier and control API', async () => {
  const server = await createMockServer({ port: 0 });
  try {
    const anna = await signIn(server.url, 'admin@pizza.demo');
    for (const [path, parameter] of [
      ['/api/orders/%E0', 'id'],
      ['/api/draft_categories/%', 'id'],
      ['/orders/%C3%28', 'id'],
      ['/api-delivery/orders/%E0', 'secure_id'],
      ['/__mock/organizations/%E0/menu', 'id'],
    ] as const) {
      const res = await send(server.url, 'GET', path, anna);
      expect(res.status, path).toBe(400);
      expect(res.body.errors?.[0], path).toMatchObject({ code: 'invalid_parameter', source: { parameter } });
    }
    const query = await send(server.url, 'GET', '/api/orders?per_page=5&page=%E0', anna);
    expect(query.body.errors).toEqual([expect.objectContaining({ source: { parameter: 'page' } })]);
  } finally {
    await server.close();
  }
});

test('a non-canonical id publishes nothing: 400 naming the parameter, and the menu stays unpublished', async () => {
  const server = await createMockServer({ port: 0 });
  try {
    await freezeClock(server.url);
    const anna = await signIn(server.url, 'admin@pizza.demo');
    const before = await stateOf(server.url);
    for (const id of ['0x1', '+1', '01', '%201', '1%20', '1e0', '1.0', '-0', '99999999999999999999']) {
      const res = await send(server.url, 'POST', `/api/organizations/${id}/publish`, anna);
      expect(res.status, id).toBe(400);
      expect(res.body.errors?.[0], id).toMatchObject({ code: 'invalid_parameter', source: { parameter: 'id' } });
    }
    expect(changedParts(before, await stateOf(server.url))).toEqual([]);
    expect((await send(server.url, 'POST', '/api/organizations/1/publish', anna)).status).toBe(200);
  } finally {
    await server.close();
  }
});

test('query integers are canonical too, array filters item by item', async () => {
  const server = await createMockServer({ port: 0 });
  try {
    const dora = await signIn(server.url, 'dispatcher@demo');
    for (const query of ['per_page=1e1', 'page=%2B2', 'restaurant_id=11&restaurant_id=0x0B', 'courier_id=501,0501']) {
      const res = await send(server.url, 'GET', `/api/orders?${query}`, dora);
      expect(res.status, query).toBe(400);
      expect(res.body.errors?.[0]?.code, query).toBe('invalid_parameter');
    }
    expect((await send(server.url, 'GET', '/api/orders?per_page=10&restaurant_id=11', dora)).status).toBe(200);
  } finally {
    await server.close();
  }
});

test('a form body that is not UTF-8, or holds a malformed escape, is 400 and signs nobody in', async () => {
  const server = await createMockServer({ port: 0 });
  try {
    await freezeClock(server.url);
    const before = await stateOf(server.url);
    for (const body of [
      Buffer.concat([Buffer.from('login=admin@pizza.demo&password=demo&x='), Buffer.from([0xff])]),
      Buffer.from('login=admin@pizza.demo&password=demo&note=%E0'),
    ]) {
      const res = await fetch(`${server.url}/api/session`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body,
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { errors: { code: string }[] }).errors[0]?.code).toBe('invalid_body');
    }
    expect(changedParts(before, await stateOf(server.url))).toEqual([]);
  } finally {
    await server.close();
  }
});

test('a request target that is no URL at all (`*`, a broken absolute form) is 400 invalid_url, not a 500', async () => {
  const server = await createMockServer({ port: 0 });
  try {
    const { port } = new URL(server.url);
    for (const target of ['*', 'http://[::1/api/orders']) {
      const head = await new Promise<string>((resolve, reject) => {
        const socket = connect(Number(port), '127.0.0.1', () =>
          socket.write(`GET ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
        );
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });
      expect(head, target).toMatch(/^HTTP\/1\.1 400 /);
      expect(head, target).toContain('"code":"invalid_url"');
    }
    expect((await fetch(`${server.url}/api/session`)).status).toBe(401);
  } finally {
    await server.close();
  }
});
