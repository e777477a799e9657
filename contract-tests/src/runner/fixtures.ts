/* eslint-disable @typescript-eslint/no-explicit-any */
import type { ResolvedConfig, Role } from '../config.js';
import type { ControlClient } from '../control.js';
import { pointInside } from './geometry.js';
import type { ApiResponse, RequestSpec, StatusExpectation } from './http.js';

/** A record as the API returns it (the suite reads it loosely and checks what it needs). */
export type Rec = Record<string, any>;

/** The calls the fixtures make as a role: a `Client` of the test's context. */
export interface FixtureClient {
  /** The session the calls carry, if any. */
  readonly session: { accountId: number } | undefined;
  get(path: string, query?: RequestSpec['query']): Promise<ApiResponse>;
  post(path: string, json?: unknown, extra?: Partial<RequestSpec>): Promise<ApiResponse>;
  put(path: string, json?: unknown, extra?: Partial<RequestSpec>): Promise<ApiResponse>;
}

/**
 * What the fixtures use of a test's context. `TestContext` has all of it; it is declared here, not imported,
 * because the context creates the fixtures, and the two modules would otherwise import each other.
 */
export interface FixtureContext {
  readonly config: ResolvedConfig;
  readonly control: ControlClient;
  readonly hasControl: boolean;
  /** Whether the run checks decisions too (`full`): only then may a fixture rely on a decided answer. */
  readonly full: boolean;
  /** The `per_page` to read every page with (none under `spec`, whose service picks its own default). */
  readonly listPage: { per_page?: number };
  as(role: Role): Promise<FixtureClient>;
  setup<T>(what: string, fn: () => Promise<T>): Promise<T>;
  unique(prefix?: string): string;
  skip(reason: string): never;
  fail(message: string): never;
  check(condition: unknown, message: string): void;
  present<T>(value: T | undefined | null | false | '' | 0, message: string): T;
  equal<T>(actual: T, expected: T, message: string): void;
  list<T>(body: unknown, path: readonly (string | number)[], what: string, optional?: boolean): T[];
  dig<T>(body: unknown, path: readonly (string | number)[], what: string): T;
  status(response: ApiResponse, expected: StatusExpectation, what?: string): void;
}

/** Order statuses a courier may leave for `delivery`/`complete`. */
const TERMINAL = new Set(['complete', 'cancelled']);

/**
 * Whether an import state says a job runs: `busy` (the spec's word), or a job `queued` or `working` (the spec's only
 * job_status). Any other value, whatever its name, means the job is over.
 */
function importRunning(state: Rec): boolean {
  return state.status === 'busy' || state.job_status === 'queued' || state.job_status === 'working';
}

/**
 * Fixtures: the records tests need, found through the configuration and
 * the API, or created through the API (and the control API where the API
 * has no way). Everything here goes through the checking client.
 */
export class Fixtures {
  private restaurantCache: number[] | undefined;
  private zoneCache: Rec[] | undefined;
  private dayCache: DayNumbering | undefined;

  constructor(private readonly t: FixtureContext) {}

  get orgId(): number {
    return this.t.config.organization.id;
  }

  /** The other organization (scope tests); skips when the configuration names none. */
  foreignOrgId(): number {
    const id = this.t.config.foreignOrganization?.id;
    if (!id) this.t.skip('needs foreignOrganization in the configuration');
    return id;
  }

  requireMutations(): void {
    if (!this.t.config.capabilities.mutations) this.t.skip('changes data, but capabilities.mutations is false');
  }

  /** Restaurants of the organization (configuration, else `GET /api/restaurants?organization_id`). */
  async restaurantIds(): Promise<number[]> {
    if (this.restaurantCache) return this.restaurantCache;
    const configured = this.t.config.organization.restaurantIds;
    if (configured?.length) return (this.restaurantCache = configured);
    const staff = await this.t.as('staffMember');
    const response = await staff.get('/api/restaurants', { organization_id: this.orgId });
    this.t.status(response, 200, "listing the organization's restaurants");
    const ids = this.t
      .list<Rec>(response.body, ['restaurants'], "the organization's restaurants")
      .map((r) => Number(r.id));
    if (ids.length === 0) this.t.skip('the organization has no restaurant');
    return (this.restaurantCache = ids);
  }

