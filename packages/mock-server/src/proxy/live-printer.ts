/**
 * The proxy's live output: one line per violation, as it is seen, so that a tester watching the terminal
 * knows which request broke the contract.
 */
import type { Violation } from './violation.js';

/** The decision an issue departs from, in the words of a line. */
function decided(violation: Violation, verb: string): string {
  const d = violation.decision;
  return d ? ` — ${verb}: ${d.summary} (openapi/${d.entry})` : '';
}

/**
 * One decided departure under the `spec` profile as one line, like {@link formatViolation} with the
 * decision it departs from.
 * @example
 * formatWarning(w); // '[warning] POST /api/organizations/1/publish (publishMenu) response (whole): expected …, got 204 — the spec does not state this, the document decided: … (openapi/DECISIONS.md#…)'
 */
export function formatWarning(warning: Violation): string {
  return `[warning] ${describe(warning)}${decided(warning, 'the spec does not state this, the document decided')}`;
}

function describe(violation: Violation): string {
  const where = `${violation.side} ${violation.pointer === '' ? '(whole)' : violation.pointer}`;
  const operation = violation.operationId ?? 'undocumented';
  return `${violation.method} ${violation.path} (${operation}) ${where}: expected ${violation.expected}, got ${violation.actual}`;
}

/**
 * One violation as one line: method, path, operation, where, what was expected and what came (and, under
 * the `full` profile, the decision it breaks).
 * @example
 * formatViolation(v); // 'GET /api/orders/5001 (getOrder) response /order/status: expected one of […], got "shipped"'
 */
export function formatViolation(violation: Violation): string {
  return `[violation] ${describe(violation)}${decided(violation, 'breaks a decision of the document')}`;
}
