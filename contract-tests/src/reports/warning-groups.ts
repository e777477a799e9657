import type { SuiteResult } from '../runner/types.js';

/** One warning of one test. */
export interface WarningItem {
  testId: string;
  text: string;
}

/** Warnings that share one cause: under `spec`, a decision of the document the service departs from. */
export interface WarningGroup {
  /** What the warnings of the group have in common, e.g. `404: /errors: /errors is required`. */
  title: string;
  items: WarningItem[];
}

// `GET /api/orders/5008 → 404: /errors: /errors is required (deviates from a decision of the document)`
const DEPARTURE = /^\S+ \S+ → (\d{3}): (.*?)( \(deviates from a decision of the document\))?$/s;

/**
 * The warnings of a run grouped by cause, the largest group first: a departure from a decision is
 * grouped by its status and message (the same departure on many paths is one group), any other remark
 * by its text.
 */
export function warningGroups(result: Pick<SuiteResult, 'results'>): WarningGroup[] {
  const groups = new Map<string, WarningGroup>();
  for (const test of result.results)
    for (const text of test.warnings) {
      const departure = DEPARTURE.exec(text);
      const title = departure ? `${departure[1]}: ${departure[2]}` : text;
      const group = groups.get(title) ?? { title, items: [] };
      group.items.push({ testId: test.id, text });
      groups.set(title, group);
    }
  return [...groups.values()].sort((a, b) => b.items.length - a.items.length || a.title.localeCompare(b.title));
}
