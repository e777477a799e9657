/**
 * `--record FILE`: keeps the resources the upstream's answers showed and writes them as a fixture that
 * `restoapi-mock --seed FILE` accepts, so that the world seen on a staging service replays offline.
 *
 * A recording keeps everything the traffic proves. A record the fixture needs a field for that no answer
 * showed is completed from related records that were seen (an order's organization from its restaurant);
 * when nothing seen tells the field, that one record is left out with the reason, never the whole fixture.
 *
 * Tokens and passwords are never written: sessions are left out, and each API user seen logging in is
 * written with the replay password {@link REPLAY_PASSWORD}, so that the same logins work against the
 * replaying mock (`POST /api/session?login=<login>&password=replay`).
 */
import { rm } from 'node:fs/promises';
import { idleDelivery } from '../model/delivery.js';
import type { Exchange } from './violation.js';
import type { MockStateJson } from '../state/mock-state.js';
import { validateFixture } from '../state/fixture.js';
import { writeFileAtomic } from '../state/atomic-file.js';

/** The password every recorded login gets in the fixture: the real one is never seen by the recorder's output. */
export const REPLAY_PASSWORD = 'replay';

type Row = Record<string, unknown> & { id: number };

/** Tables the recorder fills, in the fixture's names. */
type RecordedTable =
  | 'apiUsers'
  | 'staffMembers'
  | 'dispatchers'
  | 'couriers'
  | 'organizations'
  | 'restaurants'
  | 'deliveryZones'
  | 'draftCategories'
  | 'draftDishes'
  | 'orders'
  | 'orderItems'
  | 'buddies'
  | 'payments';

/** Answer members (singular and plural) and the table their records go to. */
const MEMBERS: Record<string, RecordedTable> = {
  organization: 'organizations',
  organizations: 'organizations',
  restaurant: 'restaurants',
  restaurants: 'restaurants',
  delivery_zone: 'deliveryZones',
  delivery_zones: 'deliveryZones',
  courier: 'couriers',
  couriers: 'couriers',
  draft_category: 'draftCategories',
  draft_categories: 'draftCategories',
  draft_dish: 'draftDishes',
  draft_dishes: 'draftDishes',
  order: 'orders',
  orders: 'orders',
  payments: 'payments',
  staff_members: 'staffMembers',
};

/** Operations whose successful answer means the record at `{id}` is gone. */
const DELETES: Record<string, RecordedTable> = {
  deleteDraftCategory: 'draftCategories',
  deleteDraftDish: 'draftDishes',
  deleteDeliveryZone: 'deliveryZones',
};

/** Replaces client names, phones and addresses by stable fakes (see `redaction.ts`). */
export interface ClientRedactor {
  name(value: string): string;
  phone(value: string): string;
  address(value: string): string;
}

function isRow(value: unknown): value is Row {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Number.isInteger((value as Row).id);
}

/** A record the recording could not write, and why (see {@link Recorder.build}). */
export interface LeftOutRecord {
  /** The fixture table it would go to, e.g. `orders`. */
  table: string;
  id: number;
  /** Why, in words shared by every record left out for the same cause (the summary groups by it). */
  reason: string;
  /** The record as the answers showed it, so that nothing the traffic proved is lost. */
  record: Record<string, unknown>;
}

/** What {@link Recorder.build} makes of the traffic so far. */
export interface Recording {
  /** The records that make a valid fixture. */
  fixture: MockStateJson;
  /** Records kept, per fixture table. */
  kept: Record<string, number>;
  /** Records left out, each with its reason. */
  leftOut: LeftOutRecord[];
}

/** The reason an order whose restaurant no answer showed is left out. */
export const UNKNOWN_ORGANIZATION =
  'no answer showed its restaurant, so its organization_id (which the fixture needs) is unknown';

/**
 * What the service keeps beside an order's public fields, as a fresh mock would have it for an order it
 * did not place; `undefined` when the organization cannot be told from a restaurant that was seen.
 */
function orderRecord(order: Row, restaurants: Map<number, Row>): Row | undefined {
  const organizationId = restaurants.get(order.restaurant_id as number)?.organization_id;
  if (!Number.isInteger(organizationId)) return undefined;
  return {
    ...order,
    organization_id: organizationId,
    delivery_zone_id: null,
    secure_id: null,
    carrier_id: null,
    delivery: idleDelivery(),
    external_id: null,
    source: null,
    takeaway: false,
    used_bonuses: '0.00',
    status_changed_at: order.created_at,
  };
}

