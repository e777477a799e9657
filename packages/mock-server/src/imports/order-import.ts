import type { components } from '@restoapi/openapi';
import { idleDelivery } from '../model/delivery.js';
import { errorObject, type ApiErrorObject, type FieldProblem } from '../engine/http-error.js';
import type { MockRuntime } from '../engine/runtime.js';
import { buildAddressText, orderRecord, TRANSPORTATION_MINUTES } from '../model/order.js';
import { centsText, toCents } from '../model/money.js';
import { deliveryPriceCents, termsInCents, type DeliveryTermsInCents } from '../model/pricing.js';
import { zoneCentre, zoneIndexFor, type DeliveryZone } from '../zones/zone-lookup.js';
import { seesRestaurant, type Actor } from '../session/actor.js';
import type { ClientRecord, OrderRecord } from '../state/mock-state.js';

type S = components['schemas'];
/** One order of the import body. */
export type ImportOrder = S['OrderImportOrder'];
/** The outcome of one imported order. */
export type ImportResult = S['OrderImportResult'];
/** What to do with an `external_id` that was imported before (query `existing`). */
export type ExistingMode = 'update' | 'ignore';
type ImportItem = S['OrderImportItem'];
type Restaurant = S['Restaurant'];
type Organization = S['Organization'];

/** Minutes an imported takeaway order takes when no zone says otherwise (cooking only, no transport). */
export const TAKEAWAY_COOKING_MINUTES = 20;
/** Delivery time of a zone-less delivery order (the zone default of `POST /api/delivery_zones`). */
const DEFAULT_DELIVERY_MINUTES = 60;

/**
 * Checks of the whole body that JSON Schema cannot express (the document: refused with 422 before any
 * order is processed): `client_id` together with `client_external_id`, and buddy ids repeated in an order.
 */
export function orderImportProblems(orders: readonly ImportOrder[]): FieldProblem[] {
  const problems: FieldProblem[] = [];
  orders.forEach((order, index) => {
    if (order.client_id !== undefined && order.client_external_id !== undefined) {
      problems.push({
        pointer: `/orders/${index}/client_id`,
        code: 'invalid_value',
        detail: 'Send either client_id or client_external_id, not both: they could name two different clients.',
      });
    }
    const buddyIds = new Set<string>();
    (order.buddies ?? []).forEach((buddy, b) => {
      if (buddy.id === undefined) return;
      if (buddyIds.has(buddy.id)) {
        problems.push({
          pointer: `/orders/${index}/buddies/${b}/id`,
          code: 'invalid_value',
          detail: `Buddy id "${buddy.id}" is used twice in this order.`,
        });
      }
      buddyIds.add(buddy.id);
    });
  });
  return problems;
}

function problem(pointer: string, code: string, title: string, detail: string, status = 422): ApiErrorObject {
  return errorObject(status, code, title, detail, { pointer });
}

interface Placement {
  restaurant: Restaurant;
  zone: DeliveryZone | undefined;
}

interface LineDraft {
  buddy: number;
  priceCents: number;
  dish_id: number | null;
  name: string;
  amount: number;
  item_price: string;
  price: string;
  config: S['OrderItem']['config'];
  config_text: string | null;
  comment: string | null;
}

/**
 * Imports orders into one organization (Order import rules 1–5), synchronously and in the order given:
 * one result per submitted order. Only the address and zone are validated: coordinates find the zone by
 * point-in-polygon through the spatial index and the zone gives the restaurant; without coordinates,
 * `restaurant_id` and `delivery_zone_id` must be given and agree. `client_id` must exist (else that order
 * alone ends in `error`); `client_external_id` finds or creates the client. A new `pending` order notifies
 * by SMS and e-mail, and every new delivery order is announced as `order_created`. Everything looked up per
 * order is indexed once per request, so 10,000 orders cost a few hash lookups and one R-tree query each.
 */
export function runOrderImport(
  runtime: MockRuntime,
  actor: Actor,
  organization: Organization,
  orders: readonly ImportOrder[],
  existing: ExistingMode,
): ImportResult[] {
  return new OrderImport(runtime, actor, organization).run(orders, existing);
}