  /** The organization's delivery zones, as its staff member sees them. */
  async zones(): Promise<Rec[]> {
    if (this.zoneCache) return this.zoneCache;
    const staff = await this.t.as('staffMember');
    const response = await staff.get('/api/delivery_zones', { organization_id: this.orgId });
    this.t.status(response, 200, "listing the organization's delivery zones");
    return (this.zoneCache = this.t
      .list<Rec>(response.body, ['delivery_zones'], 'the list of delivery zones')
      .filter((z) => z.organization_id === this.orgId));
  }

  /**
   * How the service numbers timetable days, learnt from what it returns: its zones' timetables when they hold
   * 0 or 7, else a zone the suite creates and reads back with a Sunday entry (7 tried first, then 0). The
   * spec says only "day-of-week number", so neither is assumed.
   */
  async dayNumbering(): Promise<DayNumbering> {
    if (this.dayCache) return this.dayCache;
    const seen = new Set(
      (await this.zones()).flatMap((z) => ((z.timetables ?? []) as Rec[]).map((e) => e.day as unknown)),
    );
    if (seen.has(0) !== seen.has(7)) {
      const sunday = seen.has(0) ? 0 : 7;
      const days = [...seen].sort((a, b) => Number(a) - Number(b)).join(', ');
      return (this.dayCache = { sunday, learnt: `the organization's zones use days ${days}` });
    }
    const zone = await this.createZone();
    const staff = await this.t.as('staffMember');
    for (const sunday of [7, 0] as const) {
      const entry = {
        day: sunday,
        open_at: '2000-01-01T10:00:00Z',
        close_at: '2000-01-01T18:00:00Z',
        is_working: true,
      };
      const written = await staff.put(`/api/delivery_zones/${zone.id}`, { timetables: [entry] });
      if (written.status < 200 || written.status >= 300) continue;
      const read = await staff.get(`/api/delivery_zones/${zone.id}`);
      this.t.status(read, 200, 'reading back a zone with a Sunday timetable');
      if (this.t.list<Rec>(read.body, ['timetables'], 'the timetables of the zone', true).some((e) => e.day === sunday))
        return (this.dayCache = {
          sunday,
          learnt: `a zone created by the suite keeps a timetable entry for day ${sunday}`,
        });
    }
    this.t.fail('a zone keeps a timetable entry for neither day 7 nor day 0: the service has no number for Sunday');
  }

  /** A zone with an area and a point inside it (optionally of a restaurant). */
  async zonePoint(restaurantId?: number): Promise<{ zone: Rec; lat: number; lon: number }> {
    for (const zone of await this.zones()) {
      if (restaurantId !== undefined && zone.restaurant_id !== restaurantId) continue;
      if (typeof zone.area !== 'string') continue;
      const point = pointInside(zone.area);
      if (point) return { zone, ...point };
    }
    this.t.skip(
      `no delivery zone with an area${restaurantId ? ` for restaurant ${restaurantId}` : ''} in organization ${this.orgId}`,
    );
  }

  /** The account id (courier id for couriers) of a role's session. */
  async accountId(role: Role): Promise<number> {
    return (await this.t.as(role)).session!.accountId;
  }

