/** A record with a numeric id, as every resource of the API has. */
export interface WithId {
  id: number;
}

/**
 * An in-memory table with its own id sequence. Insertion order is kept, so
 * lists are stable without sorting when no `sort_by` is asked for.
 */
export class Table<T extends WithId> {
  private readonly rows = new Map<number, T>();
  private nextId: number;

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
    this.rows.set(row.id, row);
    if (row.id >= this.nextId) this.nextId = row.id + 1;
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
    return this.rows.delete(id);
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
