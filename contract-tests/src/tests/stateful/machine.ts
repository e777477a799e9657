/**
 * The engine of the model-based stateful tests: fast-check generates
 * sequences of commands, each command calls the API and compares every answer
 * with a small model of the state, and a failing sequence is shrunk to the
 * shortest one and printed as numbered requests with their answers.
 */
import fc from 'fast-check';
import { CheckFailure, SkipSignal, type TestContext } from '../../runner/context.js';
import type { Rec } from '../../runner/fixtures.js';
import type { Exchange } from '../../runner/http.js';
import { isReadingError, readingFailure } from '../../runner/crash.js';
import { maskAnswer } from '../../runner/curl.js';
import { writeArazzo } from './arazzo.js';

/** A command of a machine: when it applies to the model, and what it does to the API and the model. */
export interface Step<M> {
  /** How the command prints in a sequence, e.g. `deleteDish(#2)`. */
  label: string;
  /** Whether the command applies to this state of the model (default: always). */
  applies?(model: M): boolean;
  run(model: M, t: TestContext): Promise<void>;
  /** A command that changes state: the machine's `observe` reads everything back after it. */
  writes?: boolean;
}

/** A stateful test's machine: how to start a model from the implementation, and its command generators. */
export interface Machine<M extends object> {
  /** Brings the implementation to a known state (a reset when there is a control API) and reads the model off it. */
  init(t: TestContext): Promise<M>;
  commands(t: TestContext): fc.Arbitrary<Step<M>>[];
  /** Reads the lists after every write and compares them with the model (a fault shows right where it starts). */
  observe?(model: M, t: TestContext): Promise<void>;
  /** The commands left out under this configuration, said in the result's warnings. */
  skipped?(t: TestContext): string[];
  /**
   * What only the `full` profile checks, because the spec is silent and only a decision fixes it: left out
   * under `spec` (said in the result's warnings), so an implementation that decides otherwise still passes.
   */
  decidedOnly?: string[];
  /** How many sequences to run of the configured number (a machine whose commands wait in real time runs fewer). */
  runs?(t: TestContext, configured: number): number;
  /**
   * The tour: a fixed sequence run first on every run, whatever the seed, so that every write that can change a
   * view comes twice to one record and every view is read after it. Each pattern picks, in order, the first
   * command of a fixed sample of `commands` whose label matches (a pattern no command of this profile matches is
   * left out). At most the configured sequence length (16 by default) of them run.
   */
  tour?: RegExp[];
}

class FcStep<M extends object> implements fc.AsyncCommand<M, TestContext> {
  constructor(
    readonly step: Step<M>,
    private readonly trace: Trace,
    private readonly observe: Machine<M>['observe'],
  ) {}

  check(model: Readonly<M>): boolean {
    return this.step.applies?.(model as M) ?? true;
  }

  async run(model: M, t: TestContext): Promise<void> {
    this.trace.steps.push({ label: this.step.label, from: t.runtime.http.sink?.exchanges?.length ?? 0 });
    await this.step.run(model, t);
    if (this.step.writes && this.observe) await this.observe(model, t);
  }

  toString(): string {
    return this.step.label;
  }
}

interface Trace {
  /** The commands run so far; `index` is a fixed command's place in the list it was given. */
  steps: { label: string; from: number; index?: number }[];
}

/** A stable number per test id, mixed into the run's seed so each stateful test replays alone (and in any shard). */
function seedFor(testId: string, seed: number): number {
  let hash = seed | 0;
  for (const char of testId) hash = (Math.imul(hash, 31) + char.charCodeAt(0)) | 0;
  return hash;
}

