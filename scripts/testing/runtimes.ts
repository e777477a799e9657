/**
 * Runs one script in the JavaScript runtimes users run: Node (a fresh process), Bun and workerd (the
 * Workers runtime), each from the npm package of its binary. Scripts are bundled with esbuild from the
 * workspace sources (scripts/bundling.ts), so no build is needed first. Shared by the SDK's and the carrier kit's runtime tests.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from './start-prism.js';

const require = createRequire(import.meta.url);

/** A temporary folder, removed by `remove()`. */
export async function scratchDir(prefix: string): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), `restoapi-${prefix}-`));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

/** Runs `node file args…` (or `bun`) to completion and returns its standard output; rejects with its output on failure. */
export function runToEnd(command: string, args: string[], timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${path.basename(command)} timed out after ${timeoutMs} ms:\n${stdout}${stderr}`));
    }, timeoutMs);
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Error(`${path.basename(command)} exited with ${code}:\n${stdout}${stderr}`));
    });
  });
}

/** The binary of an npm package, when it is there and real (not an installer's placeholder). */
function realBinary(file: string): string | undefined {
  return existsSync(file) && statSync(file).size > 1_000_000 ? file : undefined;
}

/** Where a runtime's binary was found, or why it was not. */
export type Found = { path: string } | { missing: string };

/** The first real binary among `package/relative` candidates (packages that are not installed are skipped). */
function binaryIn(candidates: [pkg: string, file: string][], missing: string): Found {
  for (const [pkg, file] of candidates) {
    let dir: string;
    try {
      dir = path.dirname(require.resolve(`${pkg}/package.json`));
    } catch {
      continue;
    }
    const found = realBinary(path.join(dir, file));
    if (found) return { path: found };
  }
  return { missing };
}

const arch = process.arch === 'arm64' ? 'aarch64' : process.arch;

/**
 * Bun's binary: `bun`'s postinstall moves it into `bun/bin/bun.exe`; an install that ran no scripts
 * leaves it in the platform package (`@oven/bun-linux-x64/bin/bun`).
 */
export function bunBinary(): Found {
  const platform = `@oven/bun-${process.platform}-${arch}`;
  return binaryIn(
    [
      ['bun', 'bin/bun.exe'],
      [platform, 'bin/bun'],
    ],
    `no Bun binary in node_modules (neither bun/bin/bun.exe nor ${platform}/bin/bun): npm install`,
  );
}

/** Deno's binary: `deno`'s postinstall links it as `deno/deno`; without it, the platform package holds it. */
export function denoBinary(): Found {
  const platform = `@deno/${process.platform}-${process.arch === 'x64' ? 'x64' : 'arm64'}-glibc`;
  return binaryIn(
    [
      ['deno', 'deno'],
      [platform, 'deno'],
    ],
    `no Deno binary in node_modules (neither deno/deno nor ${platform}/deno): npm install`,
  );
}

/** The workerd binary: the `workerd` package's own bin (its postinstall puts it there), else the platform package's. */
export function workerdBinary(): Found {
  const platform = `@cloudflare/workerd-${process.platform}-${process.arch === 'x64' ? '64' : process.arch}`;
  return binaryIn(
    [
      ['workerd', 'bin/workerd'],
      [platform, 'bin/workerd'],
    ],
    `no workerd binary for ${process.platform}-${process.arch}: npm install`,
  );
}

/**
 * Whether a runtime's tests run: when its binary is missing they skip with the reason, except under CI,
 * where they run and fail (the lockfile installs both, so missing means broken).
 */
export function runtimeTestsRun(name: string, found: Found): boolean {
  if ('path' in found || process.env.CI === 'true') return true;
  console.warn(`[${name} runtime tests] SKIPPED: ${found.missing}`);
  return false;
}

/** A worker served by workerd on loopback. */
export interface RunningWorker {
  url: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

/**
 * Serves one ES-module worker with workerd on a free loopback port. Its `fetch` may reach loopback
 * (the default outbound network of workerd allows public addresses only); `compatibilityDate` is the
 * binary's own date, the newest it supports.
 */
export async function startWorkerd(script: string, timeoutMs = 30_000): Promise<RunningWorker> {
  const binary = workerdBinary();
  if ('missing' in binary) throw new Error(binary.missing);
  const scratch = await scratchDir('workerd');
  const port = await freePort();
  const version = await runToEnd(binary.path, ['--version']);
  const date = /\d{4}-\d{2}-\d{2}/.exec(version)?.[0] ?? '2025-01-01';
  await writeFile(path.join(scratch.dir, 'worker.js'), script);
  await writeFile(
    path.join(scratch.dir, 'config.capnp'),
    `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [
    (name = "main", worker = .worker),
    (name = "loopback", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [(name = "worker.js", esModule = embed "worker.js")],
  compatibilityDate = "${date}",
  globalOutbound = "loopback",
);
`,
  );
  const child = spawn(binary.path, ['serve', path.join(scratch.dir, 'config.capnp')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const url = `http://127.0.0.1:${port}`;
  const stop = async (): Promise<void> => {
    if (child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await scratch.remove();
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) {
      await stop();
      throw new Error(`workerd exited with ${child.exitCode}:\n${output}`);
    }
    const up = await fetch(`${url}/__ready`).then(
      () => true,
      () => false,
    );
    if (up) return { url, process: child, stop };
    if (Date.now() > deadline) {
      await stop();
      throw new Error(`workerd did not listen within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** A long-running script (a server) in a child process, with what it printed so far. */
export interface RunningScript {
  process: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** Starts `command file`, resolving once its output matches `ready` (and rejecting when it exits first). */
export function startScript(
  command: string,
  args: string[],
  ready: RegExp,
  timeoutMs = 30_000,
): Promise<RunningScript> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const running: RunningScript = {
      process: child,
      output: () => output,
      stop: async () => {
        if (child.exitCode !== null || child.signalCode !== null) return;
        const exited = new Promise((done) => child.once('exit', done));
        child.kill('SIGTERM');
        await exited;
      },
    };
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${path.basename(command)} printed nothing matching ${ready} in ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
      if (ready.test(output)) {
        clearTimeout(timer);
        resolve(running);
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      if (!ready.test(output)) reject(new Error(`${path.basename(command)} exited with ${code}:\n${output}`));
    });
  });
}