  /** An order of the order-import format, inside a zone, with a unique external id and contact name. */
  async orderDraft(overrides: Rec = {}): Promise<Rec> {
    const { zone, lat, lon } = await this.zonePoint(overrides.restaurant_id as number | undefined);
    const marker = this.t.unique('CT');
    return {
      external_id: `ext-${marker}`,
      status: 'pending',
      city: 'Berlin',
      address: `Contract Street ${marker}`,
      latitude: lat,
      longitude: lon,
      contact_name: `Contract ${marker}`,
      contact_phone: '+49 30 5550000',
      payment_source: 'cash',
      delivery_asap: true,
      buddies: [{ items: [{ name: 'Contract dish', amount: 1, price: 10 }] }],
      ...overrides,
      ...(overrides.restaurant_id === undefined
        ? {}
        : { restaurant_id: overrides.restaurant_id, delivery_zone_id: zone.id }),
    };
  }

  /** `POST /api/organizations/{id}/import/orders` as the staff member. */
  async importOrders(orders: Rec[], existing?: 'update' | 'ignore'): Promise<ApiResponse> {
    this.requireMutations();
    const staff = await this.t.as('staffMember');
    return staff.post(
      `/api/organizations/${this.orgId}/import/orders`,
      { orders },
      existing ? { query: { existing } } : {},
    );
  }

  /**
   * Finds an order by its contact name among the organization's orders, on the first `pages` pages (newest first
   * under the decided sort). An absence check passes 1: it reads what a presence check finds the order on, so a
   * service with 100,000 orders costs it no more requests than the demo.
   */
  async findOrderByContact(contactName: string, restaurantId?: number, pages = 4): Promise<Rec | undefined> {
    const reader = await this.t.as('staffMember');
    // A few pages: an order the test just made is among the newest; a service's thousands of others are not read.
    for (let page = 1; page <= pages; page += 1) {
      const response = await reader.get('/api/orders', {
        page,
        ...this.t.listPage,
        ...(restaurantId ? { restaurant_id: restaurantId } : {}),
      });
      this.t.status(response, 200, 'listing orders to find a fixture order');
      const orders = this.t.list<Rec>(response.body, ['orders'], 'the list of orders');
      const found = orders.find((o) => o.contact_name === contactName);
      if (found) return found;
      if (orders.length === 0 || page >= Number(response.body?.meta?.page_count ?? 0)) return undefined;
    }
    return undefined;
  }

  /**
   * Creates an order through the order import (spec), then assigns a courier
   * with `PUT /api/orders/{id}` (spec: courier_id is editable) when asked.
   */
  async createOrder(options: { courier?: Role; restaurantId?: number; draft?: Rec } = {}): Promise<Rec> {
    const draft = await this.orderDraft({
      ...(options.restaurantId ? { restaurant_id: options.restaurantId } : {}),
      ...options.draft,
    });
    const response = await this.importOrders([draft]);
    this.t.status(response, '2xx', 'importing a fixture order');
    const item = response.body?.organization_import?.[0];
    this.t.check(item?.status === 'imported', `the fixture order was not imported: ${JSON.stringify(item)}`);
    const order = this.t.present(
      await this.findOrderByContact(draft.contact_name as string),
      `the imported fixture order (contact ${draft.contact_name}) is not in the organization's order list`,
    );
    if (options.courier) return this.assignCourier(order.id as number, options.courier);
    return order;
  }

  /** Assigns the role's courier to an order (as the dispatcher). */
  async assignCourier(orderId: number, courier: Role | null): Promise<Rec> {
    const dispatcher = await this.t.as('dispatcher');
    const courierId = courier ? await this.accountId(courier) : null;
    const response = await dispatcher.put(`/api/orders/${orderId}`, { order: { courier_id: courierId } });
    this.t.status(response, '2xx', `assigning courier ${courierId} to order ${orderId}`);
    return this.order(orderId);
  }

  /** `GET /api/orders/{id}` as a role (the order itself). */
  async order(id: number, role: Role = 'dispatcher'): Promise<Rec> {
    const client = await this.t.as(role);
    const response = await client.get(`/api/orders/${id}`);
    this.t.status(response, 200, `reading order ${id}`);
    return this.t.dig<Rec>(response.body, ['order'], `order ${id}`);
  }