class OrderImport {
  private readonly zoneIndex;
  private readonly restaurants = new Map<number, Restaurant>();
  private readonly zones = new Map<number, DeliveryZone>();
  private readonly zoneTerms = new Map<number, DeliveryTermsInCents>();
  /** One timestamp for the whole request: every order of it is imported at the same moment. */
  private readonly now: string;
  private readonly ordersByExternalId = new Map<string, OrderRecord>();
  private readonly clientsByExternalId = new Map<string, ClientRecord>();
  private readonly dishesById = new Map<number, number>();
  private readonly dishesByExternalId = new Map<string, number>();
  private clientsByPhone: Map<string, ClientRecord> | undefined;
  private contentsByOrder: Map<number, { items: number[]; buddies: number[] }> | undefined;

  constructor(
    private readonly runtime: MockRuntime,
    private readonly actor: Actor,
    private readonly organization: Organization,
  ) {
    const { state } = runtime;
    const orgId = organization.id;
    this.zoneIndex = zoneIndexFor(runtime);
    this.now = runtime.nowIso();
    for (const restaurant of state.restaurants.filter((r) => r.organization_id === orgId))
      this.restaurants.set(restaurant.id, restaurant);
    for (const zone of state.deliveryZones.filter((z) => z.organization_id === orgId)) {
      this.zones.set(zone.id, zone);
      this.zoneTerms.set(zone.id, termsInCents(zone));
    }
    for (const order of state.orders.filter((o) => o.organization_id === orgId && o.external_id !== null)) {
      this.ordersByExternalId.set(order.external_id as string, order);
    }
    for (const client of state.clients.filter((c) => c.organization_id === orgId && c.external_id !== null)) {
      this.clientsByExternalId.set(client.external_id as string, client);
    }
    for (const dish of state.draftDishes.filter((d) => d.organization_id === orgId)) {
      this.dishesById.set(dish.id, dish.id);
      if (dish.external_id) this.dishesByExternalId.set(dish.external_id, dish.id);
    }
  }

  run(orders: readonly ImportOrder[], existing: ExistingMode): ImportResult[] {
    return orders.map((input) => this.importOne(input, existing));
  }

  private importOne(input: ImportOrder, existing: ExistingMode): ImportResult {
    const known = this.ordersByExternalId.get(input.external_id);
    if (known && existing === 'ignore') return { external_id: input.external_id, status: 'ignored' };

    const errors: ApiErrorObject[] = [];
    const placement = this.place(input, errors);
    let client: ClientRecord | undefined;
    if (input.client_id !== undefined) {
      client = this.runtime.state.clients.get(input.client_id);
      if (!client || client.organization_id !== this.organization.id) {
        client = undefined;
        errors.push(
          problem(
            '/client_id',
            'not_found',
            'Client not found',
            `Client ${input.client_id} does not exist in organization ${this.organization.id}.`,
          ),
        );
      }
    }
    if (errors.length > 0 || !placement) return { external_id: input.external_id, status: 'error', errors };

    // Only now that the order will be stored may a client be created for it.
    client ??= this.clientFor(input);
    const record = this.store(input, placement, client, known);
    this.ordersByExternalId.set(input.external_id, record);
    if (!known) this.announce(record, client);
    return { external_id: input.external_id, status: 'imported', imported_at: this.now };
  }

