#!/usr/bin/env node
/**
 * restoapi-mock: serves the stateful mock over HTTP.
 * Exit codes: 0 stopped by a signal (or --help), 1 an unexpected failure, 2 a bad invocation (an unknown
 * option, a bad value, an unreadable --seed or --state file, a port that is taken or a host it cannot use).
 */
import { readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import {
  DEFAULT_MAX_SESSIONS,
  DEFAULT_SESSION_TTL_MS,
  DEMO_LOGINS,
  demoSeed,
  type MockStateJson,
  type MockEngine,
} from './index.js';
import { normalizeOrigin } from './cors/cors-policy.js';
import { OpenControlError, createMockServer } from './node.js';
import { isLoopbackHost } from './net/node-outbound.js';
import { ANY_ADDRESS, PUBLIC_ONLY, type OutboundMode, type OutboundRule } from './net/outbound-policy.js';
import { addProxyCommand } from './proxy/proxy-command.js';
import { consoleRoute } from './static/console-route.js';
import { loadDocsRoute, type DocsRouteResult } from './static/docs-route.js';
import { readJsonFile, writeFileAtomic } from './state/atomic-file.js';
import { assertFixture } from './state/fixture.js';

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError('a port is a whole number from 0 to 65535');
  return n;
}

function milliseconds(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n < 0)
    throw new InvalidArgumentError('a duration is a number of milliseconds, 0 or more');
  return n;
}

/** A bad invocation: reported without a stack and with exit code 2. */
class UsageError extends Error {}

/** Why the mock cannot listen on host:port, in the words of the option that changes it. */
function listenProblem(error: NodeJS.ErrnoException, host: string, port: number): UsageError {
  if (error.code === 'EADDRINUSE')
    return new UsageError(`port ${port} on ${host} is already in use; choose another with --port <port>`);
  return new UsageError(`cannot listen on ${host}:${port} (${error.code ?? error.message}); check --host and --port`);
}

/** Fails before anything is loaded or served when host:port cannot be listened on (the real listen reports races). */
async function assertCanListen(host: string, port: number): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (error) => reject(listenProblem(error, host, port)));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()));
  });
}

function sessionCount(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n))
    throw new InvalidArgumentError('a number of sessions is a whole number, 0 or more (0: named sessions are refused)');
  return n;
}

/** A whole number of at least `min`, for the limits of a shared mock. */
function count(min: number): (value: string) => number {
  return (value) => {
    const n = Number(value);
    if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min)
      throw new InvalidArgumentError(`expected a whole number, ${min} or more`);
    return n;
  };
}

/** `--allow-host` may repeat and may hold a comma list: host names, IP addresses or CIDR ranges. */
function hostList(value: string, previous: string[] = []): string[] {
  const hosts = value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (hosts.length === 0) throw new InvalidArgumentError('give a host name, an IP address or a CIDR range');
  return [...previous, ...hosts];
}

/** How a rule reads in the start-up lines. */
function ruleText(rule: OutboundRule): string {
  const allowed = rule.allowHosts.length > 0 ? ` (+ ${rule.allowHosts.join(', ')})` : '';
  return rule.mode === 'public' ? `public addresses only${allowed}` : rule.mode === 'any' ? 'any address' : 'off';
}

/** Records per session on a mock started from the command line (a shared box); code-made instances allow more. */
const CLI_MAX_RECORDS = 250_000;

/** The environment variable the control token may come from (a flag shows in the process list). */
const CONTROL_TOKEN_ENV = 'RESTOAPI_MOCK_CONTROL_TOKEN';

function instant(value: string): Date {
  // An offset is required: a bare date-time would mean a different instant on every machine.
  const at = new Date(value);
  if (!/(Z|[+-]\d\d:\d\d)$/i.test(value) || Number.isNaN(at.getTime()))
    throw new InvalidArgumentError('expected an ISO 8601 date-time with an offset, e.g. 2026-11-20T18:30:00+01:00');
  return at;
}

/** `--cors-origin` may repeat and may hold a comma list; each value must be an origin. */
function corsOrigins(value: string, previous: string[] = []): string[] {
  const origins = value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  if (origins.length === 0) throw new InvalidArgumentError('give an origin such as http://localhost:5173');
  try {
    return [...previous, ...origins.map(normalizeOrigin)];
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
}

async function loadSeed(seed: string, now: Date): Promise<MockStateJson> {
  if (seed === 'demo') return demoSeed(now);
  if (seed === 'empty') return { version: 1 };
  let json: unknown;
  try {
    json = JSON.parse(await readFile(seed, 'utf8'));
  } catch (error) {
    throw new UsageError(
      `--seed ${seed}: not "demo", "empty" or a readable state JSON file (${(error as Error).message})`,
    );
  }
  return asUsage(() => assertFixture(json, `--seed ${seed}`));
}

/** Runs a check of user input, turning its error into a {@link UsageError}. */
function asUsage<T>(check: () => T): T {
  try {
    return check();
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Saves the state at most once per `delayMs`, always ending with the latest state. */
function debouncedSaver(file: string, delayMs = 50): (mock: MockEngine) => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let writing = Promise.resolve();
  return (mock) => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      const snapshot = JSON.stringify(mock.exportState());
      writing = writing
        .then(() => writeFileAtomic(file, snapshot))
        .catch((error: unknown) => {
          console.error(`[restoapi-mock] could not save ${file}: ${(error as Error).message}`);
        });
    }, delayMs);
  };
}