  /** A non-terminal order assigned to the role's courier (created when needed and allowed). */
  async courierOrder(role: Role = 'courier'): Promise<Rec> {
    const courier = await this.t.as(role);
    const response = await courier.get('/api/orders', this.t.listPage);
    this.t.status(response, 200, "listing the courier's orders");
    const open = this.t
      .list<Rec>(response.body, ['orders'], "the courier's orders")
      .find((o) => !TERMINAL.has(String(o.status)));
    if (open) return open;
    return this.createOrder({ courier: role });
  }

  /** A draft category of the organization. */
  async category(): Promise<Rec> {
    const staff = await this.t.as('staffMember');
    const response = await staff.get('/api/draft_categories', { organization_id: this.orgId });
    this.t.status(response, 200, 'listing draft categories');
    const found = this.t
      .list<Rec>(response.body, ['draft_categories'], 'the list of draft categories')
      .find((c) => c.organization_id === this.orgId);
    if (found) return found;
    return this.createCategory();
  }

  /** Creates a draft category (`POST /api/draft_categories`, decided; skips when the implementation has no such operation). */
  async createCategory(name = `Contract category ${this.t.unique()}`): Promise<Rec> {
    this.requireMutations();
    const staff = await this.t.as('staffMember');
    const response = await staff.post('/api/draft_categories', {
      draft_category: { name, organization_id: this.orgId },
    });
    // A 404, 405 or 501 skips the test under `spec`, naming the decision (creating a category is not shown).
    this.t.status(response, '2xx', 'creating a draft category');
    return this.t.dig<Rec>(response.body, ['draft_category'], 'the created draft category');
  }

  /** Creates a draft dish with the spec's required fields. */
  async createDish(overrides: Rec = {}): Promise<Rec> {
    this.requireMutations();
    const category = overrides.draft_category_id ? { id: overrides.draft_category_id } : await this.category();
    const staff = await this.t.as('staffMember');
    const response = await staff.post('/api/draft_dishes', {
      draft_dish: {
        name: `Contract dish ${this.t.unique()}`,
        price: '12.50',
        draft_category_id: category.id,
        organization_id: this.orgId,
        // Visible on the storefront: the default of is_hidden is decided (DraftDishCreate), the field stated.
        is_hidden: false,
        ...overrides,
      },
    });
    this.t.status(response, '2xx', 'creating a draft dish');
    return this.t.dig<Rec>(response.body, ['draft_dish'], 'the created draft dish');
  }

  /** Creates a delivery zone with the required fields and a valid area. */
  async createZone(overrides: Rec = {}): Promise<Rec> {
    this.requireMutations();
    const [restaurantId] = await this.restaurantIds();
    const staff = await this.t.as('staffMember');
    const response = await staff.post('/api/delivery_zones', {
      organization_id: this.orgId,
      restaurant_id: restaurantId,
      name: `Contract zone ${this.t.unique()}`,
      area: VALID_AREA,
      ...overrides,
    });
    this.t.status(response, '2xx', 'creating a delivery zone');
    this.zoneCache = undefined;
    return this.t.dig<Rec>(response, ['body'], 'the created delivery zone');
  }

  /** Lists the organization's draft dishes. */
  async dishes(): Promise<Rec[]> {
    const staff = await this.t.as('staffMember');
    const response = await staff.get('/api/draft_dishes', { organization_id: this.orgId });
    this.t.status(response, 200, 'listing draft dishes');
    return this.t
      .list<Rec>(response.body, ['draft_dishes'], 'the list of draft dishes')
      .filter((d) => d.organization_id === this.orgId);
  }

  /** Lists the organization's draft categories. */
  async categories(): Promise<Rec[]> {
    const staff = await this.t.as('staffMember');
    const response = await staff.get('/api/draft_categories', { organization_id: this.orgId });
    this.t.status(response, 200, 'listing draft categories');
    return this.t
      .list<Rec>(response.body, ['draft_categories'], 'the list of draft categories')
      .filter((c) => c.organization_id === this.orgId);
  }

