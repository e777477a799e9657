import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One callback as the receiver got it. */
export interface ReceivedCallback {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  body: string;
  at: number;
}

/** A real HTTP callback receiver (the carrier's `callback_url`) on loopback. */
export class CallbackReceiver {
  readonly received: ReceivedCallback[] = [];
  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  /** Starts listening on a free port; every request is answered 204, or by `respond`. */
  static async start(
    host = '127.0.0.1',
    respond?: (path: string) => { status: number; type: string; body: Uint8Array },
  ): Promise<CallbackReceiver> {
    const holder: { receiver?: CallbackReceiver } = {};
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const url = new URL(req.url ?? '/', 'http://receiver.local');
        holder.receiver?.received.push({
          method: req.method ?? 'GET',
          path: url.pathname,
          query: Object.fromEntries(url.searchParams),
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        });
        const answer = respond?.(url.pathname);
        if (answer) {
          res.writeHead(answer.status, {
            'Content-Type': answer.type,
            'Content-Length': String(answer.body.byteLength),
          });
          res.end(answer.body);
        } else {
          res.writeHead(204);
          res.end();
        }
      });
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, host, () => resolve());
    });
    const { port } = server.address() as AddressInfo;
    holder.receiver = new CallbackReceiver(
      server,
      `http://${host.includes(':') ? `[${host}]` : host}:${port}/callbacks`,
    );
    return holder.receiver;
  }

  /**
   * Waits until a callback matches; `tick` runs between polls (for example
   * moving a mock's virtual clock so due deliveries happen).
   */
  async waitFor(
    predicate: (callback: ReceivedCallback) => boolean,
    timeoutMs: number,
    tick?: () => Promise<void>,
  ): Promise<ReceivedCallback | undefined> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.received.find(predicate);
      if (found) return found;
      if (Date.now() > deadline) return undefined;
      if (tick) await tick();
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
