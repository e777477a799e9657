/**
 * The mock on a shared box, attacked through what makes it send requests of its own: menu imports whose
 * `remote_photo_url`s point inside the network (literal, named, mapped, redirected and rebinding addresses),
 * huge and slow photos, and carrier callbacks. Canary servers on loopback count every connection the mock makes
 * to them: under the default rule there must be none, and the mock must never answer 5xx or pass its limits.
 */
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { sampledRuns } from '../../../../scripts/testing/test-mode.js';
import { OpenControlError, createMockServer, type MockServer } from '../../src/node.js';
import { seededRandom } from './hostile-requests.js';

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);
const MAX_PHOTO = 64 * 1024;

/** A loopback server that counts the connections made to it: a target the mock must never reach. */
interface Canary {
  server: Server;
  port: number;
  connections: number;
  /** Bytes of photo body written per path, for the size checks. */
  written: Map<string, number>;
}

async function listen(handler: (path: string, res: ServerResponse, canary: Canary) => void): Promise<Canary> {
  const canary = { connections: 0, written: new Map<string, number>() } as Canary;
  canary.server = createServer((req, res) => handler(req.url ?? '/', res, canary));
  canary.server.on('connection', () => canary.connections++);
  await new Promise<void>((resolve) => canary.server.listen(0, '127.0.0.1', resolve));
  canary.port = (canary.server.address() as AddressInfo).port;
  return canary;
}

/** The internal service an attacker wants the mock to request (its "secret.png" is a real PNG). */
let secret: Canary;
/** The photo host the operator allows (`--allow-host photos.test`): photos, redirects, huge and slow answers. */
let photos: Canary;
let server: MockServer;
/** Every name the mock's connections looked up, in order. */
const lookups: string[] = [];

/**
 * The resolver of the mock's outbound connections: `photos.test` is the allowed photo host; `internal.test`
 * resolves to loopback; `rebind.test` is an attacker's name whose DNS answered a public address to whoever checked
 * it before and answers loopback now, at connect time, which is the answer a rebinding attack counts on.
 */
const lookup: LookupFunction = (hostname, options, callback) => {
  lookups.push(hostname);
  const known: Record<string, string> = {
    'photos.test': '127.0.0.1',
    'internal.test': '127.0.0.1',
    'rebind.test': '127.0.0.1',
    'mapped.test': '::ffff:127.0.0.1',
    'metadata.test': '169.254.169.254',
  };
  const address = known[hostname];
  const cb = callback as (...args: unknown[]) => void;
  if (!address) return cb(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }));
  const family = address.includes(':') ? 6 : 4;
  if ((options as { all?: boolean }).all) cb(null, [{ address, family }]);
  else cb(null, address, family);
};

beforeAll(async () => {
  secret = await listen((_path, res) => {
    res.writeHead(200, { 'Content-Type': 'image/png' });
    res.end(PNG);
  });
  const to = (where: string) => where.replace('SECRET', String(secret.port));
  photos = await listen((path, res, canary) => {
    const redirect = /^\/redirect\/(.+)$/.exec(path);
    if (redirect) {
      res.writeHead(302, { Location: to(decodeURIComponent(redirect[1]!)) });
      res.end();
    } else if (path.startsWith('/huge')) {
      // 400 MB, streamed as fast as the mock reads it, without a declared length.
      res.writeHead(200, { 'Content-Type': 'image/png' });
      const chunk = Buffer.alloc(64 * 1024);
      Buffer.from(PNG).copy(chunk);
      let sent = 0;
      const pump = (): void => {
        while (sent < 400 * 1024 * 1024) {
          sent += chunk.length;
          canary.written.set(path, sent);
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end();
      };
      res.on('close', () => canary.written.set(path, sent));
      pump();
    } else if (path.startsWith('/declared-huge')) {
      res.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': String(400 * 1024 * 1024) });
      res.write(PNG);
    } else if (path.startsWith('/slow')) {
      // A byte every 200 ms: it never finishes within the photo's time limit.
      res.writeHead(200, { 'Content-Type': 'image/png' });
      const timer = setInterval(() => res.write(Buffer.from([0])), 200);
      res.on('close', () => clearInterval(timer));
    } else {
      res.writeHead(200, { 'Content-Type': 'image/png' });
      res.end(PNG);
    }
  });
  server = await createMockServer({
    port: 0,
    config: { importDurationMs: 0, maxPhotoBytes: MAX_PHOTO },
    outboundPolicy: { photos: { mode: 'public', allowHosts: ['photos.test'] } },
    outboundLookup: lookup,
  });
});

afterAll(async () => {
  await server?.close();
  secret?.server.close();
  photos?.server.close();
});

async function signIn(url: string): Promise<string> {
  const res = await fetch(`${url}/api/session?login=admin@pizza.demo&password=demo`, { method: 'POST' });
  return ((await res.json()) as { meta: { token: string } }).meta.token;
}

/** Imports one dish per URL into organization 1 and returns the answer's status and the job's message. */
async function importPhotos(urls: string[]): Promise<{ status: number; message: string; ms: number }> {
  const token = await signIn(server.url);
  const headers = { Authorization: `Token token="${token}"`, 'Content-Type': 'application/json' };
  const started = performance.now();
  const res = await fetch(`${server.url}/api/organizations/1/import/menu`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      dishes: urls.map((url, i) => ({ name: `Dish ${i}`, price: 1, category_name: 'Fuzz', remote_photo_url: url })),
    }),
  });
  const ms = performance.now() - started;
  await res.arrayBuffer();
  const job = (await (await fetch(`${server.url}/api/organizations/1/import/menu`, { headers })).json()) as {
    job_message: string;
  };
  return { status: res.status, message: job.job_message, ms };
}

