/** A record with a numeric id, as every resource of the API has. */
export interface WithId {
  id: number;
}

/**
 * The rows under one value of an indexed column: an array (a list request walks thousands of rows, and an
 * array walks about a fifth faster than a Map's values) and each row's position in it, for O(1)
 * replacement and removal. The positions are built on the first replacement or removal in the bucket and
 * kept from then on: a bucket only ever inserted into (a script creating a menu, most test suites) never
 * needs them, and keeping them cost each created dish a `Map.set` into a map as large as its category.
 */
interface Bucket<T> {
  rows: T[];
  at: Map<number, number> | undefined;
}

/** The positions of a bucket's rows, built from its rows when first needed (see {@link Bucket}). */
function positions<T extends WithId>(bucket: Bucket<T>): Map<number, number> {
  if (bucket.at === undefined) {
    const at = new Map<number, number>();
    for (let i = 0; i < bucket.rows.length; i++) at.set(bucket.rows[i]!.id, i);
    bucket.at = at;
  }
  return bucket.at;
}

/** Something derived from a table's rows and kept up to date by its writes (see {@link Table.indexedBy}). */
export interface RowIndex<T> {
  /** A row was stored: inserted, replaced, or changed in place and stored again. */
  put(row: T): void;
  /** The row of this id was deleted. */
  delete(id: number): void;
}

/** Rows of one indexed column: value → bucket. */
type ColumnIndex<T> = Map<unknown, Bucket<T>>;

/**
 * An in-memory table with its own id sequence. Insertion order is kept, so
 * lists are stable without sorting when no `sort_by` is asked for.
 *
 * Secondary indexes ({@link Table.where}, {@link Table.findWhere}, {@link Table.filterWhere}) are built
 * on first use per column and kept up to date by `put`, `insert` and `delete`. They are only correct for
 * columns that are never assigned in place on a stored row (write a copy and `put` it instead); rows are
 * re-checked on every lookup, so an in-place change can hide a row from its new value but never return a
 * row under a value it no longer has. Indexed today: `sessions.token`, `draftDishes.draft_category_id`, and
 * `organization_id` of the draft dishes, draft categories and delivery zones (their lists). Sorted lists use
 * a derived index instead ({@link Table.indexedBy}, the orders' `OrderIndex`).
 */
export class Table<T extends WithId> {
  private readonly rows = new Map<number, T>();
  private nextId: number;
  private readonly indexes = new Map<keyof T, ColumnIndex<T>>();
  /**
   * The same indexes as two lists (column, index), in the order they were built, for the writes: iterating the
   * map's `[column, index]` entries made an entry array per index on every `put` (seen under load).
   */
  private readonly indexedColumns: (keyof T)[] = [];
  private readonly columnIndexes: ColumnIndex<T>[] = [];
  private readonly derived = new Map<(rows: Iterable<T>) => RowIndex<T>, RowIndex<T>>();
  private writes = 0;

  constructor(
    rows: Iterable<T> = [],
    /** First id handed out when the table is empty. */
    private readonly firstId = 1,
  ) {
    this.nextId = firstId;
    for (const row of rows) this.put(row);
  }

  /** The row with this id. */
  get(id: number): T | undefined {
    return this.rows.get(id);
  }

  /** Whether a row with this id exists. */
  has(id: number): boolean {
    return this.rows.has(id);
  }

  /** Stores a row under its own id (insert or replace). */
  put(row: T): T {
    const columns = this.indexedColumns;
    if (columns.length > 0) {
      // An id from the next one on was never stored (`nextId` stays above every id): no row to replace, in the
      // table or in a bucket, so an insert skips the lookups of a replace.
      const fresh = row.id >= this.nextId;
      const previous = fresh ? undefined : this.rows.get(row.id);
      for (let i = 0; i < columns.length; i++) {
        const column = columns[i]!;
        const index = this.columnIndexes[i]!;
        if (previous !== undefined && previous[column] !== row[column]) unindex(index, previous[column], row.id);
        addTo(index, row[column], row, fresh);
      }
    }
    this.rows.set(row.id, row);
    if (this.derived.size > 0) for (const index of this.derived.values()) index.put(row);
    if (row.id >= this.nextId) this.nextId = row.id + 1;
    this.writes += 1;
    return row;
  }

  /** Inserts a row, giving it the next id. */
  insert(row: Omit<T, 'id'>): T {
    const stored = { ...row, id: this.nextId } as T;
    return this.put(stored);
  }

  /** The id the next insert will use. */
  peekNextId(): number {
    return this.nextId;
  }

  /** Removes a row; returns whether it existed. */
  delete(id: number): boolean {
    const previous = this.rows.get(id);
    if (previous === undefined) return false;
    for (let i = 0; i < this.indexedColumns.length; i++)
      unindex(this.columnIndexes[i]!, previous[this.indexedColumns[i]!], id);
    this.rows.delete(id);
    for (const index of this.derived.values()) index.delete(id);
    this.writes += 1;
    return true;
  }

