/**
 * A loopback HTTP proxy that only delays: each request waits `delayMs` before it is forwarded to the target, and
 * the answer is passed back unchanged. It stands for a service that is not on loopback (issue 36, "distance").
 * Like a real network, it still delivers a request whose client gave up after sending it.
 */
import { createServer, request as httpRequest, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running delaying proxy. */
export interface DelayProxy {
  /** `http://127.0.0.1:<port>`: send requests here instead of to the target. */
  url: string;
  /** Requests received so far. */
  readonly received: number;
  /** Requests forwarded so far. */
  readonly forwarded: number;
  close(): Promise<void>;
}

function readBody(message: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    message.on('data', (chunk: Buffer) => chunks.push(chunk));
    message.on('end', () => resolve(Buffer.concat(chunks)));
    message.on('error', reject);
  });
}

/** Starts a proxy on a free loopback port that forwards every request to `target` after `delayMs`. */
export async function startDelayProxy(target: string, delayMs: number): Promise<DelayProxy> {
  const upstream = new URL(target);
  let forwarded = 0;
  let received = 0;
  const server: Server = createServer((incoming, outgoing) => {
    received += 1;
    void (async () => {
      const body = await readBody(incoming);
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      forwarded += 1;
      const forward = httpRequest(
        {
          host: upstream.hostname,
          port: upstream.port,
          method: incoming.method,
          path: incoming.url,
          headers: { ...incoming.headers, host: upstream.host },
        },
        (answer) => {
          outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(outgoing);
        },
      );
      forward.on('error', (error) => {
        if (!outgoing.headersSent) outgoing.writeHead(502, { 'content-type': 'text/plain' });
        outgoing.end(`delay proxy: ${error.message}`);
      });
      forward.end(body);
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    get received() {
      return received;
    },
    get forwarded() {
      return forwarded;
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