/** The addresses an attacker tries, each a way to name this machine or its private network. */
function internalUrls(): string[] {
  const p = () => secret.port;
  return [
    `http://127.0.0.1:${p()}/secret.png`,
    `http://localhost:${p()}/secret.png`,
    `http://127.1:${p()}/secret.png`,
    `http://2130706433:${p()}/secret.png`,
    `http://0x7f000001:${p()}/secret.png`,
    `http://0.0.0.0:${p()}/secret.png`,
    `http://[::1]:${p()}/secret.png`,
    `http://[::ffff:127.0.0.1]:${p()}/secret.png`,
    `http://[::ffff:7f00:1]:${p()}/secret.png`,
    `http://[fc00::1]:${p()}/secret.png`,
    `http://[fd00:ec2::254]/latest/meta-data/`,
    `http://[fe80::1]:${p()}/secret.png`,
    `http://10.0.0.1:${p()}/secret.png`,
    `http://172.16.0.1/secret.png`,
    `http://192.168.1.1/secret.png`,
    `http://100.100.100.200/latest/meta-data/`,
    `http://169.254.169.254/latest/meta-data/`,
    `http://internal.test:${p()}/secret.png`,
    `http://rebind.test:${p()}/secret.png`,
    `http://mapped.test:${p()}/secret.png`,
    `http://metadata.test/latest/meta-data/`,
    `http://sub.localhost:${p()}/secret.png`,
    `file:///etc/passwd`,
    `gopher://127.0.0.1:${p()}/_secret`,
    // Allowed first hop, then a redirect inside: each hop is checked again.
    `http://photos.test:${photos.port}/redirect/${encodeURIComponent(`http://127.0.0.1:SECRET/secret.png`)}`,
    `http://photos.test:${photos.port}/redirect/${encodeURIComponent(`http://[::1]:SECRET/secret.png`)}`,
    `http://photos.test:${photos.port}/redirect/${encodeURIComponent(`http://rebind.test:SECRET/secret.png`)}`,
    `http://photos.test:${photos.port}/redirect/${encodeURIComponent(`http://169.254.169.254/latest/meta-data/`)}`,
  ];
}

test('remote photos: no address inside the network is ever connected to, whatever form it takes (sampled fuzz)', async () => {
  const urls = internalUrls();
  const rng = seededRandom(Number(process.env.FUZZ_SEED ?? 39));
  // Each case an import of a few URLs drawn from the list (with a query so each is a distinct URL).
  const cases = sampledRuns(8, 60);
  const statuses: Record<string, number> = {};
  let refused = 0;
  for (let n = 0; n < cases; n++) {
    const drawn = Array.from({ length: 1 + Math.floor(rng() * 6) }, (_, i) => {
      const url = urls[Math.floor(rng() * urls.length)]!;
      return url.startsWith('http') ? `${url}${url.includes('?') ? '&' : '?'}case=${n}-${i}` : url;
    });
    const { status, message } = await importPhotos(drawn);
    statuses[status] = (statuses[status] ?? 0) + 1;
    // file: and gopher: URLs are refused by the import body's own rules (422); the rest queue and record reasons.
    if (status === 202) {
      expect(message).toMatch(/0 of \d+ remote photo\(s\) fetched/);
      refused += (message.match(/is not public|is this machine|is not http or https/g) ?? []).length;
    } else expect(status).toBe(422);
  }
  // Every URL once more, in one import, so every form is tried whatever the sample drew.
  const all = await importPhotos(urls.filter((url) => url.startsWith('http')));
  expect(all.status).toBe(202);
  expect(all.message).toContain(`0 of ${urls.filter((url) => url.startsWith('http')).length} remote photo(s) fetched`);
  console.log(
    `network fuzz: ${cases} imports + 1 of all ${urls.length} forms; statuses ${JSON.stringify(statuses)}; ` +
      `${refused} refusals named; canary connections ${secret.connections}; names looked up ${lookups.length}`,
  );
  expect(secret.connections).toBe(0);
  // The rebinding name is resolved only by the connection itself, once per attempt: no check-then-connect gap.
  expect(lookups.filter((name) => name === 'rebind.test').length).toBeGreaterThan(0);
});