  /**
   * Waits, within the import budget, until no job of that import runs, judging nothing: for a test that started a
   * job only to check its answer (a static mock such as Prism shows it busy for ever). Left running, a job changes
   * what later tests read on a service without resets.
   */
  async importSettled(kind: 'menu' | 'clients'): Promise<void> {
    const staff = await this.t.as('staffMember');
    const deadline = Date.now() + this.t.config.timeouts.importMs;
    while (Date.now() < deadline) {
      const state = (await staff.get(`/api/organizations/${this.orgId}/import/${kind}`)).body;
      if (typeof state !== 'object' || state === null || !importRunning(state as Rec)) return;
      await this.importPause();
    }
  }

  /** The wait between two reads of an import state: the control API's clock moved, else a quarter second. */
  private async importPause(): Promise<void> {
    if (this.t.hasControl) await this.t.setup('moving the clock', () => this.t.control.advanceClock(60_000));
    else await new Promise((resolve) => setTimeout(resolve, 250));
  }

  /** Polls `GET …/import/{kind}` until no job runs (moving the control API's clock when there is one). */
  async waitForImport(kind: 'menu' | 'clients'): Promise<Rec> {
    const staff = await this.t.as('staffMember');
    const deadline = Date.now() + this.t.config.timeouts.importMs;
    for (;;) {
      const response = await staff.get(`/api/organizations/${this.orgId}/import/${kind}`);
      this.t.status(response, 200, `reading the ${kind} import state`);
      const state = response.body as Rec;
      this.t.check(
        state !== null && typeof state === 'object' && !Array.isArray(state),
        `expected the ${kind} import state (an object with status and job_status), got ${JSON.stringify(state) ?? 'no body'}`,
      );
      if (!importRunning(state)) return state;
      if (Date.now() > deadline)
        this.t.fail(
          `the ${kind} import did not finish within ${this.t.config.timeouts.importMs} ms: ${JSON.stringify(state)}`,
        );
      await this.importPause();
    }
  }

  /**
   * Whether a finished import succeeded. Only `done` says so, and the spec does not show it (nor `failed`):
   * under `full` anything else fails; under `spec` a `failed` job fails (the service says so), any other
   * value passes, and the tests confirm the import by reading its effect back.
   */
  private importSucceeded(kind: 'menu' | 'client', state: Rec): void {
    const status = state.job_status;
    if (status === undefined || status === null || status === 'done') return;
    if (this.t.full || status === 'failed') this.t.fail(`the ${kind} import did not succeed: ${JSON.stringify(state)}`);
  }

  /** Starts a menu import and waits for it; answers the final job state. */
  async importMenu(body: Rec): Promise<Rec> {
    if (!this.t.config.capabilities.menuImport)
      this.t.skip('replaces the whole draft menu, but capabilities.menuImport is false');
    this.requireMutations();
    await this.waitForImport('menu');
    const staff = await this.t.as('staffMember');
    const response = await staff.post(`/api/organizations/${this.orgId}/import/menu`, body);
    this.t.status(response, '2xx', 'starting a menu import');
    this.t.equal(response.body?.status, 'queued', 'status of a started menu import');
    const state = await this.waitForImport('menu');
    this.importSucceeded('menu', state);
    return state;
  }

  /** Starts a client import and waits for it. */
  async importClients(clients: Rec[], fromScratch = false): Promise<Rec> {
    this.requireMutations();
    await this.waitForImport('clients');
    const staff = await this.t.as('staffMember');
    const response = await staff.post(
      `/api/organizations/${this.orgId}/import/clients`,
      { clients },
      fromScratch ? { query: { from_scratch: true } } : {},
    );
    this.t.status(response, '2xx', 'starting a client import');
    this.t.equal(response.body?.status, 'queued', 'status of a started client import');
    const state = await this.waitForImport('clients');
    this.importSucceeded('client', state);
    return state;
  }

