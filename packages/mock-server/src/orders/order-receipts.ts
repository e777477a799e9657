import type { MockRuntime } from '../engine/runtime.js';
import type { OrderRecord } from '../state/mock-state.js';
import { storedMoney } from '../model/money.js';
import type { Receipt } from './receipt.js';

/**
 * The printable statement of an order, from the stored order, its items, restaurant and organization.
 * Times print in the time zone of the order's delivery zone (or of a zone of its restaurant), since the
 * API stores no time zone on restaurants; UTC when neither exists.
 */
export function receiptFor(runtime: MockRuntime, order: OrderRecord): Receipt {
  const { state } = runtime;
  const restaurant = state.restaurants.get(order.restaurant_id);
  const organization = state.organizations.get(order.organization_id);
  const zone =
    (order.delivery_zone_id === null ? undefined : state.deliveryZones.get(order.delivery_zone_id)) ??
    state.deliveryZones.find((candidate) => candidate.restaurant_id === order.restaurant_id);
  const items = state.orderItems.filter((item) => item.order_id === order.id).sort((a, b) => a.id - b.id);
  // `change` 0 is how the order says "no change needed"; the receipt then prints no change line.
  const change = order.change > 0 ? storedMoney(order.change).toString() : null;
  return {
    organizationName: organization?.name ?? restaurant?.name ?? '',
    restaurant: { name: restaurant?.name ?? '', address: restaurant?.address ?? '', phone: restaurant?.phone ?? '' },
    orderNumber: order.number,
    createdAt: order.created_at,
    timezone: zone?.timezone ?? 'UTC',
    client: { name: order.contact_name, phone: order.contact_phone },
    addressText: order.address_text,
    lines: items.map((item) => ({
      name: item.name,
      amount: item.amount,
      configText: item.config_text,
      linePrice: item.price,
    })),
    itemsTotal: order.total,
    deliveryPrice: order.delivery_price,
    finalSum: storedMoney(order.final_sum).toString(),
    paymentSource: order.payment_source,
    change,
    comment: order.description || null,
  };
}
