import { expect, test } from 'vitest';
import fc from 'fast-check';
import { stateFromJson, stateToJson } from './mock-state.js';
import { Table } from './table.js';

interface Row {
  id: number;
  group: number;
  tag: string;
}

const ids = (rows: Row[]): number[] => rows.map((row) => row.id).sort((a, b) => a - b);

/** What the indexed lookups must always equal: a scan of every row. */
function expectMatchesScan(table: Table<Row>): void {
  for (const group of [1, 2, 3, 4]) {
    expect(ids(table.where('group', group)), `where group ${group}`).toEqual(
      ids(table.filter((row) => row.group === group)),
    );
    expect(ids(table.filterWhere('group', [group, 4], (row) => row.id % 2 === 0))).toEqual(
      ids(table.filter((row) => (row.group === group || row.group === 4) && row.id % 2 === 0)),
    );
  }
  for (const tag of ['a', 'b', 'c', 'gone']) {
    expect(table.findWhere('tag', tag), `findWhere tag ${tag}`).toBe(table.find((row) => row.tag === tag));
  }
}

test('indexed lookups equal a scan after inserts, replacements that keep or change the value, and deletes', () => {
  const table = new Table<Row>([
    { id: 1, group: 1, tag: 'a' },
    { id: 2, group: 1, tag: 'b' },
    { id: 3, group: 2, tag: 'c' },
  ]);
  // The indexes are built from the rows already there on first use.
  expectMatchesScan(table);

  table.insert({ group: 2, tag: 'd' });
  table.put({ id: 2, group: 1, tag: 'b2' }); // same group, new object
  table.put({ id: 1, group: 3, tag: 'a' }); // moves to another group
  table.put({ id: 10, group: 3, tag: 'e' });
  expectMatchesScan(table);

  table.delete(3);
  table.delete(1);
  expect(table.delete(99)).toBe(false);
  expectMatchesScan(table);
  expect(table.where('group', 2).map((row) => row.id)).toEqual([4]);

  // A bucket emptied and filled again.
  table.delete(4);
  expect(table.where('group', 2)).toEqual([]);
  table.put({ id: 4, group: 2, tag: 'd' });
  expectMatchesScan(table);
});

test('many rows moving between values keep every bucket exact (positions are reused on removal)', () => {
  const table = new Table<Row>(
    Array.from({ length: 200 }, (_, i) => ({ id: i + 1, group: (i % 4) + 1, tag: `t${i}` })),
  );
  expectMatchesScan(table);
  for (let step = 0; step < 400; step++) {
    const id = ((step * 37) % 200) + 1;
    if (step % 5 === 0) table.delete(id);
    else table.put({ id, group: ((step * 7) % 4) + 1, tag: `t${id}` });
  }
  expectMatchesScan(table);
});

test('findWhere returns the first row in insertion order when several rows share a value, like find', () => {
  const table = new Table<Row>([
    { id: 5, group: 1, tag: 'same' },
    { id: 2, group: 1, tag: 'same' },
  ]);
  expect(table.findWhere('tag', 'same')?.id).toBe(5);
  table.put({ id: 5, group: 1, tag: 'other' });
  table.put({ id: 5, group: 1, tag: 'same' }); // back to the value: still first in the table's order
  expect(table.findWhere('tag', 'same')?.id).toBe(table.find((row) => row.tag === 'same')?.id);
});

test('a value changed in place is never returned under the old value', () => {
  const table = new Table<Row>([{ id: 1, group: 1, tag: 'a' }]);
  expect(table.where('group', 1)).toHaveLength(1);
  table.get(1)!.group = 2; // what the index contract forbids; the lookup re-checks each row
  expect(table.where('group', 1)).toEqual([]);
  expect(table.filterWhere('group', [1], () => true)).toEqual([]);
});

test('the revision counts every write, and a state loaded from JSON indexes its own rows', () => {
  const table = new Table<Row>([{ id: 1, group: 1, tag: 'a' }]);
  const before = table.revision;
  table.insert({ group: 1, tag: 'b' });
  table.put({ id: 1, group: 2, tag: 'a' });
  table.delete(2);
  table.delete(42);
  expect(table.revision).toBe(before + 3);

  const state = stateFromJson({
    version: 1,
    sessions: { rows: [{ id: 1, token: 'abc', api_user_id: 1, created_at: '', last_used_at: '', ended_at: null }] },
  });
  expect(state.sessions.findWhere('token', 'abc')?.id).toBe(1);
  state.sessions.insert({ token: 'def', api_user_id: 2, created_at: '', last_used_at: '', ended_at: null });
  const reloaded = stateFromJson(stateToJson(state));
  expect(reloaded.sessions.findWhere('token', 'def')?.api_user_id).toBe(2);
  expect(reloaded.sessions.findWhere('token', 'nope')).toBeUndefined();
});

test('a derived index is built on first use from the rows, then kept up to date by every write', () => {
  const table = new Table<Row>([
    { id: 1, group: 1, tag: 'a' },
    { id: 2, group: 2, tag: 'b' },
  ]);
  let builds = 0;
  // Tags by id: what a derived index sees of the table, through put and delete only.
  const build = (rows: Iterable<Row>) => {
    builds += 1;
    const tags = new Map<number, string>();
    for (const row of rows) tags.set(row.id, row.tag);
    return { tags, put: (row: Row) => void tags.set(row.id, row.tag), delete: (id: number) => void tags.delete(id) };
  };
  table.insert({ group: 1, tag: 'c' });
  expect(builds).toBe(0);
  const index = table.indexedBy(build);
  expect(table.indexedBy(build)).toBe(index);
  expect(builds).toBe(1);
  table.insert({ group: 3, tag: 'd' });
  table.put({ id: 1, group: 1, tag: 'z' });
  const stored = table.get(2)!;
  stored.tag = 'in place';
  table.put(stored);
  table.delete(3);
  expect(Object.fromEntries(index.tags)).toEqual({ 1: 'z', 2: 'in place', 4: 'd' });
});

test('any sequence of inserts, puts (new ids beyond the next one, replaced ids, deleted ids) and deletes keeps the indexes equal to a scan', () => {
  const op = fc.oneof(
    fc.record({ kind: fc.constant('insert' as const), group: fc.integer({ min: 1, max: 4 }) }),
    fc.record({
      kind: fc.constant('put' as const),
      id: fc.integer({ min: 1, max: 40 }),
      group: fc.integer({ min: 1, max: 4 }),
      tag: fc.constantFrom('a', 'b', 'c'),
    }),
    fc.record({ kind: fc.constant('delete' as const), id: fc.integer({ min: 1, max: 40 }) }),
    fc.record({ kind: fc.constant('check' as const) }),
  );
  fc.assert(
    fc.property(fc.array(op, { maxLength: 60 }), fc.boolean(), (ops, indexFirst) => {
      const table = new Table<Row>([{ id: 1, group: 1, tag: 'a' }]);
      if (indexFirst) expectMatchesScan(table);
      for (const step of ops) {
        if (step.kind === 'insert') table.insert({ group: step.group, tag: 'a' });
        else if (step.kind === 'put') table.put({ id: step.id, group: step.group, tag: step.tag });
        else if (step.kind === 'delete') table.delete(step.id);
        else expectMatchesScan(table);
      }
      expectMatchesScan(table);
      expect(table.all().length).toBe(new Set(table.all().map((row) => row.id)).size);
    }),
  );
});