  /** Finds the order's restaurant and zone (Order import rules 1, 2), or explains in `errors` why it cannot. */
  private place(input: ImportOrder, errors: ApiErrorObject[]): Placement | undefined {
    const orgId = this.organization.id;
    let restaurant: Restaurant | undefined;
    let zone: DeliveryZone | undefined;
    if (input.restaurant_id !== undefined) {
      restaurant = this.restaurants.get(input.restaurant_id);
      if (!restaurant)
        errors.push(
          problem(
            '/restaurant_id',
            'invalid_value',
            'Unknown restaurant',
            `Restaurant ${input.restaurant_id} is not a restaurant of organization ${orgId}.`,
          ),
        );
    }
    if (input.delivery_zone_id !== undefined) {
      zone = this.zones.get(input.delivery_zone_id);
      if (!zone)
        errors.push(
          problem(
            '/delivery_zone_id',
            'invalid_value',
            'Unknown delivery zone',
            `Delivery zone ${input.delivery_zone_id} is not a zone of organization ${orgId}.`,
          ),
        );
    }
    if (errors.length > 0) return undefined;

    const hasPoint = input.latitude !== undefined && input.longitude !== undefined;
    if (hasPoint && input.takeaway !== true) {
      const lon = input.longitude as number;
      const lat = input.latitude as number;
      const containing = this.zoneIndex.find(lon, lat).flatMap((id) => this.zones.get(id) ?? []);
      if (containing.length === 0) {
        errors.push(
          problem(
            '/latitude',
            'invalid_value',
            'Address outside the delivery zones',
            `The point (${lon} ${lat}) lies in no delivery zone of organization ${orgId}.`,
          ),
        );
        return undefined;
      }
      if (zone) {
        if (!containing.includes(zone)) {
          errors.push(
            problem(
              '/delivery_zone_id',
              'invalid_value',
              'Address outside the zone',
              `The point (${lon} ${lat}) lies outside delivery zone ${zone.id}.`,
            ),
          );
          return undefined;
        }
      } else if (restaurant) {
        const restaurantId = restaurant.id;
        zone = containing.find((candidate) => candidate.restaurant_id === restaurantId);
        if (!zone) {
          errors.push(
            problem(
              '/restaurant_id',
              'invalid_value',
              "Address outside the restaurant's zones",
              `No delivery zone of restaurant ${restaurantId} contains the point (${lon} ${lat}).`,
            ),
          );
          return undefined;
        }
      } else {
        // Overlapping zones: the lowest id wins, as for storefront orders (findZoneForPoint).
        zone = containing[0];
      }
    }
    if (zone && restaurant && zone.restaurant_id !== restaurant.id) {
      errors.push(
        problem(
          '/delivery_zone_id',
          'invalid_value',
          'Zone of another restaurant',
          `Delivery zone ${zone.id} belongs to restaurant ${zone.restaurant_id}, not to restaurant ${restaurant.id}.`,
        ),
      );
      return undefined;
    }
    restaurant ??= zone ? this.restaurants.get(zone.restaurant_id) : undefined;
    if (!restaurant) {
      // The body schema makes every order name a restaurant or a way to find one; a zone whose restaurant is gone ends here.
      errors.push(
        problem(
          '/delivery_zone_id',
          'invalid_value',
          'Zone without restaurant',
          `Delivery zone ${zone?.id ?? '?'} has no restaurant of organization ${orgId}.`,
        ),
      );
      return undefined;
    }
    if (!seesRestaurant(this.actor, restaurant.id)) {
      errors.push(
        problem(
          '/restaurant_id',
          'forbidden',
          'Restaurant not managed by this account',
          `Restaurant ${restaurant.id} is not one of the restaurants this account manages.`,
          403,
        ),
      );
      return undefined;
    }
    return { restaurant, zone };
  }

  /** Rule 3 (client_external_id: found or created from contact_name); without any client reference, the client with the order's phone or a new one. */
  private clientFor(input: ImportOrder): ClientRecord {
    if (input.client_external_id !== undefined) {
      const found = this.clientsByExternalId.get(input.client_external_id);
      if (found) return found;
      const created = this.createClient(
        input,
        input.client_external_id,
        input.contact_name || `Client ${input.client_external_id}`,
      );
      this.clientsByExternalId.set(input.client_external_id, created);
      return created;
    }
    // Every order has a client (`client_id` is required in Order), so an order without a client reference
    // goes to the organization's client with the same phone, or to a new client.
    const phone = input.contact_phone?.trim();
    if (phone) {
      this.clientsByPhone ??= this.indexClientsByPhone();
      const found = this.clientsByPhone.get(phone);
      if (found) return found;
    }
    const created = this.createClient(input, null, input.contact_name || phone || 'Guest');
    if (phone) this.clientsByPhone?.set(phone, created);
    return created;
  }

  private indexClientsByPhone(): Map<string, ClientRecord> {
    const byPhone = new Map<string, ClientRecord>();
    for (const client of this.runtime.state.clients.filter((c) => c.organization_id === this.organization.id)) {
      for (const phone of client.phone_numbers) if (!byPhone.has(phone.trim())) byPhone.set(phone.trim(), client);
    }
    return byPhone;
  }

  private createClient(input: ImportOrder, externalId: string | null, name: string): ClientRecord {
    const address = buildAddressText({ address: input.address ?? null, city: input.city ?? null });
    return this.runtime.state.clients.insert({
      organization_id: this.organization.id,
      external_id: externalId,
      name,
      email: null,
      gender: null,
      birthdate: null,
      registered_at: this.now,
      comment: null,
      addresses: address ? [address] : [],
      phone_numbers: input.contact_phone ? [input.contact_phone] : [],
      tags: [],
      is_blacklisted: false,
    });
  }

