/**
 * CORS of the HTTP mock, as a browser on another origin meets it: the preflight, the headers on every
 * answer, origins limited or CORS switched off. (A real browser runs against it in the SDK's runtime tests.)
 */
import { afterEach, expect, test } from 'vitest';
import { createMockServer, type MockServer, type MockServerOptions } from '@restoapi/mock-server/node';

const PAGE = 'http://localhost:5173';
let server: MockServer | undefined;

afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: MockServerOptions = {}): Promise<string> {
  server = await createMockServer({ port: 0, ...options });
  return server.url;
}

/** The preflight Chromium sends before a login with a JSON body and a token. */
function preflight(url: string, origin = PAGE): Promise<Response> {
  return fetch(`${url}/api/session`, {
    method: 'OPTIONS',
    headers: {
      Origin: origin,
      'Access-Control-Request-Method': 'POST',
      'Access-Control-Request-Headers': 'authorization,content-type',
    },
  });
}

test('a preflight is answered 204 with the methods, the requested headers and the page’s origin', async () => {
  const res = await preflight(await start());
  expect(res.status).toBe(204);
  expect(res.headers.get('access-control-allow-origin')).toBe(PAGE);
  expect(res.headers.get('access-control-allow-methods')).toBe('GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS');
  expect(res.headers.get('access-control-allow-headers')).toBe('authorization,content-type');
  expect(res.headers.get('access-control-allow-credentials')).toBe('true');
  expect(res.headers.get('access-control-max-age')).toBe('600');
  expect(res.headers.get('vary')).toBe('Origin, Access-Control-Request-Method, Access-Control-Request-Headers');
  expect(await res.text()).toBe('');
});

test('every answer names the origin and exposes X-Request-Id, Retry-After and Location', async () => {
  const url = await start();
  const login = await fetch(`${url}/api/session?login=admin@pizza.demo&password=demo`, {
    method: 'POST',
    headers: { Origin: PAGE },
  });
  expect(login.status).toBe(200);
  expect(login.headers.get('access-control-allow-origin')).toBe(PAGE);
  expect(login.headers.get('vary')).toBe('Origin');
  const exposed = login.headers.get('access-control-expose-headers')!.split(', ');
  expect(exposed).toEqual(expect.arrayContaining(['X-Request-Id', 'Retry-After', 'Location']));

  // Errors too, or the page could not read why it failed.
  const denied = await fetch(`${url}/api/orders`, { headers: { Origin: PAGE } });
  expect(denied.status).toBe(401);
  expect(denied.headers.get('access-control-allow-origin')).toBe(PAGE);
  expect(denied.headers.get('x-request-id')).toMatch(/^req_/);
});

test('a request without Origin is no CORS request: only Vary, so caches keep origins apart', async () => {
  const res = await fetch(`${await start()}/api/session`);
  expect(res.headers.get('access-control-allow-origin')).toBeNull();
  expect(res.headers.get('vary')).toBe('Origin');
});

test('Chrome’s private-network preflight is allowed', async () => {
  const res = await fetch(`${await start()}/api/orders`, {
    method: 'OPTIONS',
    headers: {
      Origin: 'https://app.example.com',
      'Access-Control-Request-Method': 'GET',
      'Access-Control-Request-Private-Network': 'true',
    },
  });
  expect(res.status).toBe(204);
  expect(res.headers.get('access-control-allow-private-network')).toBe('true');
  expect(res.headers.get('access-control-allow-headers')).toBeNull();
});

test('limited origins: a listed one is served, another one is refused with a message naming the option', async () => {
  const url = await start({ cors: { origins: ['http://LOCALHOST:5173/', 'https://admin.example.com'] } });
  expect((await preflight(url)).headers.get('access-control-allow-origin')).toBe(PAGE);

  const refused = await preflight(url, 'http://evil.test');
  expect(refused.status).toBe(403);
  expect(refused.headers.get('access-control-allow-origin')).toBeNull();
  const { errors } = (await refused.json()) as { errors: { code: string; detail: string }[] };
  expect(errors[0]!.code).toBe('cors_origin_not_allowed');
  expect(errors[0]!.detail).toContain('--cors-origin');
  expect(errors[0]!.detail).toContain('http://localhost:5173, https://admin.example.com');

  const read = await fetch(`${url}/api/session`, { headers: { Origin: 'http://evil.test' } });
  expect(read.headers.get('access-control-allow-origin')).toBeNull();
});

test('cors: false answers like a server that never heard of CORS', async () => {
  const url = await start({ cors: false });
  const res = await preflight(url);
  expect(res.status).toBe(405);
  expect(res.headers.get('access-control-allow-origin')).toBeNull();
  expect(res.headers.get('vary')).toBeNull();
});

test('a malformed origin is refused when the server starts, naming the value', async () => {
  await expect(createMockServer({ port: 0, cors: { origins: ['localhost:5173/app'] } })).rejects.toThrow(
    'CORS origin "localhost:5173/app" is not an origin',
  );
});