function answerOf(exchange: Exchange): string {
  // The printed sequence goes to consoles, CI logs and reports: a login's token is shown as a placeholder.
  const text = maskAnswer(exchange.answer).replace(/\s+/g, ' ').trim();
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** The shrunk sequence as numbered commands, each with its requests and answers. */
export function formatSequence(trace: Trace, exchanges: Exchange[], failure: string): string {
  const lines: string[] = [];
  trace.steps.forEach((step, i) => {
    lines.push(`  ${i + 1}. ${step.label}`);
    const end = trace.steps[i + 1]?.from ?? exchanges.length;
    exchanges.slice(step.from, end).forEach((e, j) => {
      const url = new URL(e.url);
      lines.push(`     ${i + 1}.${j + 1} ${e.method} ${url.pathname}${url.search} → ${e.status} ${answerOf(e)}`);
    });
  });
  lines.push(`  ✘ at step ${trace.steps.length}: ${failure}`);
  return lines.join('\n');
}

/** What the document and the checks found wrong in the answers a sequence got so far. */
function problemsOf(sink: TestContext['runtime']['http']['sink']): string[] {
  return [
    ...(sink?.failures ?? []),
    ...(sink?.violations ?? []).map((v) => `${v.method} ${v.path} → ${v.status}: ${v.message}`),
  ];
}

/** The property of one machine: a generated sequence, run from a fresh state, every answer checked. */
function propertyOf<M extends object>(t: TestContext, machine: Machine<M>, trace: Trace, replayPath?: string) {
  const sink = t.runtime.http.sink;
  const commands = machine.commands(t).map((arb) => arb.map((step) => new FcStep(step, trace, machine.observe)));
  // 'medium' sequences: fast-check's default size makes most sequences a handful of commands long.
  const constraints = {
    maxCommands: t.runtime.stateful.maxCommands,
    size: 'medium' as const,
    ...(replayPath ? { replayPath } : {}),
  };
  return fc.asyncProperty(fc.commands(commands, constraints), async (cmds) => {
    // Each sequence starts afresh: its own trace, its own requests, and the problems of its own answers only.
    trace.steps = [];
    if (sink) {
      sink.violations.length = 0;
      sink.failures.length = 0;
      sink.exchanges = [];
    }
    await t.runCleanups();
    recordControlCalls(t);
    const problems = (): string[] => problemsOf(sink);
    try {
      const model = await machine.init(t);
      await fc.asyncModelRun(() => ({ model, real: t }), cmds);
    } catch (error) {
      // An answer the model could not read fails naming it, like any other test (runner/crash.ts).
      if (isReadingError(error)) throw new CheckFailure(readingFailure(error, problems(), sink?.exchanges ?? []));
      throw error;
    }
    if (problems().length) throw new CheckFailure(problems().join('\n'));
  });
}

/** The control calls of a sequence go into its exchanges too: its printout and its Arazzo workflow show them. */
function recordControlCalls(t: TestContext): void {
  const control = t.runtime.control;
  const sink = t.runtime.http.sink;
  if (!control || !sink) return;
  control.onCall = (call) =>
    sink.exchanges?.push({
      method: call.method,
      url: call.url,
      headers: call.body === undefined ? {} : { 'content-type': 'application/json' },
      ...(call.body === undefined ? {} : { body: call.body }),
      status: call.status,
      answer: call.answer.slice(0, 600),
      fullAnswer: call.answer,
      faulty: false,
      control: call.path,
    });
}

/** `--replay id=PATH/COMMANDS`: fast-check's counterexample path, and the commands' replay path. */
function parseReplay(text: string): { path: string; commands?: string } {
  const [path, commands] = text.split('/');
  return { path: path!, ...(commands ? { commands } : {}) };
}

/** The seed of the sample the tour's commands are picked from: fixed, so the tour is the same on every run. */
const TOUR_SEED = 36;

/** The tour's commands: for each pattern, the first unused command of a fixed sample whose label matches it. */
export function tourOf<M extends object>(t: TestContext, machine: Machine<M>): Step<M>[] {
  const commands = machine.commands(t);
  if (!machine.tour || commands.length === 0) return [];
  const sample = fc.sample(fc.oneof(...commands), { seed: TOUR_SEED, numRuns: 20_000 });
  // By place in the sample: a command without parameters is one object, drawn again and again.
  const used = new Set<number>();
  const tour: Step<M>[] = [];
  for (const pattern of machine.tour) {
    const at = sample.findIndex((s, i) => !used.has(i) && pattern.test(s.label));
    if (at < 0) continue;
    used.add(at);
    tour.push(sample[at]!);
  }
  // The sequence length is a setting for the tour too: a fault that needs more commands is not found.
  return tour.slice(0, t.runtime.stateful.maxCommands);
}

/** Runs fixed commands from a fresh state as one sequence; answers what broke the model, or undefined. */
async function runFixed<M extends object>(
  t: TestContext,
  machine: Machine<M>,
  steps: Step<M>[],
  trace: Trace,
): Promise<Error | undefined> {
  const sink = t.runtime.http.sink;
  trace.steps = [];
  if (sink) {
    sink.violations.length = 0;
    sink.failures.length = 0;
    sink.exchanges = [];
  }
  await t.runCleanups();
  recordControlCalls(t);
  try {
    const model = await machine.init(t);
    for (const [index, step] of steps.entries()) {
      if (!(step.applies?.(model) ?? true)) continue;
      trace.steps.push({ label: step.label, from: sink?.exchanges?.length ?? 0, index });
      await step.run(model, t);
      if (step.writes && machine.observe) await machine.observe(model, t);
    }
    const problems = problemsOf(sink);
    if (problems.length) throw new CheckFailure(problems.join('\n'));
    return undefined;
  } catch (error) {
    if (error instanceof SkipSignal) throw error;
    // As in a generated sequence: an answer the model could not read fails naming it (runner/crash.ts).
    if (isReadingError(error)) return new CheckFailure(readingFailure(error, problemsOf(sink), sink?.exchanges ?? []));
    return error as Error;
  }
}

/**
 * Runs the tour (or the part of it a `--replay id=tour:…` names); when it breaks the model, shrinks it (up to the
 * failing command, then leaving out each command that the failure does not need) and answers the shortest.
 */
async function runTour<M extends object>(
  t: TestContext,
  machine: Machine<M>,
  only?: number[],
): Promise<{ kept: number[]; shrinks: number; error: Error } | undefined> {
  const tour = tourOf(t, machine);
  const steps = (kept: number[]) => kept.map((i) => tour[i]!).filter(Boolean);
  let kept = only ?? tour.map((_, i) => i);
  const trace: Trace = { steps: [] };
  const error = await runFixed(t, machine, steps(kept), trace);
  if (!error) return undefined;
  if (only) return { kept, shrinks: 0, error };
  // The commands that applied, up to the failing one (the last the trace reached): nothing after it matters.
  const ran = new Set(trace.steps.map((s) => s.index));
  kept = kept.filter((_, k) => ran.has(k));
  let shrinks = 0;
  for (let i = 0; i < kept.length;) {
    const without = kept.filter((_, j) => j !== i);
    if (without.length > 0 && (await runFixed(t, machine, steps(without), { steps: [] }))) {
      kept = without;
      shrinks += 1;
    } else i += 1;
  }
  return { kept, shrinks, error };
}

/** Runs a machine: generated sequences, shrinking, and the printed shortest failing sequence with its replay. */
export async function runMachine<M extends object>(t: TestContext, machine: Machine<M>): Promise<void> {
  try {
    await runSequences(t, machine);
  } finally {
    if (t.runtime.control) t.runtime.control.onCall = undefined;
  }
}

async function runSequences<M extends object>(t: TestContext, machine: Machine<M>): Promise<void> {
  const settings = t.runtime.stateful;
  if (!(t.hasControl && t.config.capabilities.resetBetweenTests))
    t.warn(
      'no reset between sequences (no control API): each sequence changes only the records it creates, and deletes them after',
    );
  for (const skipped of machine.skipped?.(t) ?? []) t.warn(`skipped: ${skipped}`);
  if (!t.full)
    for (const decided of machine.decidedOnly ?? []) t.warn(`checked under the full profile only: ${decided}`);
  const seed = seedFor(t.test.id, t.seed);
  const replay = settings.replay?.testId === t.test.id ? parseReplay(settings.replay.path) : undefined;
  const tourReplay = replay?.path.startsWith('tour:')
    ? replay.path.slice(5).split(',').filter(Boolean).map(Number)
    : undefined;
  if (!replay || tourReplay) {
    const failed = await runTour(t, machine, tourReplay);
    if (failed) {
      const tour = tourOf(t, machine);
      const trace: Trace = { steps: [] };
      // The shortest once more, alone, for its printout (a failure that does not come back keeps the first one).
      const error =
        (await runFixed(
          t,
          machine,
          failed.kept.map((i) => tour[i]!),
          trace,
        )) ?? failed.error;
      return reportFailure(t, {
        trace,
        error,
        path: `tour:${failed.kept.join(',')}`,
        how: `the tour, shrunk in ${failed.shrinks} steps`,
      });
    }
    if (tourReplay) {
      t.warn(`replayed sequence ${settings.replay!.path}: it passes now`);
      return;
    }
  }
  // The tour is one of the configured sequences.
  const numRuns = replay ? 1 : (machine.runs?.(t, settings.runs) ?? settings.runs) - (machine.tour ? 1 : 0);
  if (numRuns <= 0) return;
  const details = await fc.check(propertyOf(t, machine, { steps: [] }, replay?.commands), {
    seed,
    numRuns,
    ...(replay ? { path: replay.path, endOnFailure: true } : {}),
  });
  if (!details.failed) {
    if (replay) t.warn(`replayed sequence ${settings.replay!.path}: it passes now`);
    return;
  }
  // fast-check replays a sequence from the run's path and the commands' own replay path (which of them ran).
  const commandsPath = /replayPath="([^"]*)"/.exec(String(details.counterexample?.[0] ?? ''))?.[1] ?? '';
  const path = `${details.counterexamplePath ?? ''}${commandsPath ? `/${commandsPath}` : ''}`;
  // Run the shortest failing sequence once more, alone, so its trace and requests are exactly what is printed.
  const trace: Trace = { steps: [] };
  const again = await fc.check(propertyOf(t, machine, trace, commandsPath || undefined), {
    seed,
    path: details.counterexamplePath ?? '',
    numRuns: 1,
    endOnFailure: true,
  });
  const error = (again.failed ? again.errorInstance : details.errorInstance) as Error | undefined;
  await reportFailure(t, { trace, error, path, how: `shrunk in ${details.numShrinks} steps` });
}

