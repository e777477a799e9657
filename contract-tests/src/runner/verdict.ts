import { listDecisions, type ApiDescription } from '@restoapi/openapi';
import type { ContractConfig } from '../config.js';

/** The checks every answer goes through, named as Schemathesis names its checks. */
export const CHECKS = [
  'not_a_server_error',
  'status_code_conformance',
  'content_type_conformance',
  'response_schema_conformance',
  'response_headers_conformance',
] as const;

/** One of {@link CHECKS}. */
export type CheckName = (typeof CHECKS)[number];

/** A way the configuration relaxed the verdict, and how many problems it let pass in this run. */
export interface Relaxation {
  kind: 'check' | 'decision' | 'expected-statuses';
  /** The check name, the decision's pointer or the operationId. */
  target: string;
  /** What is not checked, in words. */
  detail: string;
  /** Problems this relaxation let pass (warnings or failures that were not reported). */
  ignored: number;
}

/**
 * The configuration's `checks` and `decisions`: which checks and decisions are off and which extra statuses
 * each operation may answer. Counts what each relaxation let pass, so a green run says what it did not check.
 */
export class VerdictSettings {
  private readonly checksOff = new Set<CheckName>();
  private readonly decisionsOff = new Set<string>();
  private readonly extraStatuses = new Map<string, (number | string)[]>();
  private readonly ignored = new Map<string, number>();

  constructor(config: Pick<ContractConfig, 'checks' | 'decisions'>, api: ApiDescription) {
    for (const name of CHECKS) {
      const setting = config.checks?.[name];
      if (setting === false || (typeof setting === 'object' && setting.enabled === false)) this.checksOff.add(name);
    }
    const known = new Set(listDecisions(api.document).map((d) => d.pointer));
    for (const [pointer, value] of Object.entries(config.decisions ?? {})) {
      if (value !== false) continue;
      if (!known.has(pointer))
        throw new Error(`decisions: ${pointer} is not an x-decision of the document (see openapi/DECISIONS.md)`);
      this.decisionsOff.add(pointer);
    }
    const status = config.checks?.status_code_conformance;
    for (const [operationId, statuses] of Object.entries(
      typeof status === 'object' ? (status.expectedStatuses ?? {}) : {},
    )) {
      api.operation(operationId); // throws for an unknown operationId
      this.extraStatuses.set(operationId, statuses);
    }
  }

  private use(key: string): true {
    this.ignored.set(key, (this.ignored.get(key) ?? 0) + 1);
    return true;
  }

  /** Whether a check is off; counts the problem it lets pass. */
  ignoresCheck(name: CheckName): boolean {
    return this.checksOff.has(name) && this.use(`check|${name}`);
  }

  /** Whether a decision is off; counts the departure it lets pass. */
  ignoresDecision(pointer: string | undefined): boolean {
    return pointer !== undefined && this.decisionsOff.has(pointer) && this.use(`decision|${pointer}`);
  }

  /** Whether the configuration accepts this status of the operation besides the documented ones. */
  acceptsStatus(operationId: string | undefined, status: number): boolean {
    const extra = operationId ? this.extraStatuses.get(operationId) : undefined;
    const hit = extra?.some((s) => s === status || (typeof s === 'string' && s[0] === String(status)[0]));
    return hit === true && this.use(`expected-statuses|${operationId}`);
  }

  /** Every relaxation of the configuration, used or not. */
  relaxations(): Relaxation[] {
    const count = (key: string): number => this.ignored.get(key) ?? 0;
    return [
      ...[...this.checksOff].map((name) => ({
        kind: 'check' as const,
        target: name,
        detail: `the ${name} check is off`,
        ignored: count(`check|${name}`),
      })),
      ...[...this.decisionsOff].map((pointer) => ({
        kind: 'decision' as const,
        target: pointer,
        detail: `departures from the decision ${pointer} are not reported`,
        ignored: count(`decision|${pointer}`),
      })),
      ...[...this.extraStatuses].map(([operationId, statuses]) => ({
        kind: 'expected-statuses' as const,
        target: operationId,
        detail: `${operationId} may also answer ${statuses.join(', ')}`,
        ignored: count(`expected-statuses|${operationId}`),
      })),
    ];
  }
}

/** One line per relaxation, for summaries: empty when the run checked everything. */
export function relaxationLines(relaxations: readonly Relaxation[] | undefined): string[] {
  return (relaxations ?? []).map(
    (r) => `${r.detail} (configuration; ${r.ignored} problem${r.ignored === 1 ? '' : 's'} let pass)`,
  );
}
