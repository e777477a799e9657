import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { serve, toMiddleware, toNodeListener, type NextFunction } from './node-adapter.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const close of closers.splice(0)) await close();
});

async function listen(listener: (req: IncomingMessage, res: ServerResponse) => void): Promise<string> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const echo = async (request: Request): Promise<Response> =>
  Response.json(
    { method: request.method, url: request.url, body: await request.text() },
    { status: 202, headers: { 'x-seen': 'yes' } },
  );

test('the node:http listener passes method, URL, headers and body, and writes the answer back', async () => {
  const url = await listen(toNodeListener(echo));
  const response = await fetch(`${url}/callbacks?type=order_created`, { method: 'POST', body: 'x' });
  expect(response.status).toBe(202);
  expect(response.headers.get('x-seen')).toBe('yes');
  expect(await response.json()).toEqual({ method: 'POST', url: `${url}/callbacks?type=order_created`, body: 'x' });
});

test('the listener refuses bodies over the limit with 413', async () => {
  const url = await listen(toNodeListener(echo, { maxBodyBytes: 10 }));
  const response = await fetch(`${url}/callbacks`, { method: 'POST', body: 'x'.repeat(100) });
  expect(response.status).toBe(413);
});

test('the Express/Connect middleware handles its path, passes other paths to next, and uses originalUrl', async () => {
  const middleware = toMiddleware(echo, { path: '/hooks/callbacks' });
  // A tiny Connect-like app mounted at /hooks: it strips the mount path from url and keeps originalUrl.
  const url = await listen((req, res) => {
    const next: NextFunction = (error) => {
      res.writeHead(error ? 500 : 404);
      res.end('next');
    };
    const full = req.url ?? '/';
    if (full.startsWith('/hooks/')) {
      Object.assign(req, { originalUrl: full, url: full.slice('/hooks'.length) });
    }
    middleware(req, res, next);
  });
  const handled = await fetch(`${url}/hooks/callbacks?type=order_created`, { method: 'POST' });
  expect(handled.status).toBe(202);
  expect(((await handled.json()) as { url: string }).url).toBe(`${url}/hooks/callbacks?type=order_created`);
  const passed = await fetch(`${url}/hooks/other`, { method: 'POST' });
  expect(passed.status).toBe(404);
  expect(await passed.text()).toBe('next');
});

test('serve listens on loopback at /callbacks and answers 404 elsewhere', async () => {
  const served = await serve(echo, { port: 0 });
  closers.push(served.close);
  expect(served.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callbacks$/);
  expect((await fetch(served.url, { method: 'POST' })).status).toBe(202);
  expect((await fetch(served.url.replace('/callbacks', '/'), { method: 'POST' })).status).toBe(404);
});
