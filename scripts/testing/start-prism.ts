/**
 * Starts Prism on a free loopback port: as a static mock of the bundled API description, or as a
 * validating proxy in front of an implementation. Shared by the tests and benchmarks that use Prism.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';

/** A running Prism. */
export interface RunningPrism {
  url: string;
  /** Everything Prism printed while starting (its error lines show operations it could not serve). */
  startupOutput: string;
  /** Everything Prism printed so far. */
  output(): string;
  process: ChildProcess;
  stop(): void;
}

const bundlePath = fileURLToPath(new URL('../../openapi/generated/openapi.yaml', import.meta.url));

/** Options of {@link startPrism}. */
export interface PrismOptions {
  /** The document Prism loads; default the bundle (`openapi/generated/openapi.yaml`). */
  document?: string;
  /** Run `prism proxy` in front of this base URL instead of `prism mock`. */
  upstream?: string;
  timeoutMs?: number;
}

/** A port nothing listens on right now. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Starts `prism mock` (or `prism proxy`) on a document and resolves once it listens. */
export async function startPrism(options: PrismOptions = {}): Promise<RunningPrism> {
  const { document = bundlePath, upstream, timeoutMs = 40_000 } = options;
  const bin = createRequire(import.meta.url).resolve('@stoplight/prism-cli/dist/index.js');
  const port = await freePort();
  const mode = upstream ? ['proxy', document, upstream, '--errors=false'] : ['mock', document];
  const child = spawn(process.execPath, [bin, ...mode, '--host', '127.0.0.1', '--port', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  // Prism keeps logging every request it handles; the log stays readable through `output()`.
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Prism did not start:\n${output}`)), timeoutMs);
    const onData = (): void => {
      if (output.includes('Prism is listening')) {
        clearTimeout(timer);
        child.removeAllListeners('exit');
        resolve();
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('exit', (code) => reject(new Error(`Prism exited with ${code}:\n${output}`)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    startupOutput: output,
    output: () => output,
    process: child,
    stop: () => child.kill(),
  };
}
