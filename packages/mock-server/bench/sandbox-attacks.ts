/**
 * The attacks of issue 39 on a running `restoapi-mock`, with what each achieved and the mock's peak RSS: run it
 * against this checkout, or against another one (`--cli <path to src/cli.ts>`, e.g. an export of the commit
 * before the change) to compare. Everything listens on loopback; the "internal" server stands for a service
 * inside the network that the mock must not reach.
 *
 *   npx tsx packages/mock-server/bench/sandbox-attacks.ts [--cli path/to/cli.ts] [-- extra mock options]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const cliAt = args.indexOf('--cli');
const cli = cliAt >= 0 ? args[cliAt + 1]! : fileURLToPath(new URL('../src/cli.ts', import.meta.url));
const extra = args.includes('--') ? args.slice(args.indexOf('--') + 1) : [];
const TSX = new URL('../../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52]);

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

/** The mock's resident set now and at its peak (Linux `/proc`), in MB. */
function rss(pid: number): { now: number; peak: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (name: string) => Number(new RegExp(`${name}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
  return { now: Math.round(kb('VmRSS') / 1024), peak: Math.round(kb('VmHWM') / 1024) };
}

async function startMock(options: string[]): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(
    process.execPath,
    ['--import', TSX, cli, '--port', '0', '--no-docs', '--import-duration', '0', ...options],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let out = '';
  child.stderr!.on('data', (chunk: Buffer) => process.stderr.write(chunk));
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const found = /listening on (\S+)/.exec(out);
      if (found) resolve(found[1]!);
    });
    child.once('exit', (code) => reject(new Error(`the mock exited with ${code}`)));
  });
  return { child, url };
}

async function importMenu(url: string, photoUrls: string[]): Promise<{ status: number; ms: number; message: string }> {
  const session = (await (
    await fetch(`${url}/api/session?login=admin@pizza.demo&password=demo`, { method: 'POST' })
  ).json()) as { meta: { token: string } };
  const headers = { Authorization: `Token token="${session.meta.token}"`, 'Content-Type': 'application/json' };
  const started = performance.now();
  const res = await fetch(`${url}/api/organizations/1/import/menu`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      dishes: photoUrls.map((photo, i) => ({ name: `D${i}`, price: 1, category_name: 'C', remote_photo_url: photo })),
    }),
  });
  const ms = Math.round(performance.now() - started);
  await res.arrayBuffer();
  const job = (await (await fetch(`${url}/api/organizations/1/import/menu`, { headers })).json()) as {
    job_message: string | null;
  };
  return { status: res.status, ms, message: (job.job_message ?? '').slice(0, 400) };
}

// The internal service (a secret behind the firewall), a 400 MB photo and a slow photo server counting connections.
let secretHits = 0;
const secret = createServer((_req, res) => {
  secretHits++;
  res.writeHead(200, { 'Content-Type': 'image/png' });
  res.end(PNG);
});
let hugeBytes = 0;
const huge = createServer((_req, res) => {
  res.writeHead(200, { 'Content-Type': 'image/png' });
  const chunk = Buffer.alloc(256 * 1024);
  PNG.copy(chunk);
  let sent = 0;
  const pump = (): void => {
    while (sent < 400 * 1024 * 1024) {
      sent += chunk.length;
      hugeBytes += chunk.length;
      if (!res.write(chunk)) return void res.once('drain', pump);
    }
    res.end();
  };
  pump();
});
let open = 0;
let mostOpen = 0;
let slowRequests = 0;
const slow = createServer((_req, res) => {
  slowRequests++;
  mostOpen = Math.max(mostOpen, ++open);
  setTimeout(() => {
    open--;
    res.writeHead(200, { 'Content-Type': 'image/png' });
    res.end(PNG);
  }, 500);
});
const [secretPort, hugePort, slowPort] = [await listen(secret), await listen(huge), await listen(slow)];

const token = 'sandbox-attacks-token-0123456789';
const report: Record<string, unknown> = { cli };

// 1. SSRF through a remote photo, under the mock's defaults.
{
  const { child, url } = await startMock(extra);
  const result = await importMenu(url, [`http://127.0.0.1:${secretPort}/internal-admin/secret.png`]);
  report.ssrfPhoto = { ...result, internalServerHits: secretHits };
  // 2. A carrier whose callback_url is inside, and 3. the control API without a token.
  const carrier = await fetch(`${url}/__mock/carriers`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ callback_url: `http://127.0.0.1:${secretPort}/internal-admin/hook` }),
  });
  report.callbackInsideLoopbackMock = carrier.status;
  report.controlResetWithoutToken = (await fetch(`${url}/__mock/reset`, { method: 'POST' })).status;
  child.kill('SIGTERM');
}

// 4. The same control and callback attacks on a mock set up for a team (token, public callbacks), if it knows how.
{
  const team = await startMock(['--control-token', token, '--callbacks', 'public', ...extra]).catch(
    (error: Error) => error,
  );
  if (team instanceof Error) report.teamSetup = `not available: ${team.message}`;
  else {
    report.teamControlResetWithoutToken = (await fetch(`${team.url}/__mock/reset`, { method: 'POST' })).status;
    report.teamCallbackInside = (
      await fetch(`${team.url}/__mock/carriers`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` },
        body: JSON.stringify({ callback_url: `http://127.0.0.1:${secretPort}/internal-admin/hook` }),
      })
    ).status;
    team.child.kill('SIGTERM');
  }
}

// 5. A 400 MB photo, on a mock whose operator allows the photo host (so the download really happens).
{
  // A mock from before the change has no such option and fetched from anywhere: it starts without it.
  const { child, url } = await startMock(['--remote-photos', 'any', ...extra]).catch(() => startMock(extra));
  await new Promise((resolve) => setTimeout(resolve, 500));
  const before = rss(child.pid!);
  const result = await importMenu(url, [`http://127.0.0.1:${hugePort}/huge.png`]);
  await new Promise((resolve) => setTimeout(resolve, 200));
  report.hugePhoto = { ...result, rssBeforeMB: before.now, peakRssMB: rss(child.pid!).peak, bytesServed: hugeBytes };
  // 6. A thousand dishes, each with its own slow photo URL.
  const urls = Array.from({ length: 1000 }, (_, i) => `http://127.0.0.1:${slowPort}/p${i}.png`);
  const many = await importMenu(url, urls);
  report.thousandPhotos = {
    status: many.status,
    ms: many.ms,
    requestsMade: slowRequests,
    mostAtOnce: mostOpen,
    peakRssMB: rss(child.pid!).peak,
  };
  child.kill('SIGTERM');
}

console.log(JSON.stringify(report, null, 2));
secret.close();
huge.close();
slow.close();
huge.closeAllConnections();
slow.closeAllConnections();
