import { openapiDocument } from '@restoapi/openapi';
import type { TestContext } from '../runner/context.js';
import type { Rec } from '../runner/fixtures.js';
import { CallbackReceiver, type ReceivedCallback } from '../runner/receiver.js';
import { component, defineTest, opPointer, resourceRows } from './define.js';

export const VIEW_FIELDS = [
  'id',
  'secure_id',
  'number',
  'created_at',
  'delivery',
  'order_status',
  'description, contact_phone, contact_name',
  'delivery_time',
  'delivery_at',
  'pickup_at',
  'delivery_asap',
  'payment_source',
  'destination',
  'restaurant',
  'change',
  'items_price',
  'delivery_price',
  'final_price',
  'items',
];
export const DELIVERY_FIELDS = [
  'status',
  'message',
  'courier_name',
  'courier_phone',
  'courier_external_id',
  'lat, lon',
];

/** The decision of the status an `order_status_changed` callback names (the main API's). */
const STATUS_IN_EVENT = component('schemas', 'OrderStatusChangedEvent/properties/status');
/** The main API's order statuses (`OrderStatus` of the document), which the decided callbacks name. */
const MAIN_STATUSES = (openapiDocument as { components: { schemas: { OrderStatus: { enum: string[] } } } }).components
  .schemas.OrderStatus.enum;
/** The decisions of the callbacks' form (an empty body) and of their kinds (only these two). */
const CREATED_CALLBACK = '/webhooks/order_created/post';
const STATUS_CALLBACK = '/webhooks/order_status_changed/post';
const EVENT_KINDS = component('schemas', 'CallbackEvent');

/** The component schema of each callback's event (the webhooks' query parameters are its properties). */
const EVENT_SCHEMAS = {
  orderCreatedCallback: 'OrderCreatedEvent',
  orderStatusChangedCallback: 'OrderStatusChangedEvent',
} as const;

export interface HandedOver {
  secureId: string;
  orderId: number | undefined;
  receiver: CallbackReceiver | undefined;
  created: ReceivedCallback | undefined;
}

/** Checks a received callback against the document's webhook and records it in the coverage. */
export function checkCallback(
  t: TestContext,
  callback: ReceivedCallback,
  operationId: 'orderCreatedCallback' | 'orderStatusChangedCallback',
): void {
  t.equal(callback.method, 'POST', 'method of the callback');
  const result = t.validator.validateRequest(operationId, {
    query: new URLSearchParams(callback.query),
    headers: Object.fromEntries(
      Object.entries(callback.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : v]),
    ),
  });
  // What the document decided (the status an event names, say) warns under spec; the rest is stated.
  const stated: string[] = [];
  for (const issue of result.valid ? [] : result.issues) {
    // A parameter repeats its event schema's property (CallbackEvent): a marker there decides the value too.
    const classifier = t.runtime.http.classifier;
    const property =
      issue.in === 'query' && issue.name
        ? `/components/schemas/${EVENT_SCHEMAS[operationId]}/properties/${issue.name}`
        : '';
    const decision =
      classifier.requestDecision(operationId, issue) ?? (property ? classifier.decisionAt(property) : undefined);
    const message = `the ${callback.query.type} callback does not match the document: ${issue.message} at ${issue.pointer}`;
    if (decision) t.decided(decision.pointer, false, message);
    else stated.push(issue.message);
  }
  t.check(stated.length === 0, `the ${callback.query.type} callback does not match the document: ${stated.join('; ')}`);
  t.runtime.http.options.coverage.record(operationId, 204);
}

/** Waits for a callback, moving the mock's clock so due deliveries are attempted. */
export async function waitForCallback(
  t: TestContext,
  receiver: CallbackReceiver,
  predicate: (c: ReceivedCallback) => boolean,
): Promise<ReceivedCallback | undefined> {
  return receiver.waitFor(
    predicate,
    t.config.timeouts.callbackMs,
    t.hasControl ? () => t.setup('moving the clock', () => t.control.advanceClock(1_000)) : undefined,
  );
}

