import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** Options of {@link startBalancer}. */
export interface BalancerOptions {
  /** The replicas' base addresses, e.g. `http://127.0.0.1:4021`. */
  targets: string[];
  /** Port to listen on (0: a free one). */
  port?: number;
  host?: string;
}

/** A running balancer. */
export interface Balancer {
  /** Its address, e.g. `http://127.0.0.1:4020`. */
  url: string;
  /** Requests passed to each target so far (by target). */
  readonly forwarded: Readonly<Record<string, number>>;
  close(): Promise<void>;
}

/**
 * Starts a small round-robin HTTP balancer in front of a carrier's replicas, for demos and tests: each
 * request goes to the next replica; a replica that refuses the connection (it died) is skipped and the
 * next one gets the request. A replica that dies while answering leaves the caller a 502, so the
 * service sends the callback again.
 * @example
 * const lb = await startBalancer({ targets: ['http://127.0.0.1:4021', 'http://127.0.0.1:4022'], port: 4020 });
 */
export async function startBalancer(options: BalancerOptions): Promise<Balancer> {
  const targets = options.targets.map((target) => new URL(target));
  if (targets.length === 0) throw new TypeError('a balancer needs at least one target');
  const forwarded: Record<string, number> = Object.fromEntries(targets.map((t) => [t.origin, 0]));
  let next = 0;

  const forward = (incoming: IncomingMessage, outgoing: ServerResponse, body: Buffer, tries: number): void => {
    const target = targets[next++ % targets.length]!;
    const proxied = httpRequest(
      {
        host: target.hostname,
        port: target.port,
        method: incoming.method,
        path: incoming.url,
        headers: { ...incoming.headers, host: target.host, 'x-forwarded-for': incoming.socket.remoteAddress ?? '' },
      },
      (answer) => {
        forwarded[target.origin] = (forwarded[target.origin] ?? 0) + 1;
        outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(outgoing);
        answer.on('error', () => outgoing.destroy());
      },
    );
    proxied.on('error', (error: NodeJS.ErrnoException) => {
      // Refused: nothing reached the replica, so the next one may take the request.
      if (error.code === 'ECONNREFUSED' && tries + 1 < targets.length)
        return forward(incoming, outgoing, body, tries + 1);
      if (!outgoing.headersSent) {
        outgoing.writeHead(502, { 'Content-Type': 'text/plain' });
        outgoing.end(`no replica answered: ${error.code ?? error.message}\n`);
      } else outgoing.destroy();
    });
    proxied.end(body);
  };

  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => forward(incoming, outgoing, Buffer.concat(chunks), 0));
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve);
  });
  const { address, port } = server.address() as AddressInfo;
  return {
    url: `http://${address.includes(':') ? `[${address}]` : address}:${port}`,
    get forwarded() {
      return { ...forwarded };
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
