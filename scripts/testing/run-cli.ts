/**
 * Runs the repository's command-line programs the way a user does, for the tests of their messages,
 * exit codes and the flows the READMEs show. The bins run from their TypeScript sources through tsx,
 * so no build is needed; `npm start` runs its script.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The repository root. */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TSX = pathToFileURL(fileURLToPath(new URL('../../node_modules/tsx/dist/loader.mjs', import.meta.url))).href;

/** Each bin of the repository and the source file it runs (its package.json `bin` is built from it). */
export const BIN_SOURCES: Record<string, string> = {
  'restoapi-mock': 'packages/mock-server/src/cli.ts',
  'restoapi-carrier': 'packages/carrier-kit/src/cli.ts',
  'restoapi-contract': 'contract-tests/src/cli.ts',
};

/** A finished program run. */
export interface CliResult {
  status: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** A program still running: its output so far, line by line. */
export interface RunningCli {
  child: ChildProcess;
  /** Every line printed so far, stdout and stderr interleaved. */
  lines: string[];
  /** Resolves with the first line (already printed or to come) matching `pattern`. */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpExecArray>;
  /** Sends `signal` (default SIGINT, a Ctrl-C) and resolves once the program ended. */
  stop(signal?: NodeJS.Signals): Promise<CliResult>;
  /** Resolves once the program ended on its own. */
  exited: Promise<CliResult>;
}

/**
 * Turns a command as a README writes it (`npx restoapi-mock --port 4010`, `npm start -- --no-carrier`)
 * into the argv that runs it from this repository's sources.
 */
export function localArgv(command: string): string[] {
  const words = command
    .replace(/\s+#.*$/, '')
    .trim()
    .split(/\s+/);
  if (words[0] === 'npx' && BIN_SOURCES[words[1]!])
    return ['--import', TSX, BIN_SOURCES[words[1]!]!, ...words.slice(2)];
  if (words[0] === 'npm' && words[1] === 'start')
    return ['scripts/start-demo.mjs', ...words.slice(words[2] === '--' ? 3 : 2)];
  throw new Error(`not a command of this repository: ${command}`);
}

/** Starts a program (`args` after `node`) in `cwd` (default the repository root). */
export function startCli(args: string[], options: { cwd?: string } = {}): RunningCli {
  const child = spawn(process.execPath, args[0]?.endsWith('.mjs') ? args : ['--import', TSX, ...args], {
    cwd: options.cwd ?? ROOT,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const lines: string[] = [];
  const waiters = new Set<() => void>();
  let stdout = '';
  let stderr = '';
  const collect = (stream: NodeJS.ReadableStream, into: (text: string) => void): void => {
    let rest = '';
    stream.on('data', (chunk: Buffer) => {
      const text = chunk.toString();
      into(text);
      const parts = (rest + text).split('\n');
      rest = parts.pop() ?? '';
      lines.push(...parts);
      for (const wake of waiters) wake();
    });
  };
  collect(child.stdout!, (text) => (stdout += text));
  collect(child.stderr!, (text) => (stderr += text));
  const exited = new Promise<CliResult>((resolve) =>
    child.on('close', (status, signal) => {
      for (const wake of waiters) wake();
      resolve({ status, signal, stdout, stderr });
    }),
  );
  let ended = false;
  void exited.then(() => (ended = true));
  return {
    child,
    lines,
    exited,
    waitFor(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`timed out waiting for ${pattern}; output so far:\n${lines.join('\n')}`));
        }, timeoutMs);
        const check = (): void => {
          for (const line of lines) {
            const match = pattern.exec(line);
            if (match) {
              clearTimeout(timer);
              waiters.delete(check);
              resolve(match);
              return;
            }
          }
          if (ended) {
            clearTimeout(timer);
            waiters.delete(check);
            reject(new Error(`the program ended without printing ${pattern}; output:\n${lines.join('\n')}`));
          }
        };
        waiters.add(check);
        check();
      });
    },
    async stop(signal = 'SIGINT') {
      if (!ended) child.kill(signal);
      return exited;
    },
  };
}

/** Runs a program to its end (`args` after `node`, as {@link startCli}). */
export function runCli(args: string[], options: { cwd?: string } = {}): Promise<CliResult> {
  return startCli(args, options).exited;
}

/** An HTTP server holding a port, recording every request that reaches it. */
export async function occupyPort(): Promise<{
  port: number;
  requests: IncomingMessage[];
  server: Server;
  close(): Promise<void>;
}> {
  const requests: IncomingMessage[] = [];
  const server = createServer((req, res) => {
    requests.push(req);
    req.resume();
    res.writeHead(418).end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    server,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** A port that was free a moment ago (for a program that needs a fixed port, such as the demo). */
export async function freePort(): Promise<number> {
  const held = await occupyPort();
  await held.close();
  return held.port;
}

/**
 * The commands of the first ```sh block of a Markdown file that contains `marker`, one per line,
 * comments kept (a README's commands are tested as written).
 */
export function shellCommands(markdownFile: string, marker: string): string[] {
  const text = readFileSync(markdownFile, 'utf8');
  for (const [, body] of text.matchAll(/```sh\n([\s\S]*?)```/g)) {
    if (body!.includes(marker)) return body!.split('\n').filter((line) => line.trim() !== '');
  }
  throw new Error(`${markdownFile} has no sh block containing ${marker}`);
}
