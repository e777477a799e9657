/**
 * The proxy's tally: requests and violations per operation, served at `GET /__proxy/report`, printed on
 * exit and written as JUnit XML and HTML (`--report DIR`).
 */
import type { ProxyProfile, Violation } from './violation.js';

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
  /** Requests with at least one warning (a decided departure under the `spec` profile). */
  warned: number;
  warnings: Violation[];
}

/** The warnings about one decision: how often and where. */
export interface DecisionTally {
  /** The `x-decision` marker's JSON Pointer. */
  pointer: string;
  /** Its entry: `DECISIONS.md#<anchor>` (in openapi/). */
  entry: string;
  /** The decision's first sentence. */
  summary: string;
  count: number;
  /** Routes of the operations whose answers departed from it. */
  routes: string[];
}

/** The whole report (the body of `GET /__proxy/report`). */
export interface ProxyReportJson {
  upstream: string;
  startedAt: string;
  requests: number;
  /** How answers are judged: `spec` (decided departures are warnings) or `full`. */
  profile: ProxyProfile;
  /** Requests with at least one violation (upstream failures included). */
  failed: number;
  violations: number;
  /** Decided departures under `spec`: warnings, never violations. */
  warnings: number;
  /** The warnings per decision, most frequent first. */
  decisions: DecisionTally[];
  /** Upstream failures by kind: `unreachable`, `timeout`, `not_json`. */
  upstreamFailures: Record<string, number>;
  operations: OperationTally[];
}

/** Most violations kept per operation: enough to read, bounded in memory on a long run. */
const KEPT_PER_OPERATION = 200;

/** The proxy's running tally of what it saw. */
export class ProxyReport {
  readonly #operations = new Map<string, OperationTally & { dropped: number; droppedWarnings: number }>();
  readonly #decisions = new Map<string, DecisionTally>();
  #warnings = 0;
  readonly #upstreamFailures: Record<string, number> = {};
  readonly #startedAt = new Date().toISOString();
  #requests = 0;
  #failed = 0;
  #violations = 0;

  constructor(
    private readonly upstream: string,
    private readonly profile: ProxyProfile = 'spec',
  ) {}

  /** Counts one exchange, its violations and its warnings. */
  add(
    operation: { operationId: string; method: string; path: string } | undefined,
    violations: Violation[],
    warnings: Violation[] = [],
  ): void {
    const key = operation?.operationId ?? '';
    let tally = this.#operations.get(key);
    if (!tally) {
      tally = {
        operationId: operation?.operationId ?? null,
        route: operation ? `${operation.method.toUpperCase()} ${operation.path}` : '(undocumented)',
        requests: 0,
        failed: 0,
        violations: [],
        warned: 0,
        warnings: [],
        dropped: 0,
        droppedWarnings: 0,
      };
      this.#operations.set(key, tally);
    }
    this.#requests += 1;
    tally.requests += 1;
    if (warnings.length > 0) {
      tally.warned += 1;
      this.#warnings += warnings.length;
      for (const warning of warnings) {
        if (tally.warnings.length < KEPT_PER_OPERATION) tally.warnings.push(warning);
        else tally.droppedWarnings += 1;
        const d = warning.decision;
        if (!d) continue;
        const decision = this.#decisions.get(d.pointer) ?? {
          pointer: d.pointer,
          entry: d.entry,
          summary: d.summary,
          count: 0,
          routes: [],
        };
        decision.count += 1;
        if (!decision.routes.includes(tally.route)) decision.routes.push(tally.route);
        this.#decisions.set(d.pointer, decision);
      }
    }
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
      .map(({ dropped: _dropped, droppedWarnings: _droppedWarnings, ...tally }) => ({
        ...tally,
        violations: [...tally.violations],
        warnings: [...tally.warnings],
      }))
      .sort((a, b) => b.failed - a.failed || b.warned - a.warned || a.route.localeCompare(b.route));
    return {
      upstream: this.upstream,
      startedAt: this.#startedAt,
      profile: this.profile,
      requests: this.#requests,
      failed: this.#failed,
      violations: this.#violations,
      warnings: this.#warnings,
      decisions: [...this.#decisions.values()]
        .map((d) => ({ ...d, routes: [...d.routes] }))
        .sort((a, b) => b.count - a.count || a.pointer.localeCompare(b.pointer)),
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
    `restoapi-mock proxy: ${report.requests} requests to ${report.upstream}, ${report.failed} with violations (${report.violations} violations${failures ? `; upstream failures: ${failures}` : ''}), ${report.warnings} warnings (profile ${report.profile})`,
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
  if (report.decisions.length > 0)
    lines.push(`  warnings: the spec does not state these, the document decided them (openapi/DECISIONS.md)`);
  for (const d of report.decisions) lines.push(`    ${d.count}× ${d.summary} (${d.entry}) in ${d.routes.join(', ')}`);
  return lines.join('\n');
}