test('remote photos: a 400 MB answer stops at maxPhotoBytes, a declared one is not read, a slow one times out', async () => {
  const before = photos.written.get('/huge.png') ?? 0;
  const { status, message, ms } = await importPhotos([
    `http://photos.test:${photos.port}/huge.png`,
    `http://photos.test:${photos.port}/declared-huge.png`,
    `http://photos.test:${photos.port}/slow.png`,
    `http://photos.test:${photos.port}/fine.png`,
  ]);
  expect(status).toBe(202);
  expect(message).toContain('1 of 4 remote photo(s) fetched');
  expect(message).toContain(`huge.png: larger than maxPhotoBytes (${MAX_PHOTO} bytes); the download was stopped`);
  expect(message).toContain(
    `declared-huge.png: larger than maxPhotoBytes (${MAX_PHOTO} bytes): 419430400 bytes declared`,
  );
  expect(message).toContain('slow.png: no complete answer within 3000 ms');
  // The server could write no more than the limit plus what the sockets buffer before the mock hung up.
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect((photos.written.get('/huge.png') ?? 0) - before).toBeLessThan(32 * 1024 * 1024);
  expect(ms).toBeLessThan(10_000);
});

test('remote photos: at most remotePhotoConcurrency at a time and maxRemotePhotos in all', async () => {
  let inFlight = 0;
  let most = 0;
  let requests = 0;
  const counted = await listen((_path, res) => {
    requests++;
    most = Math.max(most, ++inFlight);
    setTimeout(() => {
      inFlight--;
      res.writeHead(200, { 'Content-Type': 'image/png' });
      res.end(PNG);
    }, 30);
  });
  const limited = await createMockServer({
    port: 0,
    config: { importDurationMs: 0, maxRemotePhotos: 10, remotePhotoConcurrency: 3 },
    outboundPolicy: { photos: { mode: 'public', allowHosts: ['127.0.0.1'] } },
  });
  try {
    const token = await signIn(limited.url);
    const headers = { Authorization: `Token token="${token}"`, 'Content-Type': 'application/json' };
    const dishes = Array.from({ length: 25 }, (_, i) => ({
      name: `D${i}`,
      price: 1,
      category_name: 'C',
      remote_photo_url: `http://127.0.0.1:${counted.port}/p${i}.png`,
    }));
    const res = await fetch(`${limited.url}/api/organizations/1/import/menu`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ dishes }),
    });
    expect(res.status).toBe(202);
    const job = (await (await fetch(`${limited.url}/api/organizations/1/import/menu`, { headers })).json()) as {
      job_message: string;
    };
    expect(job.job_message).toContain('10 of 25 remote photo(s) fetched');
    expect(job.job_message).toContain('an import fetches at most maxRemotePhotos (10) photos');
    expect(requests).toBe(10);
    expect(most).toBeLessThanOrEqual(3);
  } finally {
    await limited.close();
    counted.server.close();
  }
});

test('callbacks: under the public rule a callback_url inside the network is refused at registration and never called', async () => {
  const strict = await createMockServer({
    port: 0,
    outboundPolicy: { callbacks: { mode: 'public', allowHosts: [] } },
    outboundLookup: lookup,
  });
  try {
    for (const url of [
      `http://127.0.0.1:${secret.port}/cb`,
      `http://[::1]:${secret.port}/cb`,
      `http://localhost:${secret.port}/cb`,
      'http://169.254.169.254/cb',
    ]) {
      const res = await fetch(`${strict.url}/__mock/carriers`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ callback_url: url }),
      });
      const body = (await res.json()) as { errors: { source: { pointer: string }; detail: string }[] };
      expect(res.status, url).toBe(422);
      expect(body.errors[0]!.source.pointer).toBe('/callback_url');
    }
    // A name that resolves inside only at connect time is registered, and its callbacks fail without connecting.
    const before = secret.connections;
    const registered = await fetch(`${strict.url}/__mock/carriers`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ callback_url: `http://rebind.test:${secret.port}/cb` }),
    });
    expect(registered.status).toBe(201);
    const send = strict.mock.runtime.outbound.callbacks.fetch;
    await expect(send(`http://rebind.test:${secret.port}/cb`, { method: 'POST' })).rejects.toThrow(/is not public/);
    expect(secret.connections).toBe(before);
  } finally {
    await strict.close();
  }
});

test('a server on a non-loopback interface without a control token refuses to start', async () => {
  await expect(createMockServer({ port: 0, host: '0.0.0.0' })).rejects.toBeInstanceOf(OpenControlError);
});
