/**
 * Progress while the suite runs. Against a real service a run takes minutes; without this the console
 * stays silent until the summary. On a terminal one line is redrawn in place: tests done of total,
 * failures so far, the current test and its elapsed time. In CI logs, where redrawing makes a mess, one
 * line is printed per finished group of tests (`schema`, `session`, `orders`, … the first part of the id).
 */
import type { Reporter, TestResult } from '../runner/types.js';

/** Where progress goes: a stream, and whether it is a terminal (and how wide). */
export interface ProgressStream {
  write(text: string): unknown;
  isTTY?: boolean;
  columns?: number;
}

/** Options of {@link progressReporter}. */
export interface ProgressOptions {
  /** Where to write (default `process.stdout`). */
  stream?: ProgressStream;
  /** `tty`: redraw one line; `lines`: one line per finished group; default `tty` when the stream is a terminal. */
  mode?: 'tty' | 'lines';
  /** Milliseconds between redraws of the elapsed time on a terminal (default 200). */
  intervalMs?: number;
  /** The clock (tests of the reporter pass their own). */
  now?: () => number;
}

/** A reporter that also lets other output through without tearing its line. */
export interface ProgressReporter extends Reporter {
  /** Clears the live line on a terminal (the next redraw brings it back). */
  clear(): void;
}

/** The group of a test: the first part of its id (`orders.pagination-meta` → `orders`). */
export function testGroup(id: string): string {
  const dot = id.indexOf('.');
  return dot === -1 ? id : id.slice(0, dot);
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`;
}

const CLEAR_LINE = '\r\u001b[2K';

/** Live progress on a terminal, one line per group elsewhere (see the module comment). */
export function progressReporter(options: ProgressOptions = {}): ProgressReporter {
  const stream = options.stream ?? process.stdout;
  const mode = options.mode ?? (stream.isTTY ? 'tty' : 'lines');
  const now = options.now ?? Date.now;
  const intervalMs = options.intervalMs ?? 200;
  let total = 0;
  let done = 0;
  let failed = 0;
  let current: { id: string; started: number } | undefined;
  let drawn = false;
  let timer: ReturnType<typeof setInterval> | undefined;
  let group: { name: string; started: number; results: TestResult[] } | undefined;

  const counter = (): string => `[${String(done).padStart(String(total).length)}/${total}]`;
  const draw = (): void => {
    if (!current) return;
    const failures = failed === 0 ? 'no failures' : `${failed} failed`;
    let line = `${counter()} ${failures} · ${current.id} ${seconds(now() - current.started)}`;
    const columns = stream.columns ?? 0;
    if (columns > 1 && line.length > columns - 1) line = `${line.slice(0, columns - 2)}…`;
    stream.write(`${CLEAR_LINE}${line}`);
    drawn = true;
  };
  const clear = (): void => {
    if (mode === 'tty' && drawn) stream.write(CLEAR_LINE);
    drawn = false;
  };
  const stopTimer = (): void => {
    if (timer) clearInterval(timer);
    timer = undefined;
  };
  const endGroup = (): void => {
    if (!group) return;
    const count = (status: TestResult['status']): TestResult[] => group!.results.filter((r) => r.status === status);
    const failures = count('failed');
    const parts = [`${count('passed').length} passed`];
    if (failures.length) parts.push(`${failures.length} failed: ${failures.map((r) => r.id).join(', ')}`);
    if (count('skipped').length) parts.push(`${count('skipped').length} skipped`);
    if (count('incomplete').length) parts.push(`${count('incomplete').length} incomplete`);
    const warnings = group.results.reduce((n, r) => n + r.warnings.length, 0);
    if (warnings) parts.push(`${warnings} warning${warnings === 1 ? '' : 's'}`);
    const n = group.results.length;
    stream.write(
      `${counter()} ${group.name}: ${n} test${n === 1 ? '' : 's'} (${parts.join(', ')}) in ${seconds(now() - group.started)}\n`,
    );
    group = undefined;
  };

  return {
    clear,
    onStart(info) {
      total = info.total;
    },
    onTestStart(test) {
      current = { id: test.id, started: now() };
      if (mode === 'tty') {
        draw();
        stopTimer();
        timer = setInterval(draw, intervalMs);
        // Never what keeps the process alive.
        timer.unref?.();
        return;
      }
      const name = testGroup(test.id);
      if (group?.name !== name) {
        endGroup();
        group = { name, started: now(), results: [] };
      }
    },
    onTestEnd(result) {
      done += 1;
      if (result.status === 'failed') failed += 1;
      current = undefined;
      if (mode === 'tty') {
        stopTimer();
        // Cleared, so that a reporter after this one can print the failure on a clean line.
        clear();
      } else group?.results.push(result);
    },
    onEnd() {
      stopTimer();
      if (mode === 'tty') clear();
      else endGroup();
    },
  };
}
