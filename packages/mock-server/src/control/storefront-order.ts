import type { components as ApiComponents, controlComponents as components } from '@restoapi/openapi';
import { DateTime } from 'luxon';
import { unprocessable, type FieldProblem } from '../engine/http-error.js';
import type { MockRuntime } from '../engine/runtime.js';
import { Money } from '../model/money.js';
import { buildAddressText, orderRecord, storefrontOrigin } from '../model/order.js';
import { priceLine, priceOrder, type ConfiguratorGroup, type LinePrice } from '../model/pricing.js';
import type { ClientRecord, DraftDishRecord, OrderRecord, PublishedMenuRecord } from '../state/mock-state.js';
import { nextOpening } from '../zones/timetable.js';
import { findZonesForPoint, isDeliveryZoneOpen, type DeliveryZone } from '../zones/zone-lookup.js';

/** The body of `POST /__mock/orders`. */
export type StorefrontOrder = components['schemas']['StorefrontOrder'];
type OrderItem = ApiComponents['schemas']['OrderItem'];

/** The published menu of an organization (one per organization, stored under its id). */
export function publishedMenuOf(runtime: MockRuntime, organizationId: number): PublishedMenuRecord | undefined {
  const { publishedMenus } = runtime.state;
  return publishedMenus.get(organizationId) ?? publishedMenus.find((menu) => menu.organization_id === organizationId);
}

interface PricedItem {
  dish: DraftDishRecord;
  input: StorefrontOrder['items'][number];
  price: LinePrice;
}

function localDate(at: Date, timezone: string): string {
  return DateTime.fromJSDate(at, { zone: timezone }).toISODate() ?? '';
}

function closedDetail(zone: DeliveryZone, at: Date): string {
  let next: Date | null = null;
  try {
    next = nextOpening(zone.timetables, zone.timezone, at);
  } catch {
    next = null;
  }
  const when = at.toISOString();
  return next
    ? `Delivery zone ${zone.name} is closed at ${when}; it opens next at ${next.toISOString()}.`
    : `Delivery zone ${zone.name} is closed at ${when} and has no opening hours ahead.`;
}

/**
 * Checks an order the way the storefront does and stores it: dishes of the published menu only,
 * configurator choices and prices, the delivery zone by point-in-polygon, the zone's opening hours at
 * the delivery time, the minimal order price. Every problem is collected and refused at once with 422
 * (pointer per field) before anything is written; a valid order is created `pending` with its buddy,
 * items, client and (cashless) payment, the client gets an SMS and `order_created` is emitted.
 */
