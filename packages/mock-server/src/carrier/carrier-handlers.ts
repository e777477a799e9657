import { openapiDocument } from '@restoapi/openapi';
import type { components } from '@restoapi/openapi';
import { ok, type HandlerMap } from '../engine/handler.js';
import { HttpError, conflict, errorObject } from '../engine/http-error.js';
import type { MockRuntime } from '../engine/runtime.js';
import { canTransition, changeOrderStatus, type OrderStatus } from '../model/order-status.js';
import { storedMoney } from '../model/money.js';
import {
  DELIVERY_STATE_MACHINE,
  idleDelivery,
  type DeliveryStateMachine,
  type DeliveryStatus,
} from '../model/delivery.js';
import type { OrderRecord } from '../state/mock-state.js';

type S = components['schemas'];
/** The order as the carrier sees it. */
export type CarrierOrder = S['CarrierOrder'];

const schemas = (openapiDocument.components as { schemas: Record<string, Record<string, unknown>> }).schemas;

/** Main status → carrier-view status, read from `x-status-map` so the mapping cannot drift from the document. */
export const CARRIER_STATUS_MAP = schemas.CarrierOrderStatus!['x-status-map'] as Record<
  OrderStatus,
  CarrierOrder['order_status']
>;

/** The order handed to a carrier under this `secure_id`; 404 for any other token, whatever the reason, so tokens cannot be probed. */
export function carrierOrderRecord(runtime: MockRuntime, secureId: string): OrderRecord {
  const order = secureId ? runtime.state.orders.find((o) => o.secure_id === secureId) : undefined;
  if (!order) {
    throw new HttpError(404, [
      errorObject(404, 'not_found', 'Not found', `No order is handed to a carrier under secure_id ${secureId}.`, {
        parameter: 'secure_id',
      }),
    ]);
  }
  return order;
}

/** Builds the carrier view of an order from the order, its restaurant, organization and items. */
export function carrierOrderView(runtime: MockRuntime, order: OrderRecord): CarrierOrder {
  const { state } = runtime;
  const restaurant = state.restaurants.get(order.restaurant_id);
  const organization = state.organizations.get(order.organization_id);
  const items = state.orderItems.filter((item) => item.order_id === order.id);
  const change = storedMoney(order.change ?? 0);
  return {
    id: order.id,
    secure_id: order.secure_id ?? '',
    number: order.number,
    created_at: order.created_at,
    delivery: { ...idleDelivery(), ...order.delivery },
    order_status: CARRIER_STATUS_MAP[order.status],
    description: order.description,
    contact_phone: order.contact_phone,
    contact_name: order.contact_name,
    delivery_time: order.delivery_time,
    delivery_at: order.delivery_at,
    pickup_at: order.pick_up_at,
    delivery_asap: order.delivery_asap,
    payment_source: order.payment_source,
    destination: { address: order.address, city: order.city, lon: order.longitude, lat: order.latitude },
    restaurant: {
      organization_name: organization?.name ?? '',
      name: restaurant?.name ?? '',
      phone: restaurant?.phone ?? '',
      address: restaurant?.address ?? '',
    },
    // The main API stores "no change needed" as 0; the carrier view says it with null.
    change: change.isZero() ? null : change.toNumber(),
    items_price: storedMoney(order.total).toNumber(),
    delivery_price: storedMoney(order.delivery_price).toNumber(),
    final_price: storedMoney(order.final_sum).toNumber(),
    items: items.map((item) => ({
      name: item.name,
      amount: item.amount,
      price: storedMoney(item.price).toNumber(),
      config_text: item.config_text ?? null,
    })),
  };
}

/** The document's transition from one delivery status to another, if the move is allowed. */
export function deliveryTransition(
  from: DeliveryStatus,
  to: DeliveryStatus,
): DeliveryStateMachine['transitions'][number] | undefined {
  return DELIVERY_STATE_MACHINE.transitions.find((t) => t.from === from && t.to === to);
}

/** `GET /orders/{secure_id}` and `PUT /orders/{secure_id}/delivery` of the carrier API (`{base_url}/api-delivery`). */
export const carrierHandlers: HandlerMap = {
  getCarrierOrder({ runtime, params }) {
    const order = carrierOrderRecord(runtime, params.secure_id);
    return ok({ order: carrierOrderView(runtime, order) });
  },

  updateCarrierDelivery({ runtime, params, body }) {
    const order = carrierOrderRecord(runtime, params.secure_id);
    const machine = DELIVERY_STATE_MACHINE;
    // Everything is checked before anything changes: a refused update leaves order, delivery and courier as they were.
    if (machine.lockedByOrderStatus.includes(order.status)) {
      throw conflict(
        'invalid_transition',
        `Order ${order.number} is ${order.status}: its delivery can no longer be updated.`,
        {
          pointer: body.status !== undefined ? '/status' : '',
        },
      );
    }
    const delivery = { ...idleDelivery(), ...order.delivery };
    const target = body.status;
    const moves = target !== undefined && target !== delivery.status;
    const transition = moves ? deliveryTransition(delivery.status, target) : undefined;
    if (moves && !transition) {
      const allowed = machine.transitions.filter((t) => t.from === delivery.status).map((t) => t.to);
      throw conflict(
        'invalid_transition',
        `A delivery in status ${delivery.status} cannot move to ${target}${allowed.length ? `; allowed: ${allowed.join(', ')}` : ` (${delivery.status} is final)`}.`,
        { pointer: '/status' },
      );
    }
    const orderTarget = transition?.setsOrderStatus;
    if (
      orderTarget !== undefined &&
      orderTarget !== order.status &&
      !canTransition('carrier', order.status, orderTarget)
    ) {
      throw conflict(
        'invalid_transition',
        `Order ${order.number} in status ${order.status} cannot move to ${orderTarget}.`,
        { pointer: '/status' },
      );
    }

    if (orderTarget !== undefined) changeOrderStatus(runtime, order, orderTarget, { by: 'carrier' });
    const next = { ...delivery };
    if (target !== undefined) next.status = target;
    if (body.message !== undefined) next.message = body.message;
    if (body.courier_name !== undefined) next.courier_name = body.courier_name;
    if (body.courier_phone !== undefined) next.courier_phone = body.courier_phone;
    if (body.courier_external_id !== undefined) next.courier_external_id = body.courier_external_id;
    if (body.lat !== undefined && body.lon !== undefined) {
      next.lat = body.lat;
      next.lon = body.lon;
      // The carrier's courier plays the part of the order's courier, so its position is the courier's last known one.
      const courier = order.courier_id === null ? undefined : runtime.state.couriers.get(order.courier_id);
      if (courier) courier.last_known_position = { lat: body.lat, lon: body.lon, updated_at: runtime.nowIso() };
    }
    order.delivery = next;
    return ok({ order: carrierOrderView(runtime, order) });
  },
};