  /**
   * Counts `put`, `insert` and `delete` calls: a value derived from the rows (and from columns that are
   * not changed in place) stays valid while the revision is unchanged.
   */
  get revision(): number {
    return this.writes;
  }

  /** Rows whose `column` equals `value` (`===`), through the column's index; in no particular order. */
  where<K extends keyof T>(column: K, value: T[K]): T[] {
    const out: T[] = [];
    const bucket = this.index(column).get(value);
    if (bucket) for (const row of bucket.rows) if (row[column] === value) out.push(row);
    return out;
  }

  /**
   * The same row as `find((row) => row[column] === value)`, through the column's index. Several rows
   * under one value (never the case for unique columns such as a session token) fall back to the scan,
   * which knows the insertion order.
   */
  findWhere<K extends keyof T>(column: K, value: T[K]): T | undefined {
    const bucket = this.index(column).get(value);
    if (!bucket || bucket.rows.length === 0) return undefined;
    if (bucket.rows.length === 1) {
      const row = bucket.rows[0]!;
      return row[column] === value ? row : undefined;
    }
    return this.find((row) => row[column] === value);
  }

  /** `filter(predicate)` over only the rows whose `column` is one of `values`, through the column's index; in no particular order. */
  filterWhere<K extends keyof T>(column: K, values: Iterable<T[K]>, predicate: (row: T) => boolean): T[] {
    const index = this.index(column);
    const out: T[] = [];
    for (const value of new Set(values)) {
      const bucket = index.get(value);
      if (!bucket) continue;
      for (const row of bucket.rows) if (row[column] === value && predicate(row)) out.push(row);
    }
    return out;
  }

  /**
   * The index `build` makes of the rows (one per `build` function), built on first use and then kept up to
   * date by every `put`, `insert` and `delete`: a row changed in place must be stored again with `put`.
   * Lazy, so that a small instance that never asks for it pays nothing.
   */
  indexedBy<I extends RowIndex<T>>(build: (rows: Iterable<T>) => I): I {
    let index = this.derived.get(build);
    if (!index) {
      index = build(this.rows.values());
      this.derived.set(build, index);
    }
    return index as I;
  }

  /** The index of a column, built from the current rows on first use. */
  private index(column: keyof T): ColumnIndex<T> {
    let index = this.indexes.get(column);
    if (!index) {
      index = new Map();
      for (const row of this.rows.values()) addTo(index, row[column], row);
      this.indexes.set(column, index);
      this.indexedColumns.push(column);
      this.columnIndexes.push(index);
    }
    return index;
  }

  /** Every row, in insertion order. */
  all(): T[] {
    return [...this.rows.values()];
  }

  /** Rows matching a predicate. */
  filter(predicate: (row: T) => boolean): T[] {
    const out: T[] = [];
    for (const row of this.rows.values()) if (predicate(row)) out.push(row);
    return out;
  }

  /** The first row matching a predicate. */
  find(predicate: (row: T) => boolean): T | undefined {
    for (const row of this.rows.values()) if (predicate(row)) return row;
    return undefined;
  }

  /** Number of rows. */
  get size(): number {
    return this.rows.size;
  }

  /** JSON form: the rows and the id sequence. */
  toJSON(): { nextId: number; rows: T[] } {
    return { nextId: this.nextId, rows: this.all() };
  }

  /** Rebuilds a table from {@link Table.toJSON} output. */
  static fromJSON<R extends WithId>(json: { nextId?: number; rows: R[] } | undefined, firstId = 1): Table<R> {
    const table = new Table<R>(json?.rows ?? [], firstId);
    if (json?.nextId && json.nextId > table.nextId) table.nextId = json.nextId;
    return table;
  }
}

/** Puts a row in the bucket of a value, replacing the row of the same id if there is one. */
function addTo<T extends WithId>(index: ColumnIndex<T>, value: unknown, row: T, fresh = false): void {
  let bucket = index.get(value);
  if (!bucket) {
    bucket = { rows: [], at: undefined };
    index.set(value, bucket);
  }
  const position = fresh || bucket.rows.length === 0 ? undefined : positions(bucket).get(row.id);
  if (position === undefined) {
    bucket.at?.set(row.id, bucket.rows.length);
    bucket.rows.push(row);
  } else bucket.rows[position] = row;
}

/** Takes the row of an id out of the bucket of a value: the last row moves into its place. */
function unindex<T extends WithId>(index: ColumnIndex<T>, value: unknown, id: number): void {
  const bucket = index.get(value);
  if (bucket === undefined) return;
  const at = positions(bucket);
  const position = at.get(id);
  if (position === undefined) return;
  const last = bucket.rows.pop()!;
  at.delete(id);
  if (position < bucket.rows.length) {
    bucket.rows[position] = last;
    at.set(last.id, position);
  }
  if (bucket.rows.length === 0) index.delete(value);
}
