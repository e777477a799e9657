import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FetchHandler } from './callback-receiver.js';

/** Options of the node:http adapters. */
export interface NodeAdapterOptions {
  /** Largest request body read, in bytes (callbacks have none; default 64 KiB, more is 413). */
  maxBodyBytes?: number;
  /** Origin used to build the request URL when the Host header is missing (default `http://localhost`). */
  origin?: string;
}

class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
}

async function readBody(req: IncomingMessage, limit: number): Promise<Uint8Array<ArrayBuffer> | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) throw new BodyTooLargeError(`the body is larger than ${limit} bytes`);
    chunks.push(chunk);
  }
  return size === 0 ? undefined : new Uint8Array(Buffer.concat(chunks));
}

/** Builds a fetch `Request` from a node:http request, using `originalUrl` when a framework set it. */
export async function toFetchRequest(req: IncomingMessage, options: NodeAdapterOptions = {}): Promise<Request> {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) for (const v of value) headers.append(name, v);
    else if (value !== undefined) headers.set(name, value);
  }
  const host = req.headers.host;
  const origin = host ? `http://${host}` : (options.origin ?? 'http://localhost');
  // Express and Connect strip the mount path from `url` and keep the full one in `originalUrl`.
  const path = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '/';
  const method = req.method ?? 'GET';
  const body =
    method === 'GET' || method === 'HEAD' ? undefined : await readBody(req, options.maxBodyBytes ?? 64 * 1024);
  return new Request(new URL(path, origin), { method, headers, ...(body ? { body } : {}) });
}

/** Writes a fetch `Response` to a node:http response. */
export async function writeFetchResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const body = response.body ? new Uint8Array(await response.arrayBuffer()) : undefined;
  res.writeHead(response.status, headers);
  res.end(body);
}

function failure(res: ServerResponse, error: unknown): void {
  const tooLarge = error instanceof BodyTooLargeError;
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const status = tooLarge ? 413 : 500;
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(
    JSON.stringify({
      errors: [
        {
          status: String(status),
          code: tooLarge ? 'payload_too_large' : 'internal',
          title: tooLarge ? 'Payload too large' : 'Internal error',
          detail: String((error as Error)?.message ?? error),
        },
      ],
    }),
  );
}

/**
 * Adapts a fetch handler to a node:http request listener.
 * @example
 * http.createServer(toNodeListener(agent.handle)).listen(4020);
 */
export function toNodeListener(
  handler: FetchHandler,
  options: NodeAdapterOptions = {},
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    void (async () => {
      try {
        await writeFetchResponse(await handler(await toFetchRequest(req, options)), res);
      } catch (error) {
        failure(res, error);
      }
    })();
  };
}

/** The `next` of Express/Connect middleware. */
export type NextFunction = (error?: unknown) => void;

/** Options of {@link toMiddleware}. */
export interface MiddlewareOptions extends NodeAdapterOptions {
  /** Only requests to this path (without query) are handled; others go to `next()`. Default: every request. */
  path?: string;
}

/**
 * Adapts a fetch handler to Express/Connect-style middleware, typed with node:http (no express dependency).
 * @example
 * app.use(toMiddleware(agent.handle, { path: '/callbacks' }));
 */
export function toMiddleware(
  handler: FetchHandler,
  options: MiddlewareOptions = {},
): (req: IncomingMessage, res: ServerResponse, next: NextFunction) => void {
  return (req, res, next) => {
    const full = (req as IncomingMessage & { originalUrl?: string }).originalUrl ?? req.url ?? '/';
    if (options.path !== undefined && full.split('?')[0] !== options.path) {
      next();
      return;
    }
    void (async () => {
      try {
        await writeFetchResponse(await handler(await toFetchRequest(req, options)), res);
      } catch (error) {
        if (error instanceof BodyTooLargeError) failure(res, error);
        else next(error);
      }
    })();
  };
}

/** Options of {@link serve}. */
export interface ServeOptions extends NodeAdapterOptions {
  /** Port to listen on; 0 picks a free one (default 0). */
  port?: number;
  /** Interface to listen on (default `127.0.0.1`). */
  host?: string;
  /** Path of the callback URL (default `/callbacks`); other paths get 404. */
  path?: string;
}

/** A running callback server. */
export interface ServedReceiver {
  /** The callback URL to register, e.g. `http://127.0.0.1:4020/callbacks`. */
  url: string;
  port: number;
  server: Server;
  /** Stops listening and closes open connections. */
  close(): Promise<void>;
}

/**
 * Serves a fetch handler over node:http on loopback, at one path.
 * @example
 * const { url } = await serve(agent.handle, { port: 4020 });
 * console.log(`register ${url} as callback_url`);
 */
export async function serve(handler: FetchHandler, options: ServeOptions = {}): Promise<ServedReceiver> {
  const host = options.host ?? '127.0.0.1';
  const path = options.path ?? '/callbacks';
  const middleware = toMiddleware(handler, { ...options, path });
  const server = createServer((req, res) =>
    middleware(req, res, (error) => {
      if (error) {
        failure(res, error);
        return;
      }
      res.writeHead(404, { 'Content-Type': 'application/json' });
      res.end(
        JSON.stringify({
          errors: [
            { status: '404', code: 'not_found', title: 'Not found', detail: `Callbacks are received at ${path}.` },
          ],
        }),
      );
    }),
  );
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  return {
    url: `http://${hostInUrl}:${port}${path}`,
    port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
