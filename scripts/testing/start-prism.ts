/**
 * Starts Prism serving the bundled API description as a static mock on a free loopback port.
 * Shared by the tests and benchmarks that compare against Prism.
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
  process: ChildProcess;
  stop(): void;
}

const documentPath = fileURLToPath(new URL('../../openapi/generated/openapi.yaml', import.meta.url));

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

/** Starts `prism mock` on the bundled document and resolves once it listens. */
export async function startPrism(timeoutMs = 40_000): Promise<RunningPrism> {
  const bin = createRequire(import.meta.url).resolve('@stoplight/prism-cli/dist/index.js');
  const port = await freePort();
  const child = spawn(process.execPath, [bin, 'mock', documentPath, '--host', '127.0.0.1', '--port', String(port)], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`Prism did not start:\n${output}`)), timeoutMs);
    const onData = (chunk: Buffer): void => {
      output += chunk.toString();
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
  return { url: `http://127.0.0.1:${port}`, startupOutput: output, process: child, stop: () => child.kill() };
}
