import { createApiDescription, listDecisions, openapiDocument } from '@restoapi/openapi';
import { resolveConfig, type ResolvedConfig } from '../config.js';
import { ControlClient, ControlError } from '../control.js';
import { CLAUSES } from '../generated/clauses.js';
import { allTests } from '../tests/index.js';
import { CheckFailure, SkipSignal, TestContext, type ContractTest, type SuiteRuntime } from './context.js';
import { isReadingError, readingFailure } from './crash.js';
import { reproducers, shownExchanges } from './curl.js';
import { CheckingHttp, CoverageRecorder, NotImplementedSignal, type RequestSink } from './http.js';
import { IncompleteSignal, measureRoundTrip, settled, TestBudget, type Overrun } from './budget.js';
import { VerdictSettings, type Relaxation } from './verdict.js';
import type {
  ClauseCoverage,
  DecisionCoverage,
  DecisionWarningGroup,
  OperationCoverage,
  Profile,
  RunOptions,
  Selection,
  Shard,
  SuiteResult,
  TestResult,
} from './types.js';

function wildcard(pattern: string): RegExp {
  return new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );
}

/** The name a selection is reported under. */
export function selectionName(selection: Selection | undefined): string {
  if (selection === undefined) return 'all';
  return typeof selection === 'string' ? selection : JSON.stringify(selection);
}

/** The clauses a test covers under a profile: a spec run leaves out those it checks under full only. */
export function clausesUnder(profile: Profile, test: ContractTest): string[] {
  const fullOnly = test.fullOnlyClauses;
  if (profile === 'full' || !fullOnly?.length) return test.clauses;
  return test.clauses.filter((clause) => !fullOnly.includes(clause));
}

/** The tests a profile and a selection run, in registry order. */
export function selectTests(
  profile: Profile,
  selection: Selection = 'all',
  tests: ContractTest[] = allTests(),
): ContractTest[] {
  const inProfile = tests.filter((test) => profile === 'full' || test.profile === 'spec');
  if (selection === 'all') return inProfile;
  if (selection === 'schema-only') return inProfile.filter((test) => test.kind === 'conformance');
  if (selection === 'behaviour')
    return inProfile.filter((test) => test.kind === 'behaviour' || test.kind === 'decision');
  if (selection === 'negative') return inProfile.filter((test) => test.kind === 'negative');
  if (selection === 'stateful') return inProfile.filter((test) => test.kind === 'stateful');
  const ids = selection.ids?.map(wildcard);
  const clauses = selection.clauses?.map(wildcard);
  return inProfile.filter(
    (test) =>
      (!ids || ids.some((re) => re.test(test.id))) &&
      (!clauses || test.clauses.some((clause) => clauses.some((re) => re.test(clause)))) &&
      (!selection.operations || test.operations.some((op) => selection.operations!.includes(op))) &&
      (!selection.kinds || selection.kinds.includes(test.kind)),
  );
}

/** Parses `k/n` (1 ≤ k ≤ n); the message names the option so a CLI can report a bad invocation. */
export function parseShard(spec: string): Shard {
  const match = /^(\d+)\/(\d+)$/.exec(spec.trim());
  const index = Number(match?.[1]);
  const total = Number(match?.[2]);
  if (!match || total < 1 || index < 1 || index > total)
    throw new Error(`--shard expects k/n with 1 ≤ k ≤ n (for example 2/4), not ${JSON.stringify(spec)}`);
  return { index, total };
}

/** The k-th of n shares of the tests: every n-th test in registry order, so each share mixes fast and slow kinds. */
export function shardOf<T>(tests: T[], shard: Shard | undefined): T[] {
  if (!shard) return tests;
  return tests.filter((_, i) => i % shard.total === shard.index - 1);
}

/** How long a stopped test has to settle (its requests fail at once) before the next test starts anyway. */
const STOP_GRACE_MS = 5_000;