export function placeStorefrontOrder(runtime: MockRuntime, body: StorefrontOrder): OrderRecord {
  const { state } = runtime;
  const now = runtime.clock.now();
  const problems: FieldProblem[] = [];

  const organization = state.organizations.get(body.organization_id);
  if (!organization) {
    throw unprocessable([
      { pointer: '/organization_id', detail: `Organization ${body.organization_id} does not exist.` },
    ]);
  }
  if (body.restaurant_id !== undefined) {
    const hinted = state.restaurants.get(body.restaurant_id);
    if (!hinted || hinted.organization_id !== organization.id) {
      problems.push({
        pointer: '/restaurant_id',
        detail: `Restaurant ${body.restaurant_id} is not a restaurant of ${organization.name}.`,
      });
    }
  }
  if (body.payment_source === 'card' && !organization.accept_cashless) {
    problems.push({
      pointer: '/payment_source',
      detail: `${organization.name} does not accept cashless payment; pay cash or by card to the courier.`,
    });
  }

  const zone = findZonesForPoint(runtime, organization.id, body.longitude, body.latitude).find(
    (candidate) => body.restaurant_id === undefined || candidate.restaurant_id === body.restaurant_id,
  );
  if (!zone) {
    problems.push({
      pointer: '/latitude',
      detail: `The point (lat ${body.latitude}, lon ${body.longitude}) is outside every delivery zone of ${
        body.restaurant_id === undefined ? organization.name : `restaurant ${body.restaurant_id}`
      }.`,
    });
  }

  const asap = body.delivery_asap ?? true;
  let deliveryAt: Date | undefined;
  if (!asap) {
    if (body.delivery_at === undefined) {
      problems.push({
        pointer: '/delivery_at',
        code: 'required',
        detail: 'delivery_at is required when delivery_asap is false.',
      });
    } else {
      deliveryAt = new Date(body.delivery_at);
      const earliest = now.getTime() + (zone?.delivery_time ?? 0) * 60_000;
      if (deliveryAt.getTime() < earliest) {
        problems.push({
          pointer: '/delivery_at',
          detail: `delivery_at must be at least ${zone?.delivery_time ?? 0} minutes from now (${new Date(earliest).toISOString()}).`,
        });
        deliveryAt = undefined;
      }
    }
  }
  if (zone) {
    // An ASAP order is taken now; a later one must find the zone open when it is to be delivered.
    const at = asap ? now : deliveryAt;
    if (at && !isDeliveryZoneOpen(zone, at))
      problems.push({ pointer: asap ? '/delivery_asap' : '/delivery_at', detail: closedDetail(zone, at) });
  }

  const menu = publishedMenuOf(runtime, organization.id);
  const priced: PricedItem[] = [];
  body.items.forEach((input, index) => {
    const at = `/items/${index}`;
    const dish = menu?.dishes.find((candidate) => candidate.id === input.dish_id);
    if (!menu) {
      problems.push({ pointer: `${at}/dish_id`, detail: `${organization.name} has not published its menu yet.` });
      return;
    }
    if (!dish) {
      const draft = state.draftDishes.get(input.dish_id);
      const why = draft && draft.organization_id === organization.id ? ' (it is a draft not published yet)' : '';
      problems.push({
        pointer: `${at}/dish_id`,
        detail: `Dish ${input.dish_id} is not in the published menu of ${organization.name}${why}.`,
      });
      return;
    }
    if (dish.is_hidden) {
      problems.push({
        pointer: `${at}/dish_id`,
        detail: `Dish ${dish.name} (${dish.id}) is hidden on the storefront.`,
      });
      return;
    }
    const availability = zone
      ? dish.availability?.find((entry) => entry.restaurant_id === zone.restaurant_id)
      : undefined;
    if (availability?.status === 'not_available') {
      problems.push({
        pointer: `${at}/dish_id`,
        detail: `Dish ${dish.name} (${dish.id}) is not available in restaurant ${zone!.restaurant_id}.`,
      });
      return;
    }
    if (dish.is_next_day && zone) {
      const deliveredAt = deliveryAt ?? new Date(now.getTime() + zone.delivery_time * 60_000);
      if (localDate(deliveredAt, zone.timezone) <= localDate(now, zone.timezone)) {
        problems.push({
          pointer: `${at}/dish_id`,
          detail: `Dish ${dish.name} (${dish.id}) can only be delivered from the next day on.`,
        });
        return;
      }
    }
    let result: ReturnType<typeof priceLine>;
    try {
      result = priceLine(
        { price: dish.price, options: (dish.options ?? null) as ConfiguratorGroup[] | null },
        input.config ?? [],
        input.amount,
      );
    } catch {
      problems.push({
        pointer: `${at}/dish_id`,
        detail: `Dish ${dish.id} has an unreadable configurator and cannot be ordered.`,
      });
      return;
    }
    if (!result.ok) {
      for (const error of result.errors) {
        problems.push({
          pointer: `${at}${error.pointer}`,
          code: error.pointer.startsWith('/config') ? 'invalid_configuration' : 'invalid_value',
          detail: error.detail,
        });
      }
      return;
    }
    priced.push({ dish, input, price: result });
  });

  // Totals and the minimal order price need every line priced; with other problems they would only mislead.
  let totals: ReturnType<typeof priceOrder> | undefined;
  if (zone && problems.length === 0) {
    totals = priceOrder(
      priced.map((line) => ({ amount: line.input.amount, linePrice: line.price.linePrice })),
      zone,
    );
    if (!totals.ok) problems.push(...totals.errors.map((error) => ({ pointer: error.pointer, detail: error.detail })));
  }
  if (problems.length > 0 || !zone || !totals) throw unprocessable(problems);

  // Everything is valid: write.
  const restaurant = state.restaurants.get(zone.restaurant_id);
  const nowIso = now.toISOString();
  const id = state.orders.peekNextId();
  const deliverBy = deliveryAt ?? new Date(now.getTime() + zone.delivery_time * 60_000);
  const address = {
    address: body.address,
    apartment: body.apartment ?? '',
    staircase: body.staircase ?? '',
    floor: body.floor ?? '',
    doorphone: body.doorphone ?? '',
    city: body.city ?? '',
  };
  const client = findOrCreateClient(runtime, organization.id, body, buildAddressText(address), nowIso);

  const payment =
    body.payment_source === 'card'
      ? state.payments.insert({
          order_id: id,
          amount: totals.finalSum,
          status: 'pending',
          created_at: nowIso,
          paid_at: null,
        })
      : undefined;
  const buddy = state.buddies.insert({ order_id: id, name: body.contact_name, item_ids: [], total: totals.itemsTotal });
  for (const line of priced) {
    const item: Omit<OrderItem, 'id'> = {
      order_id: id,
      buddy_id: buddy.id,
      dish_id: line.dish.id,
      name: line.dish.name,
      amount: line.input.amount,
      item_price: line.price.unitPrice,
      price: line.price.linePrice,
      config: chosenOptions(line.dish, line.input.config ?? []),
      config_text: line.price.configText,
      comment: line.input.comment ?? null,
    };
    buddy.item_ids.push(state.orderItems.insert(item).id);
  }

  const order = orderRecord({
    id,
    organizationName: organization.name,
    delivery_time: zone.delivery_time,
    contact_phone: body.contact_phone,
    contact_name: body.contact_name,
    description: body.description ?? '',
    change: body.change ?? 0,
    status: 'pending',
    created_at: nowIso,
    courier_confirmed_at: null,
    restaurant_confirmed_at: null,
    delivery_asap: asap,
    delivery_at: deliverBy.toISOString(),
    point: { lon: body.longitude, lat: body.latitude },
    address,
    payment_source: body.payment_source,
    totalCents: Money.of(totals.itemsTotal).toMinorUnits(),
    deliveryPriceCents: Money.of(totals.deliveryPrice).toMinorUnits(),
    restaurant_id: zone.restaurant_id,
    client_id: client.id,
    courier_id: null,
    payment_id: payment?.id ?? null,
    organization_id: organization.id,
    delivery_zone_id: zone.id,
    ...storefrontOrigin(),
    status_changed_at: nowIso,
  });
  state.orders.put(order);

  runtime.notify({
    channel: 'sms',
    to: order.contact_phone,
    subject: null,
    text: `Order ${order.number}: we have received your order.`,
    order_id: id,
    reason: 'order_created',
  });
  if (client.email) {
    runtime.notify({
      channel: 'email',
      to: client.email,
      subject: `Your order ${order.number} at ${organization.name}`,
      text: `Hello ${order.contact_name}, we have received your order ${order.number} from ${restaurant?.name ?? organization.name} (${order.total} + delivery ${order.delivery_price}) and will deliver it to ${order.address_text}.`,
      order_id: id,
      reason: 'order_created',
    });
  }
  runtime.events.emit({ type: 'order_created', order });
  return order;
}

