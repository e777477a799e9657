import type { components } from '@restoapi/openapi';
import BTreeModule from 'sorted-btree';
import type { OrderRecord } from '../state/mock-state.js';
import type { RowIndex } from '../state/table.js';

type OrderStatus = components['schemas']['OrderStatus'];

// Node's ESM loader hands a CommonJS module's whole `exports` to a default import, bundlers its `default`.
const BTree: typeof BTreeModule.default =
  (BTreeModule as { default?: typeof BTreeModule.default }).default ??
  (BTreeModule as unknown as typeof BTreeModule.default);
type Tree = BTreeModule.default<Entry, undefined>;

/** A key `GET /api/orders` sorts by (`sort_by` without its `-`). */
export type OrderSortField = 'created_at' | 'delivery_at' | 'id' | 'number' | 'status';

/** The filters of an order list after the caller's scope is folded in: undefined = no filter, empty = nothing. */
export interface OrderFilters {
  restaurants?: ReadonlySet<number>;
  statuses?: ReadonlySet<OrderStatus>;
  couriers?: ReadonlySet<number>;
  clients?: ReadonlySet<number>;
}

/** One page of an indexed order list: the rows and the number of matches on all pages. */
export interface IndexedPage {
  rows: OrderRecord[];
  count: number;
}

/**
 * `status` sorts along the life cycle rather than alphabetically: a dispatcher reads "pending" before
 * "delivery", and the terminal statuses come last.
 */
const STATUS_RANK: Record<OrderStatus, number> = {
  pending: 0,
  accepted: 1,
  cooking: 2,
  ready: 3,
  delivery: 4,
  complete: 5,
  cancelled: 6,
};

/** Numeric collation of order numbers, so that PP-999 sorts before PP-1000. */
const NUMBER_COLLATOR = new Intl.Collator('en', { numeric: true, sensitivity: 'base' });

/**
 * What the index knows of one order: the values it is filed under, frozen when it was filed. Orders are
 * changed in place, so the frozen values are what finds the order again in its trees after a change.
 */
interface Entry {
  readonly row: OrderRecord;
  readonly id: number;
  readonly restaurant: number;
  readonly status: OrderStatus;
  readonly rank: number;
  readonly courier: number | null;
  readonly client: number;
  readonly createdText: string;
  readonly created: number;
  readonly deliveryText: string;
  readonly delivery: number;
  readonly number: string;
}

/** An order time as an instant (they carry offsets, `+01:00`, so are never compared as strings); -∞ when unreadable. */
function timeOf(value: string | null | undefined): number {
  const ms = value ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
}

function entryOf(row: OrderRecord): Entry {
  return {
    row,
    id: row.id,
    restaurant: row.restaurant_id,
    status: row.status,
    rank: STATUS_RANK[row.status] ?? Number.MAX_SAFE_INTEGER,
    courier: row.courier_id,
    client: row.client_id,
    createdText: row.created_at,
    created: timeOf(row.created_at),
    deliveryText: row.delivery_at,
    delivery: timeOf(row.delivery_at),
    number: row.number,
  };
}

/** Whether the order still holds every value its entry was filed under. */
function isCurrent(entry: Entry, row: OrderRecord): boolean {
  return (
    entry.row === row &&
    row.restaurant_id === entry.restaurant &&
    row.status === entry.status &&
    row.courier_id === entry.courier &&
    row.client_id === entry.client &&
    row.created_at === entry.createdText &&
    row.delivery_at === entry.deliveryText &&
    row.number === entry.number
  );
}

const byNumber = (a: number, b: number): number => (a < b ? -1 : a > b ? 1 : 0);

/** The total order of each sort key, ties broken by id. */
const COMPARE: Record<OrderSortField, (a: Entry, b: Entry) => number> = {
  id: (a, b) => a.id - b.id,
  created_at: (a, b) => byNumber(a.created, b.created) || a.id - b.id,
  delivery_at: (a, b) => byNumber(a.delivery, b.delivery) || a.id - b.id,
  number: (a, b) => NUMBER_COLLATOR.compare(String(a.number), String(b.number)) || a.id - b.id,
  status: (a, b) => a.rank - b.rank || a.id - b.id,
};

/** Every bucket holds one status, where sorting by status is sorting by id: the id tree serves both. */
type TreeField = Exclude<OrderSortField, 'status'>;

/**
 * The orders of one (primary key, restaurant, status): a tree in id order (always), and a tree per other
 * sort key, built on the first list that sorts by it and kept up to date from then on.
 */
class Bucket {
  private readonly trees: Partial<Record<TreeField, Tree>> = {};
  readonly byId: Tree = new BTree<Entry, undefined>(undefined, COMPARE.id);

