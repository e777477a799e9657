// The `restoapi-carrier` program, separate from src/cli.ts so tests can parse arguments without running it.
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { consoleLogger } from '../observability/logger.js';
import { ServiceUnreachableError } from './mock-control.js';
import { replicaArgs, startReplicaGroup } from './replica-group.js';
import { startPrometheus } from './prometheus.js';
import { runSimulator } from './run-simulator.js';

/** Exit codes of `restoapi-carrier` (listed in the package README). */
export const EXIT_CODES = { ok: 0, failure: 1, usage: 2, unreachable: 3 } as const;

/** A bad invocation: reported without a stack and with exit code 2. */
class UsageError extends Error {}

function url(value: string): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new InvalidArgumentError('expected an absolute http(s) URL such as http://127.0.0.1:4010');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new InvalidArgumentError(`expected an http(s) URL, not ${parsed.protocol}`);
  return value.replace(/\/+$/, '');
}

function storeUrl(value: string): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new InvalidArgumentError(
      'expected a PostgreSQL connection string such as postgres://carrier@127.0.0.1:5432/carrier',
    );
  }
  if (parsed.protocol !== 'postgres:' && parsed.protocol !== 'postgresql:')
    throw new InvalidArgumentError(`expected a postgres:// connection string, not ${parsed.protocol}`);
  return value;
}

function number(min: number, max = Number.POSITIVE_INFINITY) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isFinite(parsed) || parsed < min || parsed > max)
      throw new InvalidArgumentError(`expected a number from ${min}${Number.isFinite(max) ? ` to ${max}` : ''}`);
    return parsed;
  };
}

function sessionName(value: string): string {
  // The mock's rule for X-Mock-Session names, checked here so a typo fails before anything starts.
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(value))
    throw new InvalidArgumentError('a session name is 1 to 64 characters of A-Z, a-z, 0-9, ".", "_" and "-"');
  return value;
}

function integerList(value: string): number[] {
  const ids = value.split(',').map((part) => Number(part.trim()));
  if (ids.length === 0 || ids.some((id) => !Number.isInteger(id) || id < 1))
    throw new InvalidArgumentError('expected restaurant ids like 11,12');
  return ids;
}

/** Turns a connection failure into the unreachable exit code, naming the database without its password. */
function databaseUnreachable(store: string) {
  return (error: NodeJS.ErrnoException): never => {
    const url = new URL(store);
    url.password = '';
    if (['ECONNREFUSED', 'ENOTFOUND', 'EHOSTUNREACH', 'ETIMEDOUT'].includes(error.code ?? ''))
      throw new ServiceUnreachableError(url.href, { cause: error });
    throw error;
  };
}