/** Fails the test with the shortest failing sequence: printed, with its replay and (`--arazzo`) its workflow. */
async function reportFailure(
  t: TestContext,
  failed: { trace: Trace; error: Error | undefined; path: string; how: string },
): Promise<never> {
  const { trace, error } = failed;
  const message = (error?.message ?? String(error)).split('\n').slice(0, 3).join(' ');
  const replayArgs = `--seed ${t.seed} --replay ${t.test.id}=${failed.path}`;
  const exchanges = t.runtime.http.sink?.exchanges ?? [];
  const settings = t.runtime.stateful;
  // --arazzo: the same sequence as a workflow that a tool we did not write replays (redocly respect).
  const arazzo = settings.arazzo
    ? await writeArazzo(settings.arazzo, {
        testId: t.test.id,
        replay: replayArgs,
        exchanges,
        failure: (error?.message ?? String(error)).split('\n')[0]!,
        reset: t.hasControl && t.config.capabilities.resetBetweenTests,
      })
    : undefined;
  t.fail(
    `a sequence of ${trace.steps.length} commands breaks the model (${failed.how}; run seed ${t.seed}):\n` +
      `${formatSequence(trace, exchanges, message)}\n` +
      `replay exactly: ${replayArgs}${arazzo ? `\nas an Arazzo workflow: ${arazzo}` : ''}`,
  );
}

