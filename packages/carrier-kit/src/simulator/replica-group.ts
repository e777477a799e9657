import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { startBalancer, type Balancer } from './round-robin-balancer.js';

/** Options of {@link startReplicaGroup}. */
export interface ReplicaGroupOptions {
  /** How many replicas to start. */
  replicas: number;
  /** The `simulate` arguments every replica gets (its --port and --callback-url are added). */
  args: string[];
  /** Port of the balancer, the public address (0: a free one). */
  port: number;
  host: string;
  /** The callback URL to register (default: the balancer's `/callbacks`). */
  callbackUrl?: string;
  /** Where the group's and the replicas' lines go. */
  print: (line: string) => void;
}

/** A running group of replicas behind a balancer. */
export interface ReplicaGroup {
  balancer: Balancer;
  /** The replicas' processes, in start order. */
  children: ChildProcess[];
  /** Stops every replica still running (SIGTERM: each gives its deliveries up), then the balancer. */
  stop(): Promise<void>;
}

function freePort(host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Options of `simulate` the group sets for each replica itself. */
const OWN_OPTIONS = new Set(['--replicas', '--port', '--callback-url', '--public-url', '--host']);

/** `simulate`'s arguments without the options the group sets per replica (`--x v` and `--x=v` forms). */
export function replicaArgs(argv: string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const name = arg.split('=')[0]!;
    if (!OWN_OPTIONS.has(name)) out.push(arg);
    else if (!arg.includes('=')) i += 1;
  }
  return out;
}

/**
 * Starts `replicas` copies of `restoapi-carrier simulate` as separate processes, each on a port of its
 * own, behind a round-robin balancer on `port`: the callback URL registered once is the balancer's.
 * @example
 * const group = await startReplicaGroup({ replicas: 3, args: ['simulate', '--base-url', url, '--store', db], port: 4020, host: '127.0.0.1', print: console.log });
 */
export async function startReplicaGroup(options: ReplicaGroupOptions): Promise<ReplicaGroup> {
  const ports = await Promise.all(Array.from({ length: options.replicas }, () => freePort(options.host)));
  const balancer = await startBalancer({
    targets: ports.map((port) => `http://${options.host}:${port}`),
    port: options.port,
    host: options.host,
  });
  const callbackUrl = options.callbackUrl ?? `${balancer.url}/callbacks`;
  options.print(`balancer at ${balancer.url}: ${options.replicas} replicas, callback URL ${callbackUrl}`);
  const exits: Promise<void>[] = [];
  const children = ports.map((port, index) => {
    const name = `replica ${index + 1}`;
    const child = spawn(
      process.execPath,
      [
        ...process.execArgv,
        process.argv[1]!,
        ...options.args,
        '--host',
        options.host,
        '--port',
        String(port),
        '--callback-url',
        callbackUrl,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    for (const stream of [child.stdout!, child.stderr!]) {
      let rest = '';
      stream.on('data', (chunk: Buffer) => {
        const lines = (rest + chunk.toString()).split('\n');
        rest = lines.pop() ?? '';
        for (const line of lines) options.print(`[${name}] ${line}`);
      });
    }
    exits.push(
      new Promise((resolve) =>
        child.once('exit', (code, signal) => {
          options.print(`${name} (pid ${child.pid}) ended: ${signal ?? `exit code ${code}`}`);
          resolve();
        }),
      ),
    );
    options.print(`${name}: pid ${child.pid}, http://${options.host}:${port}`);
    return child;
  });
  return {
    balancer,
    children,
    async stop() {
      for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await Promise.all(exits);
      await balancer.close();
    },
  };
}