const program = new Command('restoapi-mock')
  .description('Stateful mock of the Online Restaurant Ordering Service API')
  .option('-p, --port <port>', 'port to listen on', port, 4010)
  .option('-H, --host <host>', 'interface to listen on', '127.0.0.1')
  .option('-s, --seed <seed>', 'initial data: demo, empty, or a state JSON file (GET /__mock/state)', 'demo')
  .option('--state <file>', 'persist the state to this file (atomically) and restore it on start')
  .option('--validate-responses', 'check every answer against the OpenAPI document and fail loudly on drift', false)
  .option('--import-duration <ms>', 'how long menu and client imports take, in milliseconds', milliseconds)
  .option('--no-docs', 'do not build and serve the documentation site at /docs')
  .option(
    '--clock <date-time>',
    'start the virtual clock at this instant (running); the demo seed is dated relative to it',
    instant,
  )
  .option(
    '--cors-origin <origins>',
    'allow only these origins to call the mock from a browser (repeat or comma list)',
    corsOrigins,
  )
  .option('--no-cors', 'answer no CORS preflights and send no Access-Control-* headers')
  .option(
    '--max-sessions <n>',
    `how many named sessions (X-Mock-Session) the mock holds at once; a new one beyond is refused with 429 (default ${DEFAULT_MAX_SESSIONS})`,
    sessionCount,
  )
  .option(
    '--session-ttl <ms>',
    `drop a named session unused for this many milliseconds, 0 never (default ${DEFAULT_SESSION_TTL_MS}: 30 minutes)`,
    milliseconds,
  )
  .addOption(
    new Option('--control-token <token>', 'require this token (Authorization: Bearer) on every /__mock request')
      .env(CONTROL_TOKEN_ENV)
      .argParser((value: string) => {
        if (value.trim().length < 16) throw new InvalidArgumentError('a control token has at least 16 characters');
        return value.trim();
      }),
  )
  .option(
    '--insecure-control',
    'listen on a non-loopback interface without a control token: anyone reaching the port controls the mock',
    false,
  )
  .addOption(
    new Option('--remote-photos <mode>', 'which addresses menu imports may fetch remote_photo_url from')
      .choices(['public', 'any', 'off'])
      .default('public'),
  )
  .addOption(
    new Option(
      '--callbacks <mode>',
      'which addresses carrier callbacks may go to (default: public on a non-loopback --host, any on loopback)',
    ).choices(['public', 'any', 'off']),
  )
  .option(
    '--allow-host <hosts>',
    'hosts reachable under "public" whatever their address: names, IPs or CIDRs (repeat or comma list)',
    hostList,
  )
  .option('--max-records <n>', 'records one session may hold', count(1), CLI_MAX_RECORDS)
  .option('--max-import-records <n>', 'records one import may hold (default 10000)', count(1))
  .option('--max-concurrent-imports <n>', 'imports one session may run at once (default 4)', count(1))
  .option('--max-remote-photos <n>', 'remote photos one menu import fetches (default 100)', count(0))
  .showHelpAfterError()
  .exitOverride()
  // The serve options come before a subcommand; `proxy` parses its own (its --port is not the serve --port).
  .enablePositionalOptions();

addProxyCommand(program, { port, assertCanListen, listenProblem, usageError: (message) => new UsageError(message) });

