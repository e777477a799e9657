/**
 * A mock's whole state seen over HTTP with its clock frozen, so that nothing in it moves by itself: what a
 * test compares before and after requests that must change nothing.
 */

/** Freezes the clock of the mock at `url` where it stands (`PUT /__mock/clock`). */
export async function freezeClock(url: string): Promise<void> {
  const { now } = (await (await fetch(`${url}/__mock/clock`)).json()) as { now: string };
  const res = await fetch(`${url}/__mock/clock`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ now, frozen: true }),
  });
  if (res.status !== 200) throw new Error(`freezing the clock failed: ${res.status} ${await res.text()}`);
}

/** The state export (`GET /__mock/state`) as parsed JSON. */
export async function stateOf(url: string): Promise<Record<string, unknown>> {
  return (await (await fetch(`${url}/__mock/state`)).json()) as Record<string, unknown>;
}

/** The top-level parts (tables, clock, config…) that differ between two state exports, by name. */
export function changedParts(before: Record<string, unknown>, after: Record<string, unknown>): string[] {
  const names = new Set([...Object.keys(before), ...Object.keys(after)]);
  return [...names].filter((name) => JSON.stringify(before[name]) !== JSON.stringify(after[name]));
}

/** The rows of one table that differ between two state exports, before and after (for a failure message). */
export function changedRows(before: Record<string, unknown>, after: Record<string, unknown>, table: string): string {
  const rows = (state: Record<string, unknown>): unknown[] =>
    (state[table] as { rows?: unknown[] } | undefined)?.rows ?? [];
  const old = new Set(rows(before).map((row) => JSON.stringify(row)));
  const now = new Set(rows(after).map((row) => JSON.stringify(row)));
  const gone = [...old].filter((row) => !now.has(row));
  const added = [...now].filter((row) => !old.has(row));
  return `${table}: before ${gone.join(' ') || '(none)'} after ${added.join(' ') || '(none)'}`;
}
