import type { SuiteResult } from '../runner/types.js';

/** One warning of one test. */
export interface WarningItem {
  testId: string;
  text: string;
}

/** Warnings that share one cause: under `spec`, the decision of the document the service departs from. */
export interface WarningGroup {
  /** The decision's first sentence, or what the remarks of the group have in common. */
  title: string;
  /** The decision departed from: its `x-decision` pointer and its openapi/DECISIONS.md entry. */
  decision?: { pointer: string; entry: string };
  items: WarningItem[];
}

// A remark of an older result: `GET /api/orders/5008 → 404: /errors: … (deviates from a decision of the document)`.
const DEPARTURE = /^\S+ \S+ → (\d{3}): (.*?)( \((?:deviates|departs) from .*\))?$/s;

/**
 * The warnings of a run grouped by cause, the largest group first: a departure from a decision is
 * grouped by that decision (the same departure on many paths and in many tests is one group); any other
 * remark by its status and message, or its text.
 */
export function warningGroups(result: Pick<SuiteResult, 'results'>): WarningGroup[] {
  const groups = new Map<string, WarningGroup>();
  const add = (key: string, group: Omit<WarningGroup, 'items'>, item: WarningItem): void => {
    const into = groups.get(key) ?? { ...group, items: [] };
    into.items.push(item);
    groups.set(key, into);
  };
  for (const test of result.results) {
    const structured = test.decisionWarnings ?? [];
    for (const warning of structured)
      add(
        `decision ${warning.decision}`,
        { title: warning.summary, decision: { pointer: warning.decision, entry: warning.entry } },
        { testId: test.id, text: `${warning.method} ${warning.path} → ${warning.status}: ${warning.message}` },
      );
    // The decision warnings are also among the test's warnings as sentences; the rest are other remarks.
    const said = structured.map((w) => `${w.method} ${w.path} → ${w.status}: ${w.message} (`);
    for (const text of test.warnings) {
      if (said.some((start) => text.startsWith(start))) continue;
      const departure = DEPARTURE.exec(text);
      const title = departure ? `${departure[1]}: ${departure[2]}` : text;
      add(`remark ${title}`, { title }, { testId: test.id, text });
    }
  }
  return [...groups.values()].sort((a, b) => b.items.length - a.items.length || a.title.localeCompare(b.title));
}