program.action(
  async (options: {
    port: number;
    host: string;
    seed: string;
    state?: string;
    validateResponses: boolean;
    importDuration?: number;
    docs: boolean;
    clock?: Date;
    cors: boolean;
    corsOrigin?: string[];
    maxSessions?: number;
    sessionTtl?: number;
    controlToken?: string;
    insecureControl: boolean;
    remotePhotos: OutboundMode;
    callbacks?: OutboundMode;
    allowHost?: string[];
    maxRecords: number;
    maxImportRecords?: number;
    maxConcurrentImports?: number;
    maxRemotePhotos?: number;
  }) => {
    if (!options.cors && options.corsOrigin)
      throw new UsageError('--cors-origin and --no-cors contradict each other: give one of them');
    // Nothing is read, built or served before the port is known to be free.
    await assertCanListen(options.host, options.port);
    const exposed = !isLoopbackHost(options.host);
    if (exposed && !options.controlToken && !options.insecureControl)
      throw new UsageError(new OpenControlError(options.host).message);
    const allowHosts = options.allowHost ?? [];
    const rule = (mode: OutboundMode): OutboundRule => ({ mode, allowHosts });
    const outboundPolicy = {
      photos: rule(options.remotePhotos),
      callbacks: options.callbacks ? rule(options.callbacks) : exposed ? { ...PUBLIC_ONLY, allowHosts } : ANY_ADDRESS,
    };
    const limits = {
      maxRecords: options.maxRecords,
      ...(options.maxImportRecords !== undefined ? { maxImportRecords: options.maxImportRecords } : {}),
      ...(options.maxConcurrentImports !== undefined ? { maxConcurrentImports: options.maxConcurrentImports } : {}),
      ...(options.maxRemotePhotos !== undefined ? { maxRemotePhotos: options.maxRemotePhotos } : {}),
    };
    const saved = options.state
      ? await readJsonFile(options.state).catch((error: Error) => {
          throw new UsageError(`--state ${options.state}: ${error.message}`);
        })
      : undefined;
    const restored = saved === undefined ? undefined : asUsage(() => assertFixture(saved, `--state ${options.state}`));
    const seedText = JSON.stringify(await loadSeed(options.seed, options.clock ?? new Date()));
    // The default session's rows are the objects of its state: named sessions start from a copy of the seed.
    const state = restored ?? (JSON.parse(seedText) as MockStateJson);
    // The console ships with the package; the docs site is built in memory when @restoapi/docs is there.
    const docs: DocsRouteResult = options.docs ? await loadDocsRoute() : { files: 0, note: 'not served (--no-docs)' };
    const server = await createMockServer({
      routes: [consoleRoute(), ...(docs.route ? [docs.route] : [])],
      port: options.port,
      host: options.host,
      state,
      validateResponses: options.validateResponses,
      cors: options.cors && (options.corsOrigin ? { origins: options.corsOrigin } : true),
      config: {
        ...limits,
        ...(options.importDuration !== undefined ? { importDurationMs: options.importDuration } : {}),
      },
      outboundPolicy,
      ...(options.controlToken ? { controlToken: options.controlToken } : {}),
      insecureControl: options.insecureControl,
      ...(options.state ? { onChange: debouncedSaver(options.state) } : {}),
      // Named sessions start from the seed, also when the default session was restored from --state.
      sessionSeed: () => JSON.parse(seedText) as MockStateJson,
      sessions: {
        ...(options.maxSessions !== undefined ? { max: options.maxSessions } : {}),
        ...(options.sessionTtl !== undefined ? { ttlMs: Math.round(options.sessionTtl) } : {}),
      },
    }).catch((error: NodeJS.ErrnoException) => {
      throw error.syscall === 'listen' ? listenProblem(error, options.host, options.port) : error;
    });
    if (options.clock) await server.mock.runtime.clock.set(options.clock, false);
    const lines = [
      `RestoAPI mock listening on ${server.url}`,
      `  main API      ${server.url}/api`,
      `  carrier API   ${server.url}/api-delivery`,
      `  control API   ${server.url}/__mock ${options.controlToken ? '(token required)' : exposed ? '(OPEN: --insecure-control)' : '(open, loopback only)'}`,
      `  console       ${server.url}/console/`,
      docs.route ? `  docs          ${server.url}/docs/` : `  docs          ${docs.note}`,
      `  sessions      X-Mock-Session: up to ${server.mock.sessions.max}, ${server.mock.sessions.ttlMs === 0 ? 'kept until dropped' : `dropped after ${server.mock.sessions.ttlMs} ms unused`}`,
      `  remote photos ${ruleText(outboundPolicy.photos)}`,
      `  callbacks     ${ruleText(outboundPolicy.callbacks)}`,
      `  limits        ${server.mock.runtime.config.maxRecords} records and ${server.mock.runtime.config.maxConcurrentImports} running imports per session, ${server.mock.runtime.config.maxImportRecords} records per import`,
      `  CORS          ${!options.cors ? 'off (--no-cors)' : options.corsOrigin ? options.corsOrigin.join(', ') : 'any origin'}`,
      restored
        ? `  state         restored from ${options.state}`
        : `  state         ${options.seed} seed${options.state ? `, saved to ${options.state}` : ' (in memory)'}`,
      '',
      'Demo logins (password "demo"):',
      ...DEMO_LOGINS.map((l) => `  ${l.login.padEnd(22)} ${l.role}`),
    ];
    console.log(lines.join('\n'));
    if (exposed && !options.controlToken) {
      const bar = '!'.repeat(78);
      console.warn(
        [
          bar,
          `WARNING: --insecure-control: the control API at ${server.url}/__mock is OPEN to everyone who can reach`,
          `${options.host}:${new URL(server.url).port}. Anyone can reset or replace the state, move the clock, inject faults and`,
          'register carriers the mock then calls. Give a token with --control-token or RESTOAPI_MOCK_CONTROL_TOKEN.',
          bar,
        ].join('\n'),
      );
    }
    const stop = (): void => {
      void server.close().then(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  },
);

program.parseAsync().catch((error: unknown) => {
  // Commander has printed its own message (and the help) already.
  if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : 2);
  console.error(`restoapi-mock: ${(error as Error).message}`);
  process.exit(error instanceof UsageError ? 2 : 1);
});