  /** Creates the order, or with `existing=update` rewrites the known one, with its buddies and items. */
  private store(
    input: ImportOrder,
    placement: Placement,
    client: ClientRecord,
    known: OrderRecord | undefined,
  ): OrderRecord {
    const { state } = this.runtime;
    const { restaurant, zone } = placement;
    const takeaway = input.takeaway === true;
    const lines = this.lineDrafts(input);
    let dishCount = 0;
    let itemsTotal = 0;
    for (const line of lines) {
      dishCount += line.amount;
      itemsTotal += line.priceCents;
    }
    // The imported total is kept as sent (prices are not recomputed); the lines only stand in when it is absent.
    const total = input.total !== undefined ? toCents(input.total) : itemsTotal;
    const terms = zone ? this.zoneTerms.get(zone.id) : undefined;
    const deliveryPrice = takeaway || !terms ? 0 : deliveryPriceCents(terms, total, dishCount);

    const deliveryTime = takeaway ? TAKEAWAY_COOKING_MINUTES : (zone?.delivery_time ?? DEFAULT_DELIVERY_MINUTES);
    const transportationTime = takeaway ? 0 : Math.min(TRANSPORTATION_MINUTES, deliveryTime);
    const now = this.now;
    const createdAt = input.published_at ?? known?.created_at ?? now;
    const deliveryAt = input.delivery_at ?? new Date(Date.parse(createdAt) + deliveryTime * 60_000).toISOString();
    const point = this.pointOf(input, zone, restaurant);
    const id = known?.id ?? state.orders.peekNextId();
    const record = orderRecord({
      id,
      organizationName: this.organization.name,
      ...(known ? { number: known.number } : {}),
      delivery_time: deliveryTime,
      transportation_time: transportationTime,
      contact_phone: input.contact_phone ?? client.phone_numbers[0] ?? '',
      contact_name: input.contact_name ?? client.name,
      description: input.comment ?? '',
      change: input.change !== undefined ? toCents(input.change) / 100 : 0,
      status: input.status,
      created_at: createdAt,
      courier_confirmed_at: known?.courier_confirmed_at ?? null,
      restaurant_confirmed_at: known?.restaurant_confirmed_at ?? null,
      delivery_asap: input.delivery_asap ?? input.delivery_at === undefined,
      delivery_at: deliveryAt,
      point,
      address: { address: input.address ?? '', city: input.city ?? '' },
      ...(takeaway ? { addressFallback: `Takeaway: ${restaurant.name}, ${restaurant.address}` } : {}),
      payment_source: input.payment_source ?? 'cash',
      totalCents: total,
      deliveryPriceCents: deliveryPrice,
      restaurant_id: restaurant.id,
      client_id: client.id,
      courier_id: known?.courier_id ?? null,
      payment_id: known?.payment_id ?? null,
      organization_id: this.organization.id,
      delivery_zone_id: zone?.id ?? null,
      secure_id: known?.secure_id ?? null,
      carrier_id: known?.carrier_id ?? null,
      delivery: known?.delivery ?? idleDelivery(),
      external_id: input.external_id,
      source: input.source ?? known?.source ?? null,
      takeaway,
      used_bonuses: centsText(toCents(input.used_bonuses ?? 0)),
      // Re-importing changes the status without the state machine or notifications (OrderImportStatus).
      status_changed_at: known && known.status === input.status ? known.status_changed_at : now,
    });
    if (known) this.removeContents(known.id);
    state.orders.put(record);
    this.storeContents(record, input, lines);
    return record;
  }

  /** The order's lines, resolved against the organization's dishes; unknown dishes are accepted (rule 1). */
  private lineDrafts(input: ImportOrder): LineDraft[] {
    const lines: LineDraft[] = [];
    (input.buddies ?? []).forEach((buddy, b) => {
      for (const item of buddy.items) lines.push(this.lineDraft(item, b));
    });
    return lines;
  }

  private lineDraft(item: ImportItem, buddy: number): LineDraft {
    // OrderItem.amount is a whole number; fractional imported quantities are rounded, never below one.
    const amount = Math.max(1, Math.round(item.amount));
    const price = toCents(item.price);
    const itemPrice = item.item_price !== undefined ? toCents(item.item_price) : Math.round(price / item.amount);
    const config =
      item.config && item.config.length > 0
        ? item.config.flatMap((group) =>
            group.items.map((choice) => ({
              group: group.name,
              name: choice.name,
              price: centsText(toCents(choice.price)),
            })),
          )
        : null;
    const configText =
      item.config && item.config.length > 0
        ? item.config.map((group) => `${group.name}: ${group.items.map((choice) => choice.name).join(', ')}`).join('; ')
        : null;
    const dishId =
      (item.dish_id !== undefined ? this.dishesById.get(item.dish_id) : undefined) ??
      (item.dish_external_id !== undefined ? this.dishesByExternalId.get(item.dish_external_id) : undefined) ??
      null;
    return {
      buddy,
      priceCents: price,
      dish_id: dishId,
      name: item.name,
      amount,
      item_price: centsText(itemPrice),
      price: centsText(price),
      config,
      config_text: configText,
      comment: item.comment ?? null,
    };
  }

