/**
 * The proxy's tally: requests and violations per operation, served at `GET /__proxy/report`, printed on
 * exit and written as JUnit XML and HTML (`--report DIR`).
 */
import type { Violation } from './violation.js';

/** Requests and violations of one operation (or of the requests no operation matched). */
export interface OperationTally {
  /** `null` for requests to paths the document does not describe. */
  operationId: string | null;
  /** `GET /api/orders/{id}`, or `(undocumented)`. */
  route: string;
  requests: number;
  /** Requests with at least one violation. */
  failed: number;
  violations: Violation[];
}

/** The whole report (the body of `GET /__proxy/report`). */
export interface ProxyReportJson {
  upstream: string;
  startedAt: string;
  requests: number;
  /** Requests with at least one violation (upstream failures included). */
  failed: number;
  violations: number;
  /** Upstream failures by kind: `unreachable`, `timeout`, `not_json`. */
  upstreamFailures: Record<string, number>;
  operations: OperationTally[];
}

/** Most violations kept per operation: enough to read, bounded in memory on a long run. */
const KEPT_PER_OPERATION = 200;

/** The proxy's running tally of what it saw. */
export class ProxyReport {
  readonly #operations = new Map<string, OperationTally & { dropped: number }>();
  readonly #upstreamFailures: Record<string, number> = {};
  readonly #startedAt = new Date().toISOString();
  #requests = 0;
  #failed = 0;
  #violations = 0;

  constructor(private readonly upstream: string) {}

  /** Counts one exchange and its violations. */
  add(operation: { operationId: string; method: string; path: string } | undefined, violations: Violation[]): void {
    const key = operation?.operationId ?? '';
    let tally = this.#operations.get(key);
    if (!tally) {
      tally = {
        operationId: operation?.operationId ?? null,
        route: operation ? `${operation.method.toUpperCase()} ${operation.path}` : '(undocumented)',
        requests: 0,
        failed: 0,
        violations: [],
        dropped: 0,
      };
      this.#operations.set(key, tally);
    }
    this.#requests += 1;
    tally.requests += 1;
    if (violations.length === 0) return;
    this.#failed += 1;
    tally.failed += 1;
    this.#violations += violations.length;
    for (const violation of violations) {
      if (violation.side === 'upstream')
        this.#upstreamFailures[violation.keyword] = (this.#upstreamFailures[violation.keyword] ?? 0) + 1;
      if (tally.violations.length < KEPT_PER_OPERATION) tally.violations.push(violation);
      else tally.dropped += 1;
    }
  }

  /** The report as JSON, operations with violations first. */
  toJSON(): ProxyReportJson {
    const operations = [...this.#operations.values()]
      .map(({ dropped: _dropped, ...tally }) => ({ ...tally, violations: [...tally.violations] }))
      .sort((a, b) => b.failed - a.failed || a.route.localeCompare(b.route));
    return {
      upstream: this.upstream,
      startedAt: this.#startedAt,
      requests: this.#requests,
      failed: this.#failed,
      violations: this.#violations,
      upstreamFailures: { ...this.#upstreamFailures },
      operations,
    };
  }
}

/** The report as the few lines printed on exit. */
export function reportSummary(report: ProxyReportJson): string {
  const failures = Object.entries(report.upstreamFailures)
    .map(([kind, count]) => `${count} ${kind}`)
    .join(', ');
  const lines = [
    `restoapi-mock proxy: ${report.requests} requests to ${report.upstream}, ${report.failed} with violations (${report.violations} violations${failures ? `; upstream failures: ${failures}` : ''})`,
  ];
  for (const op of report.operations) {
    if (op.failed === 0) continue;
    const keywords = new Map<string, number>();
    for (const v of op.violations) {
      const key = `${v.side} ${v.pointer || '(whole)'} ${v.keyword}`;
      keywords.set(key, (keywords.get(key) ?? 0) + 1);
    }
    lines.push(`  ${op.route}: ${op.failed} of ${op.requests} requests`);
    for (const [key, count] of keywords) lines.push(`    ${count}× ${key}`);
  }
  return lines.join('\n');
}
