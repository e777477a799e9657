/**
 * The carrier service of the outbox-vs-graphile bench, in a process of its own (as the real service is):
 * answers every PUT after SERVICE_MS over keep-alive HTTP, counts the updates and those that came out of
 * each order's sequence. The parent asks it, over IPC, to `reset` for a case and to `wait` for the updates.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { serve } from './common.js';

const SERVICE_MS = Number(process.env.BENCH_SERVICE_MS ?? 2);
const last = new Map<string, number>();
let received = 0;
let outOfOrder = 0;
let expected = Infinity;
let waiting: (() => void) | undefined;

const server = createServer((req, res) => {
  let body = '';
  req.on('data', (chunk: Buffer) => (body += chunk.toString()));
  req.on('end', () => {
    setTimeout(() => {
      const order = req.url!.split('/')[2]!;
      const step = Number((JSON.parse(body) as { courier_name: string }).courier_name.split(' ')[1]);
      if (step !== (last.get(order) ?? 0) + 1) outOfOrder += 1;
      last.set(order, Math.max(step, last.get(order) ?? 0));
      received += 1;
      res.writeHead(204).end();
      if (received >= expected) waiting?.();
    }, SERVICE_MS);
  });
});
server.keepAliveTimeout = 60_000;
await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));

serve({
  url: () => `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
  /** Forgets the last case; the next `wait` resolves once `expect` updates came. */
  reset: (expect: number) => {
    last.clear();
    received = 0;
    outOfOrder = 0;
    expected = expect;
  },
  wait: () =>
    new Promise<{ received: number; outOfOrder: number }>((resolve) => {
      waiting = () => {
        waiting = undefined;
        resolve({ received, outOfOrder });
      };
      if (received >= expected) waiting();
    }),
});
process.on('disconnect', () => server.close(() => process.exit(0)));