  /** Sets the control API's clock inside the demo zones' opening hours (13:00 in Berlin, today). */
  async openingHours(): Promise<void> {
    const today = new Date().toISOString().slice(0, 10);
    await this.t.setup('the clock', () => this.t.control.setClock(`${today}T12:00:00Z`, false));
  }

  /**
   * Places a storefront order through the control API for a published,
   * visible dish, in a zone of the restaurant; answers the order.
   */
  async storefrontOrder(restaurantId?: number): Promise<Rec> {
    await this.openingHours();
    const answer = await this.storefrontAnswer(await this.zonePoint(restaurantId));
    if (answer.status >= 300)
      this.t.skip(`the storefront refused the fixture order: ${JSON.stringify(answer.body).slice(0, 300)}`);
    return this.t.dig<Rec>(answer.body, ['order'], 'the order');
  }

  /**
   * The control API's answer to a storefront order of a published, visible dish at a point of a zone, at the
   * control API's current time (refused with 422 when the zone is closed then).
   */
  async storefrontAnswer(at: { zone: Rec; lat: number; lon: number }): Promise<{ status: number; body: unknown }> {
    const menu = await this.t.setup('the published menu', () => this.t.control.publishedMenu(this.orgId));
    if (!menu || menu.dishes.length === 0) this.t.skip('the organization has no published menu to order from');
    const { zone, lat, lon } = at;
    const dish = [...menu.dishes].sort(
      (a: Rec, b: Rec) => Number(a.options !== null) - Number(b.options !== null),
    )[0] as Rec;
    const config = ((dish.options ?? []) as Rec[])
      .filter((group) => group.multiple === false || Number(group.min ?? 0) > 0)
      .map((group) => ({
        group: group.name,
        items: (group.items as Rec[]).slice(0, Math.max(1, Number(group.min ?? 1))).map((i) => i.name),
      }));
    const minimal = Number(zone.minimal_order_price ?? 0);
    const amount = Math.min(20, Math.max(1, Math.ceil(minimal / Number(dish.price)) + 1));
    return this.t.setup('a storefront order', () =>
      this.t.control.placeOrder({
        organization_id: this.orgId,
        restaurant_id: zone.restaurant_id,
        latitude: lat,
        longitude: lon,
        city: 'Berlin',
        address: `Contract Street ${this.t.unique()}`,
        contact_name: 'Contract Carrier Client',
        contact_phone: '+49 30 5550001',
        payment_source: 'cash',
        delivery_asap: true,
        items: [{ dish_id: dish.id, amount, ...(config.length ? { config } : {}) }],
      }),
    );
  }
}

/**
 * How a service numbers the days of the week in timetables. Monday to Saturday are 1 to 6 under both numberings
 * in use (ISO 8601 and 0 = Sunday); only Sunday tells them apart.
 */
export interface DayNumbering {
  /** The service's number for Sunday: 7 (ISO 8601, the document's decision) or 0. */
  sunday: 0 | 7;
  /** What the suite saw, for messages. */
  learnt: string;
}

/** The day numbers of a week, Monday first, in a service's numbering. */
export function weekDays(numbering: DayNumbering): number[] {
  return [1, 2, 3, 4, 5, 6, numbering.sunday];
}

/** A simple polygon in Berlin-Kreuzberg (lon lat). */
export const VALID_AREA =
  'POLYGON((13.4000 52.4900, 13.4300 52.4900, 13.4300 52.5050, 13.4000 52.5050, 13.4000 52.4900))';
/** A bow tie: its edges cross, so it is not a simple polygon. */
export const SELF_INTERSECTING_AREA =
  'POLYGON((13.4000 52.4900, 13.4300 52.5050, 13.4300 52.4900, 13.4000 52.5050, 13.4000 52.4900))';
