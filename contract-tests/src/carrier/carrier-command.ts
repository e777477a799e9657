/**
 * `restoapi-contract carrier`: the command around {@link runCarrierConformance}.
 * Exit codes: 0 every check passed (or was skipped with its reason), 1 a check failed, 2 a bad invocation or a
 * callback URL where nothing listens.
 */
import { Command, InvalidArgumentError, Option } from 'commander';
import { consoleReporter, fileReporter } from '../reports/reports.js';
import type { Profile, Reporter } from '../runner/types.js';
import { DEFAULT_CARRIER_TIMINGS, runCarrierConformance } from './run-carrier.js';

function wholeNumber(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isInteger(n) || n < 0)
    throw new InvalidArgumentError('expected a whole number of at least 0');
  return n;
}

function httpUrl(value: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new InvalidArgumentError('expected an absolute URL such as http://127.0.0.1:4020/callbacks');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new InvalidArgumentError(`expected an http(s) URL, not ${parsed.protocol}`);
  return parsed;
}

function serviceUrl(value: string): string {
  const parsed = httpUrl(value);
  if (parsed.protocol !== 'http:' || (parsed.pathname !== '/' && parsed.pathname !== '') || parsed.search)
    throw new InvalidArgumentError('expected http://HOST:PORT, the address the service side listens at');
  return parsed.origin;
}

function secret(value: string): string {
  if (!/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(value))
    throw new InvalidArgumentError('expected a Standard Webhooks secret: whsec_ followed by base64');
  return value;
}

/**
 * Prints each check that passed with warnings (under `spec`, its breaks of decisions), with the clauses and
 * decisions it rests on, so a carrier sees what it departs from and why it still passes.
 */
export function warningReporter(write: (text: string) => void): Reporter {
  return {
    onTestEnd(r) {
      if (r.status === 'failed' || r.warnings.length === 0) return;
      write(
        [
          `⚠ ${r.id}: ${r.title}`,
          `  clauses: ${r.clauses.join(' | ')}`,
          ...[...new Set((r.decisionWarnings ?? []).map((w) => `  decision ${w.decision}: ${w.summary}`))],
          ...(r.decisionWarnings ?? []).map((w) => `  warning: ${w.message}`),
        ].join('\n'),
      );
    },
  };
}

/** The `carrier` command of restoapi-contract. */
export function carrierCommand(): Command {
  return new Command('restoapi-contract carrier')
    .description(
      "Plays the service against a carrier's running service: sends it real callbacks, injects duplicates, reordering and refusals, and checks what it does through the carrier API",
    )
    .requiredOption('--callback-url <url>', "the carrier's callback URL (the callbacks are POSTed there)", (v) =>
      httpUrl(v).toString(),
    )
    .option(
      '--service-url <url>',
      'where the service side listens; tell the carrier to use it as {base_url}',
      serviceUrl,
      'http://127.0.0.1:4010',
    )
    .option(
      '--secret <whsec>',
      'the signing secret the carrier verifies: callbacks are signed, forged ones must be refused',
      secret,
    )
    .addOption(
      new Option(
        '--profile <profile>',
        'spec: only what the spec states; full: also the decisions of openapi/DECISIONS.md',
      )
        .choices(['spec', 'full'])
        .default('spec'),
    )
    .option('--report <dir>', 'write junit.xml, traceability.md, traceability.html and result.json to this directory')
    .option(
      '--ack-timeout <ms>',
      'time the carrier has to answer a callback (decided: CallbackAcknowledged)',
      wholeNumber,
      DEFAULT_CARRIER_TIMINGS.ackMs,
    )
    .option(
      '--delivery-timeout <ms>',
      'time the carrier has to load and deliver an order (decided: x-carrier-timing delivery)',
      wholeNumber,
      DEFAULT_CARRIER_TIMINGS.deliveryMs,
    )
    .option(
      '--grace <ms>',
      'time the carrier may still update an order after it acknowledged its cancellation (decided: x-carrier-timing cancellation)',
      wholeNumber,
      DEFAULT_CARRIER_TIMINGS.graceMs,
    )
    .option(
      '--position-interval <ms>',
      'longest time without a courier position while delivering (decided: x-carrier-timing positions)',
      wholeNumber,
      DEFAULT_CARRIER_TIMINGS.positionMs,
    )
    .option(
      '--quiet <ms>',
      'a scenario ends once the carrier made no call for this long',
      wholeNumber,
      DEFAULT_CARRIER_TIMINGS.quietMs,
    )
    .option(
      '--max-repeats <n>',
      'how often the carrier may send a request the service refused with a 4xx',
      wholeNumber,
      3,
    )
    .option(
      '--wait-for-carrier <ms>',
      'how long to wait for something to listen at the callback URL',
      wholeNumber,
      30_000,
    )
    .option('--show-secrets', 'curl reproducers as sent (no placeholders)', false)
    .option('--verbose', 'print every check as it ends', false)
    .showHelpAfterError()
    .exitOverride()
    .action(
      async (options: {
        callbackUrl: string;
        serviceUrl: string;
        secret?: string;
        profile: Profile;
        report?: string;
        ackTimeout: number;
        deliveryTimeout: number;
        grace: number;
        positionInterval: number;
        quiet: number;
        maxRepeats: number;
        waitForCarrier: number;
        showSecrets: boolean;
        verbose: boolean;
      }) => {
        // The main suite's console summary, with the header of this command: no selection, no seed to reproduce.
        const write = (text: string): void =>
          console.log(
            text
              .replace(
                /RestoAPI contract suite: profile (\w+), selection carrier, seed 0/,
                'RestoAPI carrier conformance: profile $1',
              )
              .replace(/\n {2}target {6}(\S+) \(carrier API (\S+)\)/, '\n  service     $1 (carrier API $2)')
              .replace(/\n {2}reproduce {3}--seed 0/, '')
              .replaceAll(
                'reproduce with curl (RESTOAPI_TOKEN: a session token of the same role):',
                "the carrier's calls, as curl:",
              ),
          );
        const reporters: Reporter[] = [warningReporter(write), consoleReporter({ verbose: options.verbose, write })];
        if (options.report) reporters.push(fileReporter(options.report));
        const result = await runCarrierConformance({
          callbackUrl: options.callbackUrl,
          serviceUrl: options.serviceUrl,
          ...(options.secret ? { secret: options.secret } : {}),
          profile: options.profile,
          timings: {
            ackMs: options.ackTimeout,
            deliveryMs: options.deliveryTimeout,
            graceMs: options.grace,
            positionMs: options.positionInterval,
            quietMs: options.quiet,
          },
          maxRepeats: options.maxRepeats,
          waitForCarrierMs: options.waitForCarrier,
          showSecrets: options.showSecrets,
          reporters,
          onScenario({ index, total, name, plays, orderId }) {
            console.log(`  [${index}/${total}] ${name}: ${plays} (order ${orderId})`);
          },
          onListening(url) {
            console.log(
              [
                `restoapi-contract carrier: the service side listens at ${url} (profile ${options.profile})`,
                `  tell the carrier service to use ${url} as the service's base URL (carrier API ${url}/api-delivery)`,
                `  callbacks go to ${options.callbackUrl}${options.secret ? ', signed' : ''}; waiting up to ${options.waitForCarrier} ms for it to listen`,
              ].join('\n'),
            );
          },
        });
        if (options.report) console.log(`reports written to ${options.report}`);
        process.exitCode = result.ok ? 0 : 1;
      },
    );
}
