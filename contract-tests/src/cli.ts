/**
 * restoapi-contract: runs the contract suite against a base URL (`merge` merges shards' results, `carrier` checks a
 * carrier's service).
 * Exit codes: 0 every selected test passed, 1 a test failed, 2 a bad invocation (an unknown option, a
 * bad value, a missing or invalid configuration, a selection matching no test) or an unreachable target.
 */
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { carrierCommand } from './carrier/carrier-command.js';
import { loadConfig } from './config.js';
import { mergeResultDirs } from './reports/merge.js';
import { consoleReporter, fileReporter, progressReporter } from './reports/reports.js';
import { parseShard, runContractSuite, selectTests } from './runner/run.js';
import type { Profile, Reporter, Selection, Shard } from './runner/types.js';

function integer(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n)) throw new InvalidArgumentError('expected a whole number');
  return n;
}

function positive(value: string): number {
  const n = integer(value);
  if (n < 1) throw new InvalidArgumentError('expected a whole number of at least 1');
  return n;
}

function shard(value: string): Shard {
  try {
    return parseShard(value);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message.replace(/^--shard /, ''));
  }
}

function replay(value: string): { testId: string; path: string } {
  const match = /^(stateful\.[\w-]+)=([\d:]+(?:\/[\w:]*)?)$/.exec(value);
  if (!match)
    throw new InvalidArgumentError(
      'expected TEST=PATH as printed by a failed stateful test, e.g. stateful.menu=3:1:0/CB:F',
    );
  return { testId: match[1]!, path: match[2]! };
}

function url(value: string): string {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new InvalidArgumentError('expected an absolute URL such as http://127.0.0.1:4010');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new InvalidArgumentError(`expected an http(s) URL, not ${parsed.protocol}`);
  return parsed.toString().replace(/\/$/, '');
}

const program = new Command('restoapi-contract')
  .description('Contract tests for any implementation of the Online Restaurant Ordering Service API')
  .requiredOption('--base-url <url>', 'base URL of the main API (paths start with /api)', url)
  .option('--carrier-base-url <url>', 'base URL of the carrier API (default: <base-url>/api-delivery)', url)
  .requiredOption(
    '--config <file>',
    'configuration file (accounts per role, organization, capabilities; see config.schema.json)',
  )
  .addOption(
    new Option(
      '--profile <profile>',
      'spec: only what the spec states; full: also every decision of openapi/DECISIONS.md',
    )
      .choices(['spec', 'full'])
      .default('spec'),
  )
  .option('--report <dir>', 'write junit.xml, traceability.md, traceability.html and result.json to this directory')
  .option('--seed <n>', 'seed of the property-based tests (printed by every run)', integer)
  .addOption(
    new Option('--selection <name>', 'which tests to run')
      .choices(['all', 'schema-only', 'behaviour', 'negative', 'stateful'])
      .default('all'),
  )
  .option('--grep <pattern...>', 'only tests whose id matches (wildcard *)')
  .option(
    '--allow-not-implemented',
    'treat 501 answers as "not implemented yet": skip the test instead of failing it',
    false,
  )
  .option(
    '--shard <k/n>',
    'run only the k-th of n deterministic shares of the tests (merge the results with `merge`)',
    shard,
  )
  .option('--runs <n>', 'sequences per stateful test (default: stateful.runs of the configuration, else 20)', positive)
  .option(
    '--sequence-length <n>',
    'longest sequence of a stateful test (default: stateful.maxCommands, else 16)',
    positive,
  )
  .option(
    '--replay <test=path>',
    'replay exactly the sequence a failed stateful test printed (with its --seed)',
    replay,
  )
  .option('--arazzo <dir>', 'also write each failing stateful sequence there as an Arazzo 1.0.1 workflow')
  .option('--show-secrets', 'show tokens and passwords in curl reproducers instead of placeholders', false)
  .option('--verbose', 'print every test as it ends', false)
  .addOption(
    new Option(
      '--progress <mode>',
      'tty: redraw one line (done/total, failures, current test and its time); lines: one line per finished group of tests; off; auto: tty on a terminal, else lines',
    )
      .choices(['auto', 'tty', 'lines', 'off'])
      .default('auto'),
  )
  .showHelpAfterError()
  .exitOverride();

