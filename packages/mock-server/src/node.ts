/**
 * @restoapi/mock-server/node: serves a mock instance over node:http.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { createMock, type MockOptions, type RestoMock } from './index.js';

/** Options of {@link createMockServer}. */
export interface MockServerOptions extends MockOptions {
  /** Port to listen on; 0 picks a free one (default). */
  port?: number;
  /** Interface to listen on (default `127.0.0.1`). */
  host?: string;
}

/** A running mock server. */
export interface MockServer {
  /** Base URL of the main API, e.g. `http://127.0.0.1:4010`. */
  url: string;
  /** The mock instance behind the server. */
  mock: RestoMock;
  server: Server;
  /** Stops listening and stops the instance's timers. */
  close(): Promise<void>;
}

/** Converts a node:http request into a fetch `Request`. */
export function toFetchRequest(req: IncomingMessage, origin: string): Request {
  // rawHeaders keeps repeated headers as separate pairs, which Headers accepts as tuples.
  const raw = req.rawHeaders;
  const headers: [string, string][] = [];
  for (let i = 0; i < raw.length; i += 2) headers.push([raw[i]!, raw[i + 1]!]);
  const method = req.method ?? 'GET';
  const hasBody = method !== 'GET' && method !== 'HEAD';
  return new Request(origin + (req.url ?? '/'), {
    method,
    headers,
    ...(hasBody ? { body: Readable.toWeb(req) as ReadableStream, duplex: 'half' } : {}),
  } as RequestInit);
}

/** Writes a fetch `Response` to a node:http response. */
export async function writeFetchResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  // The engine's answers are complete in memory; one buffer and one write beat streaming chunks.
  const body = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
  if (body) headers['content-length'] = String(body.byteLength);
  res.writeHead(response.status, headers);
  res.end(body);
}

/**
 * Starts a mock server on loopback.
 * @example
 * const { url, close } = await createMockServer({ port: 0 });
 * const res = await fetch(`${url}/api/session?login=admin@pizza.demo&password=demo`, { method: 'POST' });
 * await close();
 */
export async function createMockServer(options: MockServerOptions = {}): Promise<MockServer> {
  const host = options.host ?? '127.0.0.1';
  let origin = `http://${host}`;
  const mock = createMock(options);
  const server = createServer((req, res) => {
    void (async () => {
      try {
        const response = await mock.handle(toFetchRequest(req, origin));
        await writeFetchResponse(response, res);
      } catch (error) {
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ errors: [{ status: '500', code: 'internal', title: 'Internal error', detail: String(error) }] }));
      }
    })();
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const hostInUrl = host.includes(':') ? `[${host}]` : host;
  origin = `http://${hostInUrl}:${port}`;
  // Absolute links (photo URLs) need the port, known only now.
  mock.runtime.baseUrl = origin;
  return {
    url: origin,
    mock,
    server,
    async close() {
      mock.close();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