/** The order line's `config`: the chosen options in the dish's order, with their surcharges. */
function chosenOptions(dish: DraftDishRecord, choices: { group: string; items: string[] }[]): OrderItem['config'] {
  const out: NonNullable<OrderItem['config']> = [];
  for (const group of (dish.options ?? []) as ConfiguratorGroup[]) {
    const names = new Set(choices.find((choice) => choice.group === group.name)?.items ?? []);
    for (const item of group.items)
      if (names.has(item.name))
        out.push({ group: group.name, name: item.name, price: Money.of(item.price).toString() });
  }
  return out.length > 0 ? out : null;
}

/** The organization's client with this phone number, or a new one (the storefront registers guests). */
function findOrCreateClient(
  runtime: MockRuntime,
  organizationId: number,
  body: StorefrontOrder,
  address: string,
  now: string,
): ClientRecord {
  const { clients } = runtime.state;
  const known = clients.find(
    (client) => client.organization_id === organizationId && client.phone_numbers.includes(body.contact_phone),
  );
  if (known) {
    if (address && !known.addresses.includes(address)) known.addresses.push(address);
    return known;
  }
  return clients.insert({
    organization_id: organizationId,
    external_id: null,
    name: body.contact_name,
    email: null,
    gender: null,
    birthdate: null,
    registered_at: now,
    comment: null,
    addresses: address ? [address] : [],
    phone_numbers: [body.contact_phone],
    tags: [],
    is_blacklisted: false,
  });
}