  private storeContents(order: OrderRecord, input: ImportOrder, lines: readonly LineDraft[]): void {
    const { state } = this.runtime;
    const buddies = input.buddies ?? [];
    const contents = { items: [] as number[], buddies: [] as number[] };
    buddies.forEach((buddy, b) => {
      const name =
        buddy.name ??
        (buddies.length === 1 ? order.contact_name : `${order.contact_name || 'Guest'} (${buddy.id ?? b + 1})`);
      const stored = state.buddies.insert({ order_id: order.id, name, item_ids: [], total: '0.00' });
      let total = 0;
      for (const line of lines) {
        if (line.buddy !== b) continue;
        const item = state.orderItems.insert({
          order_id: order.id,
          buddy_id: stored.id,
          dish_id: line.dish_id,
          name: line.name,
          amount: line.amount,
          item_price: line.item_price,
          price: line.price,
          config: line.config,
          config_text: line.config_text,
          comment: line.comment,
        });
        stored.item_ids.push(item.id);
        contents.items.push(item.id);
        total += line.priceCents;
      }
      stored.total = centsText(total);
      contents.buddies.push(stored.id);
    });
    this.contentsByOrder?.set(order.id, contents);
  }

  private removeContents(orderId: number): void {
    const { state } = this.runtime;
    // Built on the first update only: a plain create-only import never scans the item tables.
    if (!this.contentsByOrder) {
      const byOrder = new Map<number, { items: number[]; buddies: number[] }>();
      const entry = (id: number) => byOrder.get(id) ?? byOrder.set(id, { items: [], buddies: [] }).get(id)!;
      for (const item of state.orderItems.all()) entry(item.order_id).items.push(item.id);
      for (const buddy of state.buddies.all()) entry(buddy.order_id).buddies.push(buddy.id);
      this.contentsByOrder = byOrder;
    }
    const contents = this.contentsByOrder.get(orderId);
    for (const id of contents?.items ?? []) state.orderItems.delete(id);
    for (const id of contents?.buddies ?? []) state.buddies.delete(id);
    this.contentsByOrder.delete(orderId);
  }

  /**
   * The order's coordinates, which the Order schema requires: the imported point, or (without one) the
   * centre of its zone, or of a zone of its restaurant, so the order still shows near where it belongs.
   */
  private pointOf(
    input: ImportOrder,
    zone: DeliveryZone | undefined,
    restaurant: Restaurant,
  ): { lon: number; lat: number } {
    if (input.latitude !== undefined && input.longitude !== undefined)
      return { lon: input.longitude, lat: input.latitude };
    const fallbackZone =
      zone ?? [...this.zones.values()].find((candidate) => candidate.restaurant_id === restaurant.id);
    return (fallbackZone && zoneCentre(fallbackZone)) ?? { lon: 0, lat: 0 };
  }

  /** Rule 5 and the carrier hand-over: a new pending order notifies the client; a new delivery order is announced. */
  private announce(order: OrderRecord, client: ClientRecord): void {
    if (order.status === 'pending') {
      if (order.contact_phone) {
        this.runtime.notify({
          channel: 'sms',
          to: order.contact_phone,
          subject: null,
          text: `Order ${order.number}: we have received your order.`,
          order_id: order.id,
          reason: 'order_imported_pending',
        });
      }
      if (client.email) {
        this.runtime.notify({
          channel: 'email',
          to: client.email,
          subject: `Your order ${order.number} at ${this.organization.name}`,
          text: `Hello ${order.contact_name || client.name}, we have received your order ${order.number} (${order.total} + delivery ${order.delivery_price}) and will deliver it to ${order.address_text}.`,
          order_id: order.id,
          reason: 'order_imported_pending',
        });
      }
    }
    if (!order.takeaway) this.runtime.events.emit({ type: 'order_created', order });
  }
}
