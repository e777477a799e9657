import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One callback as the carrier's server saw it. */
export interface ReceivedCallback {
  method: string;
  path: string;
  /** The raw query string, without `?`. */
  search: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  body: string;
}

/** How the receiver answers one callback: a status and body, or `hang` to never answer. */
export type ReceiverAnswer = { status: number; body?: string } | 'hang';

/** A carrier's callback endpoint on 127.0.0.1 for tests. */
export interface CallbackReceiver {
  /** The URL to register as `callback_url`. */
  url: string;
  received: ReceivedCallback[];
  /** Resolves with the `n`-th callback (1-based) once it has arrived. */
  nth(n: number, timeoutMs?: number): Promise<ReceivedCallback>;
  close(): Promise<void>;
}

/**
 * Starts a real HTTP server on a free loopback port that records every request. Answers come from
 * `answers` in turn; once they run out every call gets 200.
 */
export async function startCallbackReceiver(answers: ReceiverAnswer[] = []): Promise<CallbackReceiver> {
  const received: ReceivedCallback[] = [];
  const waiters: (() => void)[] = [];
  const queue = [...answers];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://receiver.local');
      received.push({
        method: req.method ?? '',
        path: url.pathname,
        search: url.search.slice(1),
        query: Object.fromEntries(url.searchParams),
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      });
      for (const wake of waiters.splice(0)) wake();
      const answer = queue.shift() ?? { status: 200 };
      if (answer === 'hang') return;
      res.writeHead(answer.status, { 'Content-Type': 'text/plain' });
      res.end(answer.body ?? '');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/callbacks`,
    received,
    async nth(n, timeoutMs = 5_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < n) {
        if (Date.now() > deadline) throw new Error(`only ${received.length} callback(s) arrived, expected ${n}`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 50);
        });
      }
      return received[n - 1]!;
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** A loopback URL nothing listens on (a port just released), for callbacks that must fail to connect. */
export async function deadCallbackUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return `http://127.0.0.1:${port}/callbacks`;
}