  get size(): number {
    return this.byId.size;
  }

  add(entry: Entry): void {
    this.byId.set(entry, undefined);
    for (const tree of Object.values(this.trees)) tree.set(entry, undefined);
  }

  remove(entry: Entry): void {
    this.byId.delete(entry);
    for (const tree of Object.values(this.trees)) tree.delete(entry);
  }

  sorted(field: OrderSortField): Tree {
    if (field === 'id' || field === 'status') return this.byId;
    let tree = this.trees[field];
    if (!tree) {
      const entries = [...this.byId.keys()].sort(COMPARE[field]);
      tree = new BTree<Entry, undefined>(undefined, COMPARE[field]);
      for (const entry of entries) tree.set(entry, undefined);
      this.trees[field] = tree;
    }
    return tree;
  }
}

/** Buckets by primary key (0, a courier or a client), then restaurant, then status. */
class Family {
  private readonly map = new Map<number, Map<number, Map<OrderStatus, Bucket>>>();

  /** `primary` files an entry under a key; `null` leaves it out of the family (an order without courier). */
  constructor(private readonly primary: (entry: Entry) => number | null) {}

  add(entry: Entry): void {
    const key = this.primary(entry);
    if (key === null) return;
    let restaurants = this.map.get(key);
    if (!restaurants) this.map.set(key, (restaurants = new Map()));
    let statuses = restaurants.get(entry.restaurant);
    if (!statuses) restaurants.set(entry.restaurant, (statuses = new Map()));
    let bucket = statuses.get(entry.status);
    if (!bucket) statuses.set(entry.status, (bucket = new Bucket()));
    bucket.add(entry);
  }

  remove(entry: Entry): void {
    const key = this.primary(entry);
    if (key === null) return;
    const restaurants = this.map.get(key);
    const statuses = restaurants?.get(entry.restaurant);
    const bucket = statuses?.get(entry.status);
    if (!bucket) return;
    bucket.remove(entry);
    // Empty buckets go, so that a list never walks the leftovers of orders that moved on.
    if (bucket.size > 0) return;
    statuses!.delete(entry.status);
    if (statuses!.size > 0) return;
    restaurants!.delete(entry.restaurant);
    if (restaurants!.size === 0) this.map.delete(key);
  }

  /** The buckets under the given keys (undefined = every key of that level). */
  buckets(
    primaries: Iterable<number> | undefined,
    restaurants: ReadonlySet<number> | undefined,
    statuses: ReadonlySet<OrderStatus> | undefined,
  ): Bucket[] {
    const out: Bucket[] = [];
    for (const byRestaurant of pick(this.map, primaries)) {
      for (const byStatus of pick(byRestaurant, restaurants)) {
        for (const bucket of pick(byStatus, statuses)) out.push(bucket);
      }
    }
    return out;
  }
}

function pick<K, V>(map: Map<K, V>, keys: Iterable<K> | undefined): Iterable<V> {
  if (keys === undefined) return map.values();
  const out: V[] = [];
  for (const key of keys) {
    const value = map.get(key);
    if (value !== undefined) out.push(value);
  }
  return out;
}

/** A cursor of the k-way merge: the tree walk of one bucket and the entry it is at. */
interface Cursor {
  entry: Entry;
  rest: Iterator<Entry>;
}

/**
 * The sorted, filtered lists of `GET /api/orders`, kept up to date by the orders table on every write
 * (`Table.indexedBy`). Orders are filed in buckets by (restaurant, status), each bucket a B+ tree per sort
 * key, so one page is a k-way merge of the buckets the filters select that stops after `page × per_page`
 * matches, and `meta.count` is the sum of the buckets' sizes: neither walks the orders that do not match.
 * A `courier_id` or `client_id` filter uses buckets by (courier or client, restaurant, status), built on the
 * first list that filters by it. The trees of a sort key are built on the first list sorted by it: small
 * instances (demo sessions) that never list pay nothing.
 */
export class OrderIndex implements RowIndex<OrderRecord> {
  private readonly entries = new Map<number, Entry>();
  private readonly all = new Family(() => 0);
  private byCourier: Family | undefined;
  private byClient: Family | undefined;

  constructor(rows: Iterable<OrderRecord>) {
    for (const row of rows) this.put(row);
  }

  /** Files an order again after a write (insert, replacement, or a change in place followed by `put`). */
  put(row: OrderRecord): void {
    const known = this.entries.get(row.id);
    if (known !== undefined) {
      if (isCurrent(known, row)) return;
      this.unfile(known);
    }
    const entry = entryOf(row);
    this.entries.set(row.id, entry);
    this.all.add(entry);
    this.byCourier?.add(entry);
    this.byClient?.add(entry);
  }

