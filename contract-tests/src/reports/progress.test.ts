import { afterEach, expect, test, vi } from 'vitest';
import type { TestResult } from '../runner/types.js';
import { progressReporter, type ProgressStream } from './progress.js';

afterEach(() => vi.useRealTimers());

function stream(isTTY: boolean, columns?: number): ProgressStream & { text: string } {
  const out = {
    text: '',
    isTTY,
    ...(columns ? { columns } : {}),
    write(chunk: string) {
      out.text += chunk;
      return true;
    },
  };
  return out;
}

function result(id: string, status: TestResult['status'], warnings: string[] = []): TestResult {
  return {
    id,
    title: id,
    kind: 'behaviour',
    profile: 'spec',
    clauses: [],
    decisions: [],
    operations: [],
    status,
    durationMs: 0,
    warnings,
    requests: 0,
  };
}

/** Runs tests through the reporter: each takes `ms` of the fake clock. */
function play(reporter: ReturnType<typeof progressReporter>, tests: [string, TestResult['status'], number][]): void {
  reporter.onStart!({ total: tests.length, profile: 'spec' });
  for (const [index, [id, status, ms]] of tests.entries()) {
    reporter.onTestStart!({ id, title: id, kind: 'behaviour' }, index);
    vi.advanceTimersByTime(ms);
    reporter.onTestEnd!(
      result(
        id,
        status,
        id === 'orders.list' ? ['GET /api/orders → 404: … (deviates from a decision of the document)'] : [],
      ),
    );
  }
}

test('on a terminal one line is redrawn: done of total, failures so far, the current test and its elapsed time', () => {
  vi.useFakeTimers();
  const out = stream(true);
  const reporter = progressReporter({ stream: out, intervalMs: 500 });
  play(reporter, [
    ['session.lifecycle', 'failed', 300],
    ['orders.list', 'passed', 1200],
  ]);
  reporter.onEnd!(undefined as never);
  const frames = out.text.split('\r\u001b[2K').filter(Boolean);
  expect(frames).toEqual([
    '[0/2] no failures · session.lifecycle 0.0 s',
    '[1/2] 1 failed · orders.list 0.0 s',
    '[1/2] 1 failed · orders.list 0.5 s',
    '[1/2] 1 failed · orders.list 1.0 s',
  ]);
  // Nothing but redraws: no newline, and the line is cleared at the end for the summary.
  expect(out.text).not.toContain('\n');
  expect(out.text.endsWith('\r\u001b[2K')).toBe(true);
});

test('a line wider than the terminal is cut to its width', () => {
  vi.useFakeTimers();
  const out = stream(true, 30);
  const reporter = progressReporter({ stream: out });
  reporter.onStart!({ total: 141, profile: 'spec' });
  reporter.onTestStart!({ id: 'scope.by-id-never-shows-foreign-records', title: '', kind: 'behaviour' }, 0);
  expect(out.text).toBe('\r\u001b[2K[  0/141] no failures · scop…');
  expect(out.text.length - '\r\u001b[2K'.length).toBe(29);
  reporter.onEnd!(undefined as never);
});

test('in a log (not a terminal) one line per finished group: counts, the failed tests by id, warnings and time', () => {
  vi.useFakeTimers();
  const out = stream(false);
  const reporter = progressReporter({ stream: out });
  play(reporter, [
    ['session.lifecycle', 'failed', 300],
    ['session.token-query', 'passed', 200],
    ['orders.list', 'passed', 1200],
    ['orders.pagination', 'skipped', 0],
  ]);
  reporter.onEnd!(undefined as never);
  expect(out.text).toBe(
    [
      '[2/4] session: 2 tests (1 passed, 1 failed: session.lifecycle) in 0.5 s',
      '[4/4] orders: 2 tests (1 passed, 1 skipped, 1 warning) in 1.2 s',
      '',
    ].join('\n'),
  );
  expect(out.text).not.toContain('\r');
});
