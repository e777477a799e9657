import type { SuiteResult } from '../runner/types.js';

/** Clause coverage figures: covered (a passing test and no failing one) out of all clauses. */
export function clauseFigures(result: SuiteResult): {
  covered: number;
  total: number;
  testable: number;
  failed: number;
  skipped: number;
  uncovered: number;
} {
  const count = (state: string): number => result.clauses.filter((c) => c.state === state).length;
  return {
    covered: count('covered'),
    total: result.clauses.length,
    testable: result.clauses.filter((c) => !c.notShown).length,
    failed: count('failed'),
    skipped: count('skipped'),
    uncovered: count('uncovered'),
  };
}

/** Operations exercised, and documented statuses seen. */
export function operationFigures(result: SuiteResult): {
  exercised: number;
  total: number;
  statusesSeen: number;
  statusesDocumented: number;
} {
  const exercised = result.operations.filter((o) => o.calls > 0).length;
  let seen = 0;
  let documented = 0;
  for (const op of result.operations) {
    for (const status of op.documentedStatuses) {
      documented += 1;
      if (Object.keys(op.seenStatuses).some((s) => s === status || (status.endsWith('XX') && s[0] === status[0])))
        seen += 1;
    }
  }
  return { exercised, total: result.operations.length, statusesSeen: seen, statusesDocumented: documented };
}