  /** Forgets a deleted order. */
  delete(id: number): void {
    const known = this.entries.get(id);
    if (known === undefined) return;
    this.unfile(known);
    this.entries.delete(id);
  }

  private unfile(entry: Entry): void {
    this.all.remove(entry);
    this.byCourier?.remove(entry);
    this.byClient?.remove(entry);
  }

  private family(kind: 'courier' | 'client'): Family {
    if (kind === 'courier') {
      if (!this.byCourier) this.byCourier = this.filled(new Family((entry) => entry.courier));
      return this.byCourier;
    }
    if (!this.byClient) this.byClient = this.filled(new Family((entry) => entry.client));
    return this.byClient;
  }

  private filled(family: Family): Family {
    for (const entry of this.entries.values()) family.add(entry);
    return family;
  }

  /**
   * The orders matching every filter, sorted by `field` (ties by id, in the same direction), from match
   * number `start` (0-based) on, at most `limit` of them, and the number of matches.
   */
  page(filters: OrderFilters, field: OrderSortField, descending: boolean, start: number, limit: number): IndexedPage {
    const { clients, couriers } = filters;
    const family = clients ? this.family('client') : couriers ? this.family('courier') : this.all;
    const buckets = family.buckets(clients ?? couriers ?? [0], filters.restaurants, filters.statuses);
    // With both a client and a courier filter, the client's buckets are walked and the courier checked.
    const extra = clients && couriers ? (entry: Entry) => entry.courier !== null && couriers.has(entry.courier) : null;
    let count = 0;
    if (extra) for (const bucket of buckets) for (const entry of bucket.byId.keys()) count += extra(entry) ? 1 : 0;
    else for (const bucket of buckets) count += bucket.size;
    const rows = start >= count ? [] : merge(buckets, field, descending, start, limit, extra);
    return { rows, count };
  }

  /**
   * Re-files the orders of a page that were changed in place without the `put` every write path makes:
   * a safety net that keeps a missed write from serving an order under values it no longer has.
   * Returns whether any was stale (the page must then be asked again).
   */
  refresh(rows: readonly OrderRecord[]): boolean {
    let stale = false;
    for (const row of rows) {
      const entry = this.entries.get(row.id);
      if (entry !== undefined && !isCurrent(entry, row)) {
        this.put(row);
        stale = true;
      }
    }
    return stale;
  }
}

/** The k-way merge of the buckets' trees: a min-heap of cursors by the sort key (reversed when descending). */
function merge(
  buckets: readonly Bucket[],
  field: OrderSortField,
  descending: boolean,
  start: number,
  limit: number,
  extra: ((entry: Entry) => boolean) | null,
): OrderRecord[] {
  const compare = COMPARE[field];
  const before = descending
    ? (a: Cursor, b: Cursor) => compare(b.entry, a.entry) < 0
    : (a: Cursor, b: Cursor) => compare(a.entry, b.entry) < 0;
  const heap: Cursor[] = [];
  for (const bucket of buckets) {
    const rest = walk(bucket.sorted(field), descending);
    const first = rest.next();
    if (!first.done) heap.push({ entry: first.value, rest });
  }
  for (let at = (heap.length >> 1) - 1; at >= 0; at -= 1) siftDown(heap, at, before);
  const out: OrderRecord[] = [];
  let skipped = 0;
  while (heap.length > 0 && out.length < limit) {
    const top = heap[0]!;
    const entry = top.entry;
    if (extra === null || extra(entry)) {
      if (skipped < start) skipped += 1;
      else out.push(entry.row);
    }
    const next = top.rest.next();
    if (next.done) {
      const last = heap.pop()!;
      if (heap.length === 0) break;
      heap[0] = last;
    } else top.entry = next.value;
    siftDown(heap, 0, before);
  }
  return out;
}

function* walk(tree: Tree, descending: boolean): Generator<Entry> {
  if (!descending) {
    yield* tree.keys();
    return;
  }
  const pair: (Entry | undefined)[] = [];
  for (const [entry] of tree.entriesReversed(undefined, pair as [Entry, undefined])) yield entry;
}

function siftDown(heap: Cursor[], at: number, before: (a: Cursor, b: Cursor) => boolean): void {
  const item = heap[at]!;
  const size = heap.length;
  for (;;) {
    let child = 2 * at + 1;
    if (child >= size) break;
    if (child + 1 < size && before(heap[child + 1]!, heap[child]!)) child += 1;
    if (!before(heap[child]!, item)) break;
    heap[at] = heap[child]!;
    at = child;
  }
  heap[at] = item;
}
