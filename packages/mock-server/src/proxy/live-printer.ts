/**
 * The proxy's live output: one line per violation, as it is seen, so that a tester watching the terminal
 * knows which request broke the contract.
 */
import type { Violation } from './violation.js';

/**
 * One violation as one line: method, path, operation, where, what was expected and what came.
 * @example
 * formatViolation(v); // 'GET /api/orders/5001 (getOrder) response /order/status: expected one of […], got "shipped"'
 */
export function formatViolation(violation: Violation): string {
  const where = `${violation.side} ${violation.pointer === '' ? '(whole)' : violation.pointer}`;
  const operation = violation.operationId ?? 'undocumented';
  return `[violation] ${violation.method} ${violation.path} (${operation}) ${where}: expected ${violation.expected}, got ${violation.actual}`;
}