program.action(
  async (options: {
    baseUrl: string;
    carrierBaseUrl?: string;
    config: string;
    profile: Profile;
    report?: string;
    seed?: number;
    selection: 'all' | 'schema-only' | 'behaviour' | 'negative' | 'stateful';
    grep?: string[];
    allowNotImplemented: boolean;
    shard?: Shard;
    runs?: number;
    sequenceLength?: number;
    replay?: { testId: string; path: string };
    arazzo?: string;
    showSecrets: boolean;
    verbose: boolean;
    progress: 'auto' | 'tty' | 'lines' | 'off';
  }) => {
    const config = await loadConfig(options.config);
    const selection: Selection = options.grep ? { ids: options.grep } : options.selection;
    if (selectTests(options.profile, selection).length === 0) {
      const inFull = options.profile === 'spec' && selectTests('full', selection).length > 0;
      program.error(
        `restoapi-contract: --grep ${options.grep!.join(' ')} matched no test of the ${options.profile} profile, so nothing was run` +
          (inFull ? ' (it matches tests of --profile full)' : ''),
        { exitCode: 2 },
      );
    }
    const reporters: Reporter[] = [];
    // Before the console reporter: the live line is cleared before a failure or the summary is printed.
    if (options.progress !== 'off')
      reporters.push(progressReporter(options.progress === 'auto' ? {} : { mode: options.progress }));
    reporters.push(consoleReporter({ verbose: options.verbose }));
    if (options.report) reporters.push(fileReporter(options.report));
    const result = await runContractSuite({
      baseUrl: options.baseUrl,
      ...(options.carrierBaseUrl ? { carrierBaseUrl: options.carrierBaseUrl } : {}),
      config,
      profile: options.profile,
      selection,
      reporters,
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      notImplemented: options.allowNotImplemented ? 'skip' : 'fail',
      ...(options.shard ? { shard: options.shard } : {}),
      stateful: {
        ...(options.runs ? { runs: options.runs } : {}),
        ...(options.sequenceLength ? { maxCommands: options.sequenceLength } : {}),
        ...(options.replay ? { replay: options.replay } : {}),
        ...(options.arazzo ? { arazzo: options.arazzo } : {}),
      },
      showSecrets: options.showSecrets,
    });
    if (options.report) console.log(`reports written to ${options.report}`);
    process.exitCode = result.ok ? 0 : 1;
  },
);

const merge = new Command('restoapi-contract merge')
  .description("Merges the result.json of a run's shards into one report (console summary, JUnit, HTML)")
  .argument('<dir...>', 'directories with a result.json (the --report directories of the shards)')
  .option('--report <dir>', 'write the merged junit.xml, traceability.md, traceability.html and result.json here')
  .showHelpAfterError()
  .exitOverride()
  .action(async (dirs: string[], options: { report?: string }) => {
    const result = await mergeResultDirs(dirs);
    const reporters: Reporter[] = [consoleReporter()];
    if (options.report) reporters.push(fileReporter(options.report));
    for (const reporter of reporters) await reporter.onEnd?.(result);
    console.log(`merged ${dirs.length} results${options.report ? `; reports written to ${options.report}` : ''}`);
    process.exitCode = result.ok ? 0 : 1;
  });

const subcommands: Record<string, Command | undefined> = { merge, carrier: carrierCommand() };
const subcommand = subcommands[process.argv[2] ?? ''];
(subcommand ? subcommand.parseAsync(process.argv.slice(3), { from: 'user' }) : program.parseAsync()).catch(
  (error: unknown) => {
    // Commander has printed its own message (and the help) already.
    if (error instanceof CommanderError) process.exit(error.exitCode === 0 ? 0 : 2);
    console.error(`restoapi-contract: ${(error as Error).message}`);
    process.exit(2);
  },
);