/** Builds the command-line program (exported for tests). */
export function createProgram(): Command {
  const program = new Command('restoapi-carrier')
    .description('Carrier tools for the Online Restaurant Ordering Service')
    .showHelpAfterError()
    // Inherited by the commands below: parse errors reach reportCliError instead of exiting with 1.
    .exitOverride();

  program
    .command('simulate')
    .description(
      'Run a simulated carrier: receive callbacks, take every new order, drive a courier to the client and deliver',
    )
    .requiredOption(
      '--base-url <url>',
      'base address of the service (the mock server), e.g. http://127.0.0.1:4010',
      url,
    )
    .option('--control-url <url>', 'base address of the mock control API (default: --base-url)', url)
    .addOption(
      new Option('--control-token <token>', "the mock's control token (restoapi-mock --control-token)").env(
        'RESTOAPI_MOCK_CONTROL_TOKEN',
      ),
    )
    .addOption(
      new Option('--port <port>', 'port of the callback receiver (0: any free port)')
        .default(4020)
        .argParser(number(0, 65535)),
    )
    .option('--host <host>', 'interface the receiver listens on', '127.0.0.1')
    .option(
      '--public-url <url>',
      'callback URL to register when the mock reaches this process under another address',
      url,
    )
    .option(
      '--callback-url <url>',
      "the public callback URL (a load balancer's) registered once for all replicas; same as --public-url",
      url,
    )
    .option(
      '--store <url>',
      'share the outbox, the callback dedupe and the deliveries with other replicas in this PostgreSQL database',
      storeUrl,
    )
    .addOption(
      new Option(
        '--replicas <n>',
        'start n replicas (separate processes) behind a round-robin balancer on --port; needs --store',
      ).argParser(number(1, 64)),
    )
    .addOption(
      new Option('--lease <ms>', 'with --store: how long after a replica died the others take its work over')
        .default(10_000)
        .argParser(number(100)),
    )
    .addOption(new Option('--speed <km/h>', 'courier speed in km/h').default(25).argParser(number(1, 10_000)))
    .addOption(
      new Option('--tick <ms>', 'time between two position reports of a courier').default(1000).argParser(number(10)),
    )
    .addOption(
      new Option('--min-interval <ms>', 'least time between two position updates sent per order')
        .default(10_000)
        .argParser(number(0)),
    )
    .addOption(
      new Option('--problem-rate <rate>', 'share of orders whose courier reports a problem, 0 to 1')
        .default(0)
        .argParser(number(0, 1)),
    )
    .addOption(
      new Option('--problem-pause <ms>', 'how long a courier is stuck after a problem')
        .default(5000)
        .argParser(number(0)),
    )
    .option('--chaos', 'register with chaos options: the mock duplicates, delays and reorders callbacks', false)
    .addOption(
      new Option('--seed <n>', 'seed of the random decisions (problems, chaos)').default(1).argParser(number(0)),
    )
    .addOption(
      new Option('--restaurants <ids>', 'only these restaurants, e.g. 11,12 (default: all)').argParser(integerList),
    )
    .option(
      '--secret <whsec>',
      'register a Standard Webhooks secret and verify the signatures (extension beyond the spec)',
    )
    .option('--outbox <file>', 'keep pending delivery updates in this file, so they survive a restart')
    .option('--name <name>', 'name of the carrier in the mock', 'Simulated carrier')
    .option(
      '--mock-session <name>',
      'work in this session of the mock (X-Mock-Session): register there, get its callbacks, send its updates',
      sessionName,
    )
    .addOption(
      new Option(
        '--metrics <port>',
        'serve OpenTelemetry metrics for Prometheus at http://127.0.0.1:<port>/metrics (0: a free port) and print a scrape on exit',
      ).argParser(number(0, 65535)),
    )
    .option('--verbose', 'log what the kit does', false)
    .action(async (opts: Record<string, unknown>) => {
      const publicUrl = (opts.callbackUrl ?? opts.publicUrl) as string | undefined;
      if (opts.store && opts.outbox)
        throw new UsageError('--outbox and --store exclude each other: with --store the outbox is in the database');
      if (opts.replicas !== undefined) {
        if (!opts.store)
          throw new UsageError(
            '--replicas needs --store postgres://…: replicas share their outbox and callback dedupe through the database',
          );
        const group = await startReplicaGroup({
          replicas: opts.replicas as number,
          args: ['simulate', ...replicaArgs(process.argv.slice(process.argv.indexOf('simulate') + 1))],
          port: opts.port as number,
          host: opts.host as string,
          ...(publicUrl ? { callbackUrl: publicUrl } : {}),
          print: (line) => console.log(line),
        }).catch((error: NodeJS.ErrnoException) => {
          if (error.code === 'EADDRINUSE')
            throw new UsageError(
              `port ${String(opts.port)} on ${String(opts.host)} is already in use by another program`,
            );
          throw error;
        });
        const stopGroup = (): void => {
          void group.stop().then(() => process.exit(0));
        };
        process.once('SIGINT', stopGroup);
        process.once('SIGTERM', stopGroup);
        return;
      }
      const prometheus =
        opts.metrics === undefined
          ? undefined
          : await startPrometheus({ port: opts.metrics as number, host: opts.host as string });
      if (prometheus) console.log(`metrics at ${prometheus.url}`);
      const simulator = await runSimulator({
        ...(prometheus ? { meterProvider: prometheus.provider } : {}),
        baseUrl: opts.baseUrl as string,
        ...(opts.controlUrl ? { controlUrl: opts.controlUrl as string } : {}),
        ...(opts.controlToken ? { controlToken: opts.controlToken as string } : {}),
        port: opts.port as number,
        host: opts.host as string,
        ...(publicUrl ? { publicUrl } : {}),
        ...(opts.store ? { store: opts.store as string, leaseMs: opts.lease as number } : {}),
        speedKmh: opts.speed as number,
        tickMs: opts.tick as number,
        minIntervalMs: opts.minInterval as number,
        problemRate: opts.problemRate as number,
        problemPauseMs: opts.problemPause as number,
        chaos: opts.chaos === true,
        seed: opts.seed as number,
        ...(opts.restaurants ? { restaurantIds: opts.restaurants as number[] } : {}),
        ...(opts.secret ? { secret: opts.secret as string } : {}),
        ...(opts.outbox ? { outboxFile: opts.outbox as string } : {}),
        name: opts.name as string,
        ...(opts.mockSession ? { mockSession: opts.mockSession as string } : {}),
        ...(opts.verbose ? { logger: consoleLogger('debug') } : {}),
      }).catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'EADDRINUSE')
          throw new UsageError(
            `port ${String(opts.port)} on ${String(opts.host)} is already in use by another program; choose another with --port <port> (0 picks a free one)`,
          );
        throw error;
      });
      const shutdown = (): void => {
        void simulator
          .stop()
          .then(async () => {
            if (!prometheus) return;
            console.log(`metrics at exit (${prometheus.url}):\n${(await prometheus.scrape()).trimEnd()}`);
            await prometheus.close();
          })
          .then(() => process.exit(0));
      };
      process.once('SIGINT', shutdown);
      process.once('SIGTERM', shutdown);
    });
  program
    .command('migrate')
    .description('Create or update the tables of the PostgreSQL stores (safe to run at every start)')
    .requiredOption('--store <url>', 'the database, e.g. postgres://carrier@127.0.0.1:5432/carrier', storeUrl)
    .action(async (opts: { store: string }) => {
      const { migrate } = await import('../postgres/migrate.js');
      const result = await migrate({ connectionString: opts.store }).catch(databaseUnreachable(opts.store));
      console.log(
        result.applied.length > 0
          ? `applied migration${result.applied.length > 1 ? 's' : ''} ${result.applied.join(', ')}; the database is at schema version ${result.version}`
          : `nothing to apply; the database is at schema version ${result.version}`,
      );
    });
  return program;
}

/**
 * Prints why the program stopped and answers its exit code: 2 for a bad invocation (commander has
 * printed its message already), 3 when the service cannot be reached, 1 for anything else.
 */
export function reportCliError(error: unknown, print: (line: string) => void = console.error): number {
  if (error instanceof CommanderError) return error.exitCode === 0 ? EXIT_CODES.ok : EXIT_CODES.usage;
  print(`restoapi-carrier: ${error instanceof Error ? error.message : String(error)}`);
  if (error instanceof UsageError) return EXIT_CODES.usage;
  if (error instanceof ServiceUnreachableError) return EXIT_CODES.unreachable;
  return EXIT_CODES.failure;
}