/** Collects the resources of the upstream's answers (see the module comment). */
export class Recorder {
  readonly #tables = new Map<RecordedTable, Map<number, Row>>();
  #changes = 0;

  constructor(private readonly redactor?: ClientRedactor) {}

  #put(table: RecordedTable, row: Row): void {
    let rows = this.#tables.get(table);
    if (!rows) this.#tables.set(table, (rows = new Map()));
    const before = rows.get(row.id);
    rows.set(row.id, row);
    // The same record seen again changes nothing, and costs no save.
    if (before === undefined || JSON.stringify(before) !== JSON.stringify(row)) this.#changes++;
  }

  /** Takes what one checked JSON answer shows; only successful answers count. True when it showed something. */
  observe(exchange: Exchange, status: number, json: unknown): boolean {
    if (status < 200 || status > 299 || typeof json !== 'object' || json === null) return false;
    const op = exchange.operation;
    if (!op) return false;
    const deleted = DELETES[op.operationId];
    if (deleted) return this.#tables.get(deleted)?.delete(Number(exchange.params.id)) ?? false;
    const before = this.#changes;
    const body = json as Record<string, unknown>;
    for (const [member, table] of Object.entries(MEMBERS)) {
      const value = body[member];
      for (const row of Array.isArray(value) ? value : [value]) if (isRow(row)) this.#put(table, row);
    }
    // Order lines and participants come from their own operations, under generic names.
    if (op.operationId === 'listOrderItems' && Array.isArray(body.items))
      for (const row of body.items) if (isRow(row)) this.#put('orderItems', row);
    if (op.operationId === 'listOrderBuddies' && Array.isArray(body.buddies))
      for (const row of body.buddies) if (isRow(row)) this.#put('buddies', row);
    if ((op.operationId === 'createSession' || op.operationId === 'getSession') && isRow(body.api_user))
      this.#login(body.api_user);
    return this.#changes !== before;
  }

  /** An API user seen logging in, with its account (a dispatcher's comes only from here). */
  #login(user: Row): void {
    const { id, login, name, phone, avatar, account } = user;
    this.#put('apiUsers', { id, login, name, phone, avatar, account, password: REPLAY_PASSWORD, api_key: null });
    const acc = account as { type?: string; id?: number } | undefined;
    if (acc?.type === 'dispatcher' && Number.isInteger(acc.id)) this.#put('dispatchers', { id: acc.id!, name });
  }

  /** Number of records seen, per table (those left out included). */
  counts(): Record<string, number> {
    return Object.fromEntries([...this.#tables].map(([table, rows]) => [table, rows.size]));
  }

  /** The fixture of everything seen that a fixture can hold, client data redacted when a redactor was given. */
  toFixture(): MockStateJson {
    return this.build().fixture;
  }

  /**
   * The recording so far: a fixture that validates, and the records left out of it with their reasons.
   * Records are completed first (an order's organization from its restaurant); a record the fixture
   * schema still refuses is left out, naming the field, rather than the whole fixture refused.
   */
  build(): Recording {
    const leftOut: LeftOutRecord[] = [];
    const rows = (table: RecordedTable): Row[] =>
      [...(this.#tables.get(table)?.values() ?? [])].sort((a, b) => a.id - b.id);
    const restaurants = this.#tables.get('restaurants') ?? new Map<number, Row>();
    const lists = new Map<string, Row[]>();
    for (const table of [
      'apiUsers',
      'staffMembers',
      'dispatchers',
      'couriers',
      'organizations',
      'restaurants',
      'deliveryZones',
      'payments',
    ] as const)
      lists.set(table, rows(table));
    // A category's dish list is derived from the dishes; the stored record does not hold it.
    lists.set(
      'draftCategories',
      rows('draftCategories').map(({ draft_dish_ids: _ids, ...category }) => category as Row),
    );
    lists.set('draftDishes', rows('draftDishes'));
    const orders: Row[] = [];
    for (const order of rows('orders')) {
      const record = orderRecord(order, restaurants);
      if (record) orders.push(this.#redactOrder(record));
      else leftOut.push({ table: 'orders', id: order.id, reason: UNKNOWN_ORGANIZATION, record: order });
    }
    lists.set('orders', orders);
    lists.set('orderItems', rows('orderItems'));
    lists.set(
      'buddies',
      rows('buddies').map((buddy) =>
        this.redactor ? { ...buddy, name: this.redactor.name(String(buddy.name)) } : buddy,
      ),
    );
    // Whatever the schema still refuses is a record the answers showed differently than the fixture holds
    // it; that record goes, with the schema's words, and the rest is checked again.
    for (let round = 0; ; round++) {
      const fixture = fixtureOf(lists);
      const checked = validateFixture(fixture);
      if (checked.valid) {
        const kept = Object.fromEntries(
          [...lists].filter(([, list]) => list.length > 0).map(([t, l]) => [t, l.length]),
        );
        return { fixture, kept, leftOut };
      }
      const refused = new Map<string, string>();
      for (const issue of checked.issues) {
        const at = /^\/(\w+)\/rows\/(\d+)(\/.*)?$/.exec(issue.pointer);
        if (!at || round > 50) throw new Error(`the recorded fixture does not validate: ${issue.message}`);
        const key = `${at[1]}/${at[2]}`;
        if (!refused.has(key))
          refused.set(
            key,
            `the fixture schema refuses it: ${issue.message.replace(`/${key.replace('/', '/rows/')}`, '') || issue.message}`,
          );
      }
      for (const [key, reason] of refused) {
        const [table, index] = key.split('/') as [string, string];
        const list = lists.get(table)!;
        const row = list[Number(index)]!;
        leftOut.push({ table, id: row.id, reason, record: row });
      }
      for (const [table, list] of lists)
        lists.set(
          table,
          list.filter((_row, index) => !refused.has(`${table}/${index}`)),
        );
    }
  }

  #redactOrder(order: Row): Row {
    const r = this.redactor;
    if (!r) return order;
    const address = String(order.address);
    const fake = r.address(address);
    return {
      ...order,
      contact_name: r.name(String(order.contact_name)),
      contact_phone: r.phone(String(order.contact_phone)),
      address: fake,
      // The readable address repeats the street address; the rest (apartment, floor, city) stays.
      address_text: address === '' ? order.address_text : String(order.address_text).split(address).join(fake),
    };
  }

  /**
   * Writes the recording so far atomically (a temporary file renamed over `file`, so a reader or a crash
   * sees the previous recording or this one, never a mix), and the records left out beside it in
   * `<file>.left-out.json` (removed when none are). Returns what was written. `draft` writes compact JSON
   * without flushing to disk: for the save after every answer, which must be quick and survive the proxy
   * being killed; the final save is indented and flushed.
   */
  async save(file: string, options: { draft?: boolean } = {}): Promise<Recording> {
    const recording = this.build();
    const json = (value: unknown): string => `${JSON.stringify(value, null, options.draft ? undefined : 2)}\n`;
    const write = { sync: !options.draft };
    await writeFileAtomic(file, json(recording.fixture), write);
    const aside = leftOutFile(file);
    if (recording.leftOut.length > 0) await writeFileAtomic(aside, json({ leftOut: recording.leftOut }), write);
    else await rm(aside, { force: true });
    return recording;
  }
}

/** Where the records left out of the recording `file` are kept: `<file>.left-out.json`. */
export function leftOutFile(file: string): string {
  return `${file}.left-out.json`;
}

function fixtureOf(lists: Map<string, Row[]>): MockStateJson {
  const fixture: Record<string, unknown> = { version: 1 };
  for (const [table, list] of lists) if (list.length > 0) fixture[table] = { rows: list };
  return fixture as unknown as MockStateJson;
}

/**
 * What a recording kept and left out, for the console: one line of counts, then one line per table and
 * reason naming the records (`left out 4 orders (5001, 5003, 5004, 5006): no answer showed …`).
 */
export function describeRecording(file: string, recording: Recording): string {
  const kept = Object.entries(recording.kept).map(([table, n]) => `${table} ${n}`);
  const lines = [`recorded ${file}: ${kept.length > 0 ? kept.join(', ') : 'nothing yet'}`];
  const groups = new Map<string, LeftOutRecord[]>();
  for (const record of recording.leftOut) {
    const key = `${record.table}\u0000${record.reason}`;
    groups.set(key, [...(groups.get(key) ?? []), record]);
  }
  for (const records of groups.values()) {
    const ids = records.map((record) => record.id);
    const shown = ids.length > 10 ? `${ids.slice(0, 10).join(', ')}, … ${ids.length - 10} more` : ids.join(', ');
    lines.push(`left out ${records.length} ${records[0]!.table} (${shown}): ${records[0]!.reason}`);
  }
  if (recording.leftOut.length > 0) lines.push(`the records left out are kept in ${leftOutFile(file)}`);
  return lines.join('\n');
}