/**
 * An order handed to a carrier: with the control API a receiver is
 * registered as a carrier and a storefront order placed; otherwise the
 * configuration's `carrier.secureId` is used.
 */
export async function handedOverOrder(t: TestContext): Promise<HandedOver> {
  if (!t.hasControl) {
    const secureId = t.config.carrier?.secureId;
    if (!secureId) t.skip('needs the control API or carrier.secureId in the configuration');
    return { secureId, orderId: undefined, receiver: undefined, created: undefined };
  }
  const receiver = await CallbackReceiver.start(t.config.carrier?.callbackHost);
  t.cleanup(() => receiver.close());
  const { zone } = await t.fixtures.zonePoint();
  await t.setup('a carrier', () =>
    t.control.registerCarrier({
      name: 'Contract carrier',
      callback_url: receiver.url,
      restaurant_ids: [zone.restaurant_id as number],
    }),
  );
  const order = await t.fixtures.storefrontOrder(zone.restaurant_id as number);
  const created = await waitForCallback(
    t,
    receiver,
    (c) => c.query.type === 'order_created' && Number(c.query.order_id) === order.id,
  );
  if (!created)
    t.fail(
      `no order_created callback for order ${order.id} reached ${receiver.url} within ${t.config.timeouts.callbackMs} ms (received: ${JSON.stringify(receiver.received.map((c) => c.query))})`,
    );
  return { secureId: created.query.order_secure_id!, orderId: order.id as number, receiver, created };
}

async function view(t: TestContext, secureId: string): Promise<Rec> {
  const response = await t.carrier().get(`/orders/${encodeURIComponent(secureId)}`);
  t.status(response, 200, 'reading the carrier order view');
  return t.dig<Rec>(response.body, ['order'], 'the carrier order view');
}

