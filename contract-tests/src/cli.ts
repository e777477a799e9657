/**
 * restoapi-contract: runs the contract suite against a base URL.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { loadConfig } from './config.js';
import { consoleReporter, fileReporter } from './reports/reports.js';
import { runContractSuite } from './runner/run.js';
import type { Profile, Reporter, Selection } from './runner/types.js';

function integer(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n)) throw new InvalidArgumentError('a whole number');
  return n;
}

function url(value: string): string {
  try {
    return new URL(value).toString().replace(/\/$/, '');
  } catch {
    throw new InvalidArgumentError('an absolute URL such as http://127.0.0.1:4010');
  }
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
      .choices(['all', 'schema-only', 'behaviour', 'negative'])
      .default('all'),
  )
  .option('--grep <pattern...>', 'only tests whose id matches (wildcard *)')
  .option(
    '--allow-not-implemented',
    'treat 501 answers as "not implemented yet": skip the test instead of failing it',
    false,
  )
  .option('--verbose', 'print every test as it ends', false)
  .showHelpAfterError();

program.action(
  async (options: {
    baseUrl: string;
    carrierBaseUrl?: string;
    config: string;
    profile: Profile;
    report?: string;
    seed?: number;
    selection: 'all' | 'schema-only' | 'behaviour' | 'negative';
    grep?: string[];
    allowNotImplemented: boolean;
    verbose: boolean;
  }) => {
    const config = await loadConfig(options.config);
    const reporters: Reporter[] = [consoleReporter({ verbose: options.verbose })];
    if (options.report) reporters.push(fileReporter(options.report));
    const selection: Selection = options.grep ? { ids: options.grep } : options.selection;
    const result = await runContractSuite({
      baseUrl: options.baseUrl,
      ...(options.carrierBaseUrl ? { carrierBaseUrl: options.carrierBaseUrl } : {}),
      config,
      profile: options.profile,
      selection,
      reporters,
      ...(options.seed !== undefined ? { seed: options.seed } : {}),
      notImplemented: options.allowNotImplemented ? 'skip' : 'fail',
    });
    if (options.report) console.log(`reports written to ${options.report}`);
    process.exitCode = result.ok ? 0 : 1;
  },
);

program.parseAsync().catch((error: unknown) => {
  console.error(`restoapi-contract: ${(error as Error).message}`);
  process.exit(2);
});
