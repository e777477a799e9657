import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { replicaArgs } from './replica-group.js';
import { startBalancer, type Balancer } from './round-robin-balancer.js';

const servers: Server[] = [];
let balancer: Balancer | undefined;
afterEach(async () => {
  await balancer?.close();
  for (const server of servers.splice(0)) await new Promise((resolve) => server.close(resolve));
});

/** A replica that answers with its name and the request it got; `cut` drops the connection instead. */
async function replica(name: string, cut = false): Promise<string> {
  const server = createServer((req, res) => {
    if (cut) return req.socket.destroy();
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () =>
      res.writeHead(202, { 'content-type': 'text/plain' }).end(`${name} ${req.method} ${req.url} ${body}`),
    );
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function post(path: string): Promise<[number, string]> {
  const response = await fetch(`${balancer!.url}${path}`, { method: 'POST', body: 'x' });
  return [response.status, await response.text()];
}

test('the balancer passes requests to the replicas in turn, path, method and body intact', async () => {
  balancer = await startBalancer({ targets: [await replica('a'), await replica('b')] });
  expect(await post('/callbacks?type=order_created')).toEqual([202, 'a POST /callbacks?type=order_created x']);
  expect(await post('/callbacks?n=2')).toEqual([202, 'b POST /callbacks?n=2 x']);
  expect(await post('/callbacks?n=3')).toEqual([202, 'a POST /callbacks?n=3 x']);
});

test('a replica that refuses the connection (it died) is skipped; one that dies while answering gives a 502', async () => {
  const dead = await replica('dead');
  await new Promise((resolve) => servers.pop()!.close(resolve));
  balancer = await startBalancer({ targets: [dead, await replica('alive')] });
  expect(await post('/callbacks')).toEqual([202, 'alive POST /callbacks x']);
  expect(await post('/callbacks')).toEqual([202, 'alive POST /callbacks x']);
  await balancer.close();
  balancer = await startBalancer({ targets: [await replica('cut', true)] });
  const [status, text] = await post('/callbacks');
  expect([status, text]).toEqual([502, 'no replica answered: ECONNRESET\n']);
});

test('each replica gets the simulate options but its own port, host and callback URL', () => {
  expect(
    replicaArgs([
      '--base-url',
      'http://x',
      '--replicas',
      '3',
      '--port=4020',
      '--callback-url',
      'http://lb',
      '--chaos',
      '--host',
      '0.0.0.0',
    ]),
  ).toEqual(['--base-url', 'http://x', '--chaos']);
});