export const carrierTests = [
  defineTest({
    id: 'carrier.round-trip',
    title:
      "Events and Carrier API: order_created reaches the carrier's callback_url, the carrier loads the order by secure_id, updates the delivery block, and hears about status changes",
    clauses: [
      'Events: order_created',
      'Events: order_status_changed',
      'Authentication 8',
      'Endpoints > Carrier API: GET /api-delivery/orders/:secure_id',
      'Endpoints > Carrier API: PUT /api-delivery/orders/:secure_id/delivery',
      ...resourceRows('Carrier order view', VIEW_FIELDS),
      ...resourceRows('Carrier order view > The delivery block', DELIVERY_FIELDS),
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['controlApi', 'mutations', 'carrierApi'],
    timeoutMs: 30_000,
    operations: [
      'getCarrierOrder',
      'updateCarrierDelivery',
      'orderCreatedCallback',
      'orderStatusChangedCallback',
      'setOrderStatus',
      'updateOrder',
    ],
    async run(t) {
      const handed = await handedOverOrder(t);
      checkCallback(t, handed.created!, 'orderCreatedCallback');
      const order = await view(t, handed.secureId);
      t.equal([order.id, order.secure_id], [handed.orderId, handed.secureId], 'id and secure_id of the carrier view');
      const carrier = t.carrier();
      const path = `/orders/${encodeURIComponent(handed.secureId)}/delivery`;
      const assignment = {
        status: 'courier_assigned',
        courier_name: 'Carla Carrier',
        courier_phone: '+49 151 0000000',
        courier_external_id: 4242,
      };
      t.status(await carrier.put(path, assignment), '2xx', 'the carrier assigns its courier');
      const assigned = (await view(t, handed.secureId)).delivery as Rec;
      t.equal(
        {
          status: assigned.status,
          courier_name: assigned.courier_name,
          courier_phone: assigned.courier_phone,
          courier_external_id: assigned.courier_external_id,
        },
        assignment,
        'delivery block after the assignment',
      );
      t.status(
        await carrier.put(path, { lat: 52.5, lon: 13.42, message: 'On the way to the restaurant' }),
        '2xx',
        "the carrier reports its courier's position",
      );
      const moved = (await view(t, handed.secureId)).delivery as Rec;
      t.equal(
        [moved.lat, moved.lon, moved.message, moved.status],
        [52.5, 13.42, 'On the way to the restaurant', 'courier_assigned'],
        'delivery block after a position update (other fields kept)',
      );
      await t.fixtures.assignCourier(handed.orderId!, 'courier');
      t.status(
        await (
          await t.as('courier')
        ).request({ method: 'PUT', path: `/api/orders/${handed.orderId}/status`, query: { status: 'delivery' } }),
        '2xx',
        'the courier sets delivery',
      );
      const changed = t.present(
        await waitForCallback(
          t,
          handed.receiver!,
          (c) =>
            c.query.type === 'order_status_changed' &&
            Number(c.query.order_id) === handed.orderId &&
            (c.query.status === 'delivery' || c.query.status === 'delivering'),
        ),
        `no order_status_changed callback with status delivery (received: ${JSON.stringify(handed.receiver!.received.map((c) => c.query))})`,
      );
      // The spec gives the event's status only as a string: the main API's name is decided, the carrier view's
      // name of the same status (the document's table) is another correct choice.
      t.decided(
        STATUS_IN_EVENT,
        changed.query.status === 'delivery',
        `the order_status_changed callback named the status ${JSON.stringify(changed.query.status)}, the document decided the main API's "delivery"`,
      );
      t.equal(changed.query.order_secure_id, handed.secureId, 'order_secure_id of the status callback');
      checkCallback(t, changed, 'orderStatusChangedCallback');
    },
  }),
  defineTest({
    id: 'carrier.read-and-update',
    title: 'Carrier API: the order is read by secure_id and a delivery message can be set (only the fields sent)',
    clauses: [
      'Endpoints > Carrier API: GET /api-delivery/orders/:secure_id',
      'Endpoints > Carrier API: PUT /api-delivery/orders/:secure_id/delivery',
      'Authentication 8',
      'Resources > Carrier order view > The delivery block: message',
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['carrierApi'],
    operations: ['getCarrierOrder', 'updateCarrierDelivery'],
    async run(t) {
      const handed = await handedOverOrder(t);
      const before = await view(t, handed.secureId);
      const message = `Contract check ${t.unique()}`;
      t.status(
        await t.carrier().put(`/orders/${encodeURIComponent(handed.secureId)}/delivery`, { message }),
        '2xx',
        'setting a delivery message',
      );
      const after = await view(t, handed.secureId);
      t.equal(after.delivery?.message, message, 'delivery.message after the update');
      t.equal(after.delivery?.status, before.delivery?.status, 'delivery.status after a message-only update');
    },
  }),
  defineTest({
    id: 'carrier.decided-delivery-rules',
    title:
      'Carrier API (decided): idle start, status mapping, delivering/delivered move the main order, illegal moves 409, unknown secure_id 404, PUT answers the view',
    clauses: [
      'Endpoints > Carrier API: PUT /api-delivery/orders/:secure_id/delivery',
      'Resources > Carrier order view: order_status',
      'Resources > Carrier order view > The delivery block: status',
    ],
    profile: 'full',
    decisions: [
      opPointer('/api-delivery/orders/{secure_id}', 'get'),
      opPointer('/api-delivery/orders/{secure_id}/delivery', 'put'),
      opPointer('/api-delivery/orders/{secure_id}/delivery', 'put', '/responses/200'),
      component('schemas', 'Delivery'),
      component('schemas', 'DeliveryStatus'),
      component('schemas', 'DeliveryUpdate'),
      component('schemas', 'CarrierOrderStatus'),
      STATUS_IN_EVENT,
      CREATED_CALLBACK,
      STATUS_CALLBACK,
      EVENT_KINDS,
    ],
    kind: 'decision',
    needs: ['controlApi', 'mutations', 'carrierApi'],
    operations: ['getCarrierOrder', 'updateCarrierDelivery', 'getOrder'],
    async run(t) {
      const handed = await handedOverOrder(t);
      const carrier = t.carrier();
      const path = `/orders/${encodeURIComponent(handed.secureId)}/delivery`;
      const start = await view(t, handed.secureId);
      t.equal(
        [start.order_status, start.delivery.status, start.delivery.courier_name],
        ['new', 'idle', null],
        'a handed-over order starts new/idle with empty fields',
      );
      t.status(await carrier.get('/orders/no-such-secure-id-0000000000000000'), 404, 'an unknown secure_id');
      t.status(await carrier.put(path, {}), 422, 'an empty update');
      t.status(await carrier.put(path, { lat: 52.5 }), 422, 'lat without lon');
      t.status(await carrier.put(path, { status: 'delivered' }), 409, 'idle → delivered');
      const assigned = await carrier.put(path, { status: 'courier_assigned' });
      t.status(assigned, 200);
      t.equal(assigned.body?.order?.delivery?.status, 'courier_assigned', 'the PUT answer is the carrier view');
      t.status(await carrier.put(path, { status: 'courier_assigned' }), 200, 'repeating the current status');
      t.status(await carrier.put(path, { status: 'delivering' }), 200);
      t.equal((await t.fixtures.order(handed.orderId!)).status, 'delivery', 'main status after delivering');
      t.equal((await view(t, handed.secureId)).order_status, 'delivering', 'carrier order_status after delivering');
      t.status(await carrier.put(path, { status: 'delivered' }), 200);
      t.equal((await t.fixtures.order(handed.orderId!)).status, 'complete', 'main status after delivered');
      t.status(
        await carrier.get(`/orders/${encodeURIComponent(handed.secureId)}`),
        200,
        'reading a complete order (it stays readable)',
      );
      t.status(await carrier.put(path, { message: 'late' }), 409, 'updating a complete order');
      const statuses = handed
        .receiver!.received.filter(
          (c) => c.query.type === 'order_status_changed' && Number(c.query.order_id) === handed.orderId,
        )
        .map((c) => c.query.status);
      const complete = await waitForCallback(
        t,
        handed.receiver!,
        (c) =>
          c.query.type === 'order_status_changed' &&
          c.query.status === 'complete' &&
          Number(c.query.order_id) === handed.orderId,
      );
      t.check(
        complete,
        `no order_status_changed callback for complete (received statuses ${JSON.stringify(statuses)})`,
      );
      const ours = handed.receiver!.received.filter((c) => Number(c.query.order_id) === handed.orderId);
      const bodies = (type: string): string[] => ours.filter((c) => c.query.type === type && c.body).map((c) => c.body);
      t.decided(
        CREATED_CALLBACK,
        bodies('order_created').length === 0,
        `the order_created callback carried a body: ${JSON.stringify(bodies('order_created'))}`,
      );
      t.decided(
        STATUS_CALLBACK,
        bodies('order_status_changed').length === 0,
        `order_status_changed callbacks carried a body: ${JSON.stringify(bodies('order_status_changed'))}`,
      );
      const kinds = [...new Set(ours.map((c) => c.query.type))];
      t.decided(
        EVENT_KINDS,
        kinds.every((kind) => kind === 'order_created' || kind === 'order_status_changed'),
        `callbacks of kinds the document does not list: ${JSON.stringify(kinds)}`,
      );
      t.decided(
        STATUS_IN_EVENT,
        statuses.every((status) => MAIN_STATUSES.includes(status as string)),
        `order_status_changed callbacks named statuses that are not the main API's: ${JSON.stringify(statuses)}`,
      );
    },
  }),
];