/** An optional field of an update whose editability only a decision states: generated under the full profile only. */
export function decided<T>(t: TestContext, arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return t.full ? fc.option(arbitrary, { nil: undefined }) : fc.constant(undefined);
}

/** The n-th of some ids (wrapping), or undefined when there are none. */
export function pick(ids: Iterable<number>, n: number): number | undefined {
  const all = [...ids];
  return all.length === 0 ? undefined : all[n % all.length];
}

/** Compares two sets of ids and names what is missing and what is extra. */
export function sameIds(t: TestContext, actual: Iterable<number>, expected: Iterable<number>, what: string): void {
  const a = new Set(actual);
  const e = new Set(expected);
  const missing = [...e].filter((id) => !a.has(id));
  const extra = [...a].filter((id) => !e.has(id));
  if (missing.length || extra.length)
    t.fail(
      `${what}: ${missing.length ? `missing ${missing.join(', ')}` : ''}${missing.length && extra.length ? '; ' : ''}${extra.length ? `not expected ${extra.join(', ')} (the model has no such record)` : ''}`,
    );
}

/** A listed collection against the model: the same ids, and each listed record as the model has it. */
export function sameRecords<T>(
  t: TestContext,
  listed: Rec[],
  model: Map<number, T>,
  what: string,
  check: (record: Rec, expected: T) => void,
): void {
  for (const [i, record] of listed.entries())
    t.check(
      record !== null && typeof record === 'object',
      `${what}: item ${i} is ${JSON.stringify(record)}, not a record`,
    );
  sameIds(
    t,
    listed.map((r) => r.id as number),
    model.keys(),
    what,
  );
  for (const record of listed) check(record, model.get(record.id as number)!);
}

/** A fresh demo world before a sequence when the control API can reset it. */
export async function fresh(t: TestContext): Promise<void> {
  if (t.hasControl && t.config.capabilities.resetBetweenTests) {
    await t.setup('a fresh demo world', () => t.control.reset());
    t.runtime.sessions.clear();
  }
}

/** Deletes what a sequence created, but only where no reset does it (a shared service). */
export function undo(t: TestContext, fn: () => Promise<unknown>): void {
  if (!(t.hasControl && t.config.capabilities.resetBetweenTests)) t.cleanup(async () => void (await fn()));
}

/** The records a sequence may change: all of them after a reset, else only those it created itself. */
export function editable<T>(t: TestContext, all: Map<number, T>, ours: Set<number>): number[] {
  return [...all.keys()].filter((id) => (t.hasControl && t.config.capabilities.resetBetweenTests) || ours.has(id));
}

/** Deletes a draft dish the sequence may change (a command of the menu and the import machines). */
export function deleteDishStep<M extends { dishes: Map<number, unknown>; ours: Set<number> }>(
  t: TestContext,
): fc.Arbitrary<Step<M>> {
  return fc.nat().map((n) => ({
    label: `deleteDish(pick ${n})`,
    writes: true,
    applies: (m) => editable(t, m.dishes, m.ours).length > 0,
    async run(m, tc) {
      const id = pick(editable(tc, m.dishes, m.ours), n)!;
      tc.status(await (await tc.as('staffMember')).delete(`/api/draft_dishes/${id}`), '2xx', `deleting dish ${id}`);
      m.dishes.delete(id);
      m.ours.delete(id);
    },
  }));
}
