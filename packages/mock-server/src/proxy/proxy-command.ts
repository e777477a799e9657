/**
 * `restoapi-mock proxy`: the CLI subcommand over {@link createProxyServer}. It shares the serve command's
 * option parsers, port check and exit codes (0 stopped by a signal, 1 an unexpected failure, 2 a bad
 * invocation naming the option); cli.ts hands them in.
 */
import { constants } from 'node:fs';
import { access, mkdir } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { InvalidArgumentError, Option, type Command } from 'commander';
import { formatViolation, formatWarning } from './live-printer.js';
import { createProxyServer, DEFAULT_UPSTREAM_TIMEOUT_MS } from './proxy-server.js';
import { reportSummary } from './proxy-report.js';
import { describeRecording, Recorder, REPLAY_PASSWORD } from './recorder.js';
import { RecordingFile } from './recording-file.js';
import { createRedactor } from './redaction.js';
import { writeReportFiles } from './report-files.js';

/** What the serve command lends the proxy command, so that both behave alike. */
export interface ServeCommandParts {
  /** Parses `--port`. */
  port(value: string): number;
  /** Fails, as a usage error, when host:port cannot be listened on. */
  assertCanListen(host: string, port: number): Promise<void>;
  /** A listen error in the words of `--host` and `--port`. */
  listenProblem(error: NodeJS.ErrnoException, host: string, port: number): Error;
  /** A bad invocation: printed without a stack, exit code 2. */
  usageError(message: string): Error;
}

interface ProxyCliOptions {
  upstream: URL;
  port: number;
  host: string;
  timeout: number;
  report?: string;
  record?: string;
  redact: boolean;
  failOnViolation: boolean;
  profile: 'spec' | 'full';
}

function upstreamUrl(value: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new InvalidArgumentError('expected an http or https URL, e.g. https://staging.example.com');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw new InvalidArgumentError(`expected an http or https URL, not ${url.protocol}`);
  if (url.search || url.hash) throw new InvalidArgumentError('give the base URL without a query or fragment');
  return url;
}

function timeout(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 1)
    throw new InvalidArgumentError('a timeout is a whole number of milliseconds, 1 or more');
  return n;
}

/** Adds the `proxy` subcommand to the serve command's program. */
export function addProxyCommand(program: Command, parts: ServeCommandParts): void {
  program
    .command('proxy')
    .description(
      'forward every request to a real service, check requests and answers against the API description, report violations and record what was seen',
    )
    .requiredOption('--upstream <url>', 'the service to forward to, e.g. https://staging.example.com', upstreamUrl)
    .option('-p, --port <port>', 'port to listen on', parts.port, 4010)
    .option('-H, --host <host>', 'interface to listen on', '127.0.0.1')
    .option(
      '--timeout <ms>',
      'milliseconds the upstream may stay silent before the answer is a 502',
      timeout,
      DEFAULT_UPSTREAM_TIMEOUT_MS,
    )
    .option('--report <dir>', 'on exit, write proxy-report.xml (JUnit), proxy-report.html and proxy-report.json here')
    .option(
      '--record <file>',
      `write what was seen as a fixture for restoapi-mock --seed, after every answer (logins get the password "${REPLAY_PASSWORD}")`,
    )
    .option('--redact', 'with --record: replace client names, phones and addresses by stable fake values', false)
    .addOption(
      new Option(
        '--profile <profile>',
        'spec: an answer that departs only from what the document decided (where the spec says "not shown") is a warning naming the decision; full: a violation',
      )
        .choices(['spec', 'full'])
        .default('spec'),
    )
    .option('--fail-on-violation', 'answer 502 listing the violations instead of a violating answer', false)
    .action(async (options: ProxyCliOptions) => runProxy(options, parts));
}

async function runProxy(options: ProxyCliOptions, parts: ServeCommandParts): Promise<void> {
  if (options.redact && !options.record) throw parts.usageError('--redact applies to --record <file>: give both');
  await parts.assertCanListen(options.host, options.port);
  // Where the files go is checked now, not found unwritable on exit after a long session.
  if (options.record) {
    const directory = dirname(resolve(options.record));
    await access(directory, constants.W_OK).catch(() => {
      throw parts.usageError(`--record ${options.record}: the directory ${directory} is missing or not writable`);
    });
  }
  if (options.report) {
    const dir = options.report;
    await mkdir(dir, { recursive: true })
      .then(() => access(dir, constants.W_OK))
      .catch((error: Error) => {
        throw parts.usageError(`--report ${dir}: cannot write there (${error.message})`);
      });
  }
  let lastSaveError = '';
  const recording = options.record
    ? new RecordingFile(options.record, new Recorder(options.redact ? await createRedactor() : undefined), (error) => {
        // One line per new problem, not one per answer while the disk stays full.
        if (error.message === lastSaveError) return;
        lastSaveError = error.message;
        console.error(`restoapi-mock proxy: could not save the recording: ${error.message}`);
      })
    : undefined;
  const proxy = await createProxyServer({
    upstream: options.upstream,
    port: options.port,
    host: options.host,
    timeoutMs: options.timeout,
    failOnViolation: options.failOnViolation,
    profile: options.profile,
    onViolation: (violation) => console.log(formatViolation(violation)),
    onWarning: (warning) => console.log(formatWarning(warning)),
    ...(recording ? { onAnswer: recording.observe.bind(recording) } : {}),
  }).catch((error: NodeJS.ErrnoException) => {
    throw error.syscall === 'listen' ? parts.listenProblem(error, options.host, options.port) : error;
  });
  console.log(
    [
      `RestoAPI proxy listening on ${proxy.url} → ${options.upstream.href}`,
      `  report        ${proxy.url}/__proxy/report${options.report ? `, and on exit in ${options.report}/` : ''}`,
      `  timeout       ${options.timeout} ms`,
      `  profile       ${options.profile === 'spec' ? 'spec: departures from what the document decided are warnings, from what the spec states violations' : 'full: departures from the spec and from every decision are violations'}`,
      `  violations    ${options.failOnViolation ? 'answered 502 (--fail-on-violation)' : 'printed and passed through'}`,
      `  record        ${options.record ? `${options.record}, saved after every answer${options.redact ? ', client data redacted' : ''}` : 'off'}`,
    ].join('\n'),
  );
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    void (async () => {
      await proxy.close();
      const report = proxy.report();
      console.log(reportSummary(report));
      let failed = false;
      if (options.report) {
        const files = await writeReportFiles(options.report, report).catch((error: Error) => {
          failed = true;
          console.error(`restoapi-mock proxy: could not write the report: ${error.message}`);
          return [];
        });
        if (files.length) console.log(`report written: ${files.join(', ')}`);
      }
      if (recording) {
        await recording
          .close()
          .then((written) => console.log(describeRecording(recording.file, written)))
          .catch((error: Error) => {
            failed = true;
            console.error(`restoapi-mock proxy: could not save the recording: ${error.message}`);
          });
      }
      process.exit(failed ? 1 : 0);
    })();
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}