/** Fails fast (instead of skipping every test) when the target or its control API cannot be reached. */
async function preflight(fetchImpl: typeof fetch, baseUrl: string, control: ControlClient | undefined): Promise<void> {
  try {
    await fetchImpl(`${baseUrl}/api/session`, { signal: AbortSignal.timeout(10_000) });
  } catch (error) {
    // fetch says only "fetch failed"; the reason (ECONNREFUSED, ENOTFOUND…) is in its cause.
    const reason = (error as { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
    throw new Error(`cannot reach the implementation at ${baseUrl}: ${reason}`);
  }
  if (!control) return;
  let status: number | undefined;
  try {
    status = (await control.typed.GET('/__mock/config')).response.status;
  } catch {
    // reported below
  }
  if (status !== 200) {
    throw new Error(
      `the control API at ${control.baseUrl} does not answer (GET /config: ${status ?? 'unreachable'}); set capabilities.controlApi to false for an implementation without one`,
    );
  }
}

function unmetNeed(test: ContractTest, config: ResolvedConfig): string | undefined {
  for (const need of test.needs ?? []) {
    if (need === 'controlApi' && !config.capabilities.controlApi)
      return 'needs the control API (capabilities.controlApi)';
    if (need === 'mutations' && !config.capabilities.mutations)
      return 'changes data, but capabilities.mutations is false';
    if (need === 'menuImport' && !config.capabilities.menuImport)
      return 'replaces the draft menu, but capabilities.menuImport is false';
    if (need === 'carrierApi' && !config.capabilities.carrierApi)
      return 'needs the carrier API (capabilities.carrierApi)';
    if (need === 'foreignOrganization' && !config.foreignOrganization)
      return 'needs foreignOrganization in the configuration';
    if (need.startsWith('role:') && !config.accounts[need.slice(5) as keyof ResolvedConfig['accounts']])
      return `needs an account for the role ${need.slice(5)}`;
  }
  return undefined;
}

/**
 * Runs the contract suite against an implementation and answers a structured
 * result (also handed to the reporters).
 * @example
 * const mock = createMock();
 * const result = await runContractSuite({ baseUrl: 'http://mock.local', fetch: mock.fetch, config, profile: 'full' });
 */
export async function runContractSuite(options: RunOptions): Promise<SuiteResult> {
  const started = Date.now();
  const profile = options.profile ?? 'spec';
  const baseUrl = options.baseUrl.replace(/\/$/, '');
  const carrierBaseUrl = (options.carrierBaseUrl ?? `${baseUrl}/api-delivery`).replace(/\/$/, '');
  const config = resolveConfig(options.config, baseUrl);
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 31);
  const fetchImpl = options.fetch ?? globalThis.fetch;
  // Every request of a test (API and control API) goes through the test's budget, which stops them with it.
  let budget: TestBudget | undefined;
  const budgeted: typeof fetch = (input, init) =>
    budget ? budget.send(fetchImpl, input, init) : fetchImpl(input, init);
  const validator = createApiDescription();
  const coverage = new CoverageRecorder();
  const verdict = new VerdictSettings(config, validator);
  const http = new CheckingHttp({
    verdict,
    fetch: budgeted,
    baseUrl,
    carrierBaseUrl,
    validator,
    profile,
    coverage,
    requestMs: config.timeouts.requestMs,
    notImplemented: options.notImplemented ?? 'fail',
  });
  const runtime: SuiteRuntime = {
    config,
    profile,
    seed,
    http,
    validator,
    verdict,
    control: config.capabilities.controlApi ? new ControlClient(config.capabilities.controlApi, budgeted) : undefined,
    sessions: new Map(),
    stateful: {
      runs: options.stateful?.runs ?? config.stateful.runs,
      maxCommands: options.stateful?.maxCommands ?? config.stateful.maxCommands,
      ...(options.stateful?.replay ? { replay: options.stateful.replay } : {}),
      ...(options.stateful?.arazzo ? { arazzo: options.stateful.arazzo } : {}),
    },
  };
  await preflight(fetchImpl, baseUrl, runtime.control);
  const roundTrip = await measureRoundTrip(fetchImpl, `${baseUrl}/api/session`);
  const allowanceMs = config.timeouts.perRequestMs ?? roundTrip.allowanceMs;
  if (options.shard) parseShard(`${options.shard.index}/${options.shard.total}`);
  const tests = shardOf(selectTests(profile, options.selection ?? 'all'), options.shard);
  const results: TestResult[] = [];
  for (const reporter of options.reporters ?? []) reporter.onStart?.({ total: tests.length, profile });

  for (const [index, test] of tests.entries()) {
    for (const reporter of options.reporters ?? [])
      reporter.onTestStart?.({ id: test.id, title: test.title, kind: test.kind }, index);
    const testStarted = Date.now();
    const sink: RequestSink = {
      violations: [],
      failures: [],
      warnings: [],
      decisionWarnings: [],
      requests: 0,
      log: [],
      exchanges: [],
    };
    http.sink = sink;
    const result: TestResult = {
      id: test.id,
      title: test.title,
      kind: test.kind,
      profile: test.profile,
      clauses: clausesUnder(profile, test),
      decisions: test.decisions ?? [],
      operations: test.operations,
      status: 'passed',
      durationMs: 0,
      warnings: sink.warnings,
      decisionWarnings: sink.decisionWarnings!,
      requests: 0,
    };
    const reason = unmetNeed(test, config);
    if (reason) {
      result.status = 'skipped';
      result.skipReason = reason;
    } else {
      const t = new TestContext(runtime, test);
      const testBudget = new TestBudget(test.id, test.timeoutMs ?? config.timeouts.testMs, allowanceMs);
      budget = testBudget;
      const work = (async () => {
        if (runtime.control && config.capabilities.resetBetweenTests) {
          await runtime.control.reset();
          runtime.sessions.clear();
        }
        await test.run(t);
      })();
      let error: unknown;
      let overrun: Overrun | undefined;
      try {
        const outcome = await testBudget.watch(work);
        if ('overrun' in outcome) overrun = outcome.overrun;
      } catch (caught) {
        error = caught;
      }
      // Nothing of a test runs on behind it: whatever it still has in flight (parallel requests of a failed
      // test, a stopped test's next steps) is aborted, and the next test starts once it has settled.
      testBudget.stop(`${test.id} has ended`);
      if (!(await settled(work, STOP_GRACE_MS)))
        sink.warnings.push(`${test.id} did not settle within ${STOP_GRACE_MS} ms of being stopped`);
      if (overrun) runtime.sessions.clear();
      // The reproducers are the test's own requests, not those of its cleanups.
      const exchanges = [...(sink.exchanges ?? [])];
      budget = new TestBudget(`the cleanups of ${test.id}`, config.timeouts.testMs, allowanceMs);
      await budget.watch(t.runCleanups());
      budget.stop(`the cleanups of ${test.id} have ended`);
      budget = undefined;
      const problems = [
        ...sink.failures,
        ...sink.violations.map((v) => `${v.method} ${v.path} → ${v.status}: ${v.message}`),
      ];
      const incomplete =
        overrun?.verdict === 'incomplete'
          ? overrun.message
          : error instanceof IncompleteSignal && !overrun
            ? error.reason
            : undefined;
      if (overrun?.verdict === 'failed' || (incomplete !== undefined && problems.length > 0))
        error = new CheckFailure(overrun?.message ?? incomplete!);
      if (incomplete !== undefined && problems.length === 0) {
        // Slowness alone fails nothing; the test proved too little to pass, and says why.
        result.status = 'incomplete';
        result.incompleteReason = incomplete;
        sink.warnings.push(`incomplete: ${incomplete}`);
      } else if (error instanceof SkipSignal && problems.length === 0) {
        result.status = 'skipped';
        result.skipReason = error.reason;
      } else if (error instanceof NotImplementedSignal) {
        result.status = 'skipped';
        result.skipReason = `${error.operationId} is not implemented yet (501)`;
      } else if (error instanceof ControlError) {
        result.status = 'skipped';
        result.skipReason = `control API: ${error.message}`;
      } else if (error !== undefined || problems.length > 0) {
        result.status = 'failed';
        const message =
          error === undefined || error instanceof SkipSignal
            ? undefined
            : error instanceof CheckFailure
              ? error.message
              : isReadingError(error)
                ? readingFailure(error, problems, exchanges)
                : `${(error as Error)?.stack ?? String(error)}`;
        result.failure = [message, ...problems.map((p) => `schema/server: ${p}`)].filter(Boolean).join('\n');
        if (sink.log.length) result.failure += `\nrequests:\n  ${sink.log.slice(-12).join('\n  ')}`;
        result.reproducers = reproducers(exchanges, options.showSecrets);
        result.exchanges = shownExchanges(exchanges, options.showSecrets);
      }
    }
    http.sink = undefined;
    result.requests = sink.requests;
    result.durationMs = Date.now() - testStarted;
    results.push(result);
    for (const reporter of options.reporters ?? []) reporter.onTestEnd?.(result);
  }

  const suite = summarize({
    baseUrl,
    carrierBaseUrl,
    profile,
    selection: selectionName(options.selection),
    seed,
    ...(options.shard ? { shard: options.shard } : {}),
    started,
    results,
    coverage,
    validator,
    relaxations: verdict.relaxations(),
  });
  for (const reporter of options.reporters ?? []) await reporter.onEnd?.(suite);
  return suite;
}

/** The decision warnings of a set of results, one group per decision, most frequent first. */
export function groupWarningsByDecision(results: TestResult[]): DecisionWarningGroup[] {
  const groups = new Map<string, DecisionWarningGroup>();
  for (const result of results) {
    for (const warning of result.decisionWarnings ?? []) {
      let group = groups.get(warning.decision);
      if (!group) {
        group = {
          decision: warning.decision,
          entry: warning.entry,
          summary: warning.summary,
          count: 0,
          tests: [],
          operations: [],
          examples: [],
        };
        groups.set(warning.decision, group);
      }
      group.count += 1;
      if (!group.tests.includes(result.id)) group.tests.push(result.id);
      if (!group.operations.includes(warning.operationId)) group.operations.push(warning.operationId);
      const example = `${warning.method} ${warning.path} → ${warning.status}: ${warning.message}`;
      if (group.examples.length < 3 && !group.examples.includes(example)) group.examples.push(example);
    }
  }
  return [...groups.values()].sort((a, b) => b.count - a.count || a.decision.localeCompare(b.decision));
}

/** Clause and decision coverage of a set of results (also of merged shards). */
export function traceability(results: TestResult[]): { clauses: ClauseCoverage[]; decisions: DecisionCoverage[] } {
  const clauses: ClauseCoverage[] = CLAUSES.map((clause) => {
    const tests = results.filter((r) => r.clauses.includes(clause.id)).map((r) => ({ id: r.id, status: r.status }));
    const state: ClauseCoverage['state'] =
      tests.length === 0
        ? 'uncovered'
        : tests.some((x) => x.status === 'failed')
          ? 'failed'
          : tests.some((x) => x.status === 'passed')
            ? 'covered'
            : 'skipped';
    return { id: clause.id, section: clause.section, text: clause.text, notShown: clause.notShown, tests, state };
  });
  const decisions: DecisionCoverage[] = listDecisions(openapiDocument).map((d) => ({
    pointer: d.pointer,
    where: d.where,
    tests: results.filter((r) => r.decisions.includes(d.pointer)).map((r) => ({ id: r.id, status: r.status })),
  }));
  return { clauses, decisions };
}

/** Counts and verdict of a set of results. */
export function tally(results: TestResult[]): Pick<SuiteResult, 'summary' | 'ok'> {
  const count = (status: TestResult['status']): number => results.filter((r) => r.status === status).length;
  return {
    summary: {
      total: results.length,
      passed: count('passed'),
      failed: count('failed'),
      skipped: count('skipped'),
      incomplete: count('incomplete'),
      warnings: results.reduce((n, r) => n + r.warnings.length, 0),
    },
    // A run in which nothing passed proves nothing.
    ok: count('failed') === 0 && count('passed') > 0,
  };
}

function summarize(input: {
  baseUrl: string;
  carrierBaseUrl: string;
  profile: Profile;
  selection: string;
  seed: number;
  shard?: Shard;
  started: number;
  results: TestResult[];
  coverage: CoverageRecorder;
  validator: ReturnType<typeof createApiDescription>;
  relaxations: Relaxation[];
}): SuiteResult {
  const { results } = input;
  const operations: OperationCoverage[] = input.validator.operations.map((op) => {
    const seen = input.coverage.calls.get(op.operationId);
    return {
      operationId: op.operationId,
      method: op.method.toUpperCase(),
      route: op.kind === 'webhooks' ? `callback ${op.path}` : (op.routes[0] ?? op.path),
      documentedStatuses: op.responses.map((r) => r.status),
      seenStatuses: Object.fromEntries(seen?.statuses ?? []),
      calls: seen?.calls ?? 0,
    };
  });
  const { clauses, decisions } = traceability(results);
  return {
    baseUrl: input.baseUrl,
    carrierBaseUrl: input.carrierBaseUrl,
    profile: input.profile,
    selection: input.selection,
    seed: input.seed,
    ...(input.shard ? { shard: input.shard } : {}),
    startedAt: new Date(input.started).toISOString(),
    durationMs: Date.now() - input.started,
    results,
    ...tally(results),
    operations,
    clauses,
    decisions,
    warningsByDecision: groupWarningsByDecision(results),
    relaxations: input.relaxations,
  };
}
