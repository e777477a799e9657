import type { FieldProblem } from '../engine/http-error.js';

/**
 * Whether two JSON values are equal, ignoring the order of object keys (a GET
 * body sent back may be re-serialised with its keys in another order).
 */
export function sameJson(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a) && Array.isArray(b)) return a.length === b.length && a.every((item, i) => sameJson(item, b[i]));
  const left = a as Record<string, unknown>;
  const right = b as Record<string, unknown>;
  const keys = Object.keys(left).filter((key) => left[key] !== undefined);
  if (keys.length !== Object.keys(right).filter((key) => right[key] !== undefined).length) return false;
  return keys.every((key) => sameJson(left[key], right[key]));
}

/**
 * Collects 422 `not_editable` problems for the non-editable fields of an update
 * body (Data format rules 3 as decided): a field equal to the stored value is
 * ignored so that a GET body can be sent back, a different one is refused so a
 * client never believes a change was stored when it was not.
 */
export function notEditableProblems(
  root: string,
  sent: Record<string, unknown>,
  stored: Record<string, unknown>,
  fields: readonly string[],
  equal: (field: string, sentValue: unknown, storedValue: unknown) => boolean = (_field, x, y) => sameJson(x, y),
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const field of fields) {
    if (!(field in sent) || sent[field] === undefined) continue;
    if (equal(field, sent[field], stored[field])) continue;
    problems.push({
      pointer: `${root}/${field}`,
      code: 'not_editable',
      detail: `${field} cannot be changed (stored: ${JSON.stringify(stored[field] ?? null)}); leave it out or send the stored value.`,
    });
  }
  return problems;
}
