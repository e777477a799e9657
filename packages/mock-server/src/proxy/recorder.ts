/**
 * `--record FILE`: keeps the resources the upstream's answers showed and writes them as a fixture that
 * `restoapi-mock --seed FILE` accepts, so that the world seen on a staging service replays offline.
 *
 * Tokens and passwords are never written: sessions are left out, and each API user seen logging in is
 * written with the replay password {@link REPLAY_PASSWORD}, so that the same logins work against the
 * replaying mock (`POST /api/session?login=<login>&password=replay`).
 */
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

/** What the service keeps beside an order's public fields, as a fresh mock would have it for an order it did not place. */
function orderRecord(order: Row, restaurants: Map<number, Row>): Row {
  const restaurant = restaurants.get(order.restaurant_id as number);
  return {
    ...order,
    organization_id: (restaurant?.organization_id as number | undefined) ?? 0,
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

  constructor(private readonly redactor?: ClientRedactor) {}

  #put(table: RecordedTable, row: Row): void {
    let rows = this.#tables.get(table);
    if (!rows) this.#tables.set(table, (rows = new Map()));
    rows.set(row.id, row);
  }

  /** Takes what one checked JSON answer shows; only successful answers count. */
  observe(exchange: Exchange, status: number, json: unknown): void {
    if (status < 200 || status > 299 || typeof json !== 'object' || json === null) return;
    const op = exchange.operation;
    if (!op) return;
    const deleted = DELETES[op.operationId];
    if (deleted) {
      this.#tables.get(deleted)?.delete(Number(exchange.params.id));
      return;
    }
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
  }

  /** An API user seen logging in, with its account (a dispatcher's comes only from here). */
  #login(user: Row): void {
    const { id, login, name, phone, avatar, account } = user;
    this.#put('apiUsers', { id, login, name, phone, avatar, account, password: REPLAY_PASSWORD, api_key: null });
    const acc = account as { type?: string; id?: number } | undefined;
    if (acc?.type === 'dispatcher' && Number.isInteger(acc.id)) this.#put('dispatchers', { id: acc.id!, name });
  }

  /** Number of records kept, per table. */
  counts(): Record<string, number> {
    return Object.fromEntries([...this.#tables].map(([table, rows]) => [table, rows.size]));
  }

  /** The fixture of everything seen, client data redacted when a redactor was given. */
  toFixture(): MockStateJson {
    const rows = (table: RecordedTable): Row[] =>
      [...(this.#tables.get(table)?.values() ?? [])].sort((a, b) => a.id - b.id);
    const restaurants = this.#tables.get('restaurants') ?? new Map<number, Row>();
    const fixture: Record<string, unknown> = { version: 1 };
    const set = (table: RecordedTable, list: Row[]): void => {
      if (list.length > 0) fixture[table] = { rows: list };
    };
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
      set(table, rows(table));
    // A category's dish list is derived from the dishes; the stored record does not hold it.
    set(
      'draftCategories',
      rows('draftCategories').map(({ draft_dish_ids: _ids, ...category }) => category as Row),
    );
    set('draftDishes', rows('draftDishes'));
    set(
      'orders',
      rows('orders').map((order) => this.#redactOrder(orderRecord(order, restaurants))),
    );
    set('orderItems', rows('orderItems'));
    set(
      'buddies',
      rows('buddies').map((buddy) =>
        this.redactor ? { ...buddy, name: this.redactor.name(String(buddy.name)) } : buddy,
      ),
    );
    return fixture as unknown as MockStateJson;
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
   * Checks the fixture with the fixture validator and writes it atomically; throws, writing nothing,
   * when it does not validate (the message names the JSON pointer).
   */
  async save(file: string): Promise<MockStateJson> {
    const fixture = this.toFixture();
    const checked = validateFixture(fixture);
    if (!checked.valid)
      throw new Error(
        `the recorded fixture does not validate, ${file} not written: ${checked.issues
          .slice(0, 5)
          .map((issue) => issue.message)
          .join('; ')}`,
      );
    await writeFileAtomic(file, `${JSON.stringify(fixture, null, 2)}\n`);
    return fixture;
  }
}
