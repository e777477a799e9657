import fc from 'fast-check';
import type { Role } from '../../config.js';
import type { TestContext } from '../../runner/context.js';
import type { Rec } from '../../runner/fixtures.js';
import { handedOverOrder } from '../carrier.js';
import { component, defineTest, opPointer } from '../define.js';
import { fresh, pick, runMachine, type Machine, type Step } from './machine.js';
import { allOrderPages, findOrderByContact, firstOrderPage } from './order-pages.js';

/** The decision that `courier_id: null` takes the courier off an order. */
const COURIER_ID = component('schemas', 'Order/properties/courier_id');

type Status = 'pending' | 'accepted' | 'cooking' | 'ready' | 'delivery' | 'complete' | 'cancelled';

type DeliveryStatus = 'idle' | 'courier_assigned' | 'delivering' | 'delivered' | 'problem';

/** The delivery block of the carrier view, field by field as the carrier set it. */
interface DeliveryModel {
  status: DeliveryStatus;
  message: string | null;
  courier_name: string | null;
  courier_phone: string | null;
  courier_external_id: number | null;
  lat: number | null;
  lon: number | null;
}

interface OrderModel {
  draft: Rec;
  /** Set for the order handed to a carrier: its secure_id and delivery block. */
  carrier?: { secureId: string; delivery: DeliveryModel };
  status: Status;
  contactName: string;
  contactPhone: string;
  description: string | null;
  courierId: number | null;
  confirmed: boolean;
  courierConfirmed: boolean;
  /** undefined until a sequence sets them (what the service derived before is not the model's business). */
  deliveryAt?: string;
  deliveryPrice?: number;
  restaurantId: number;
  /** The client the service assigned (null: none, e.g. a storefront order a service keeps without one). */
  clientId: number | null;
}

interface OrdersModel {
  orders: Map<number, OrderModel>;
  courierId: number;
}

/**
 * The orders of `GET /api/orders` with `query` that the sequence can see whatever the service holds: those of the
 * model's clients (the sequence's own client, made by its import: Order import rules 3), filtered by `client_id`
 * (Data format rules 4); an order of the model without a client is looked for on the first page. The same few
 * requests against 100,000 orders as against the demo.
 */
async function ownOrders(
  t: TestContext,
  role: Role,
  m: OrdersModel,
  query: Rec = {},
  perPage?: number,
): Promise<Rec[]> {
  const clients = [...new Set([...m.orders.values()].flatMap((o) => (o.clientId === null ? [] : [o.clientId])))];
  const listed = clients.length
    ? await allOrderPages(t, role, { ...query, client_id: clients.length === 1 ? clients[0] : clients }, perPage)
    : [];
  if ([...m.orders.values()].some((o) => o.clientId === null))
    for (const row of await firstOrderPage(t, role, query)) if (!listed.some((o) => o.id === row.id)) listed.push(row);
  return listed;
}

const FORWARD: Status[] = ['pending', 'accepted', 'cooking', 'ready', 'delivery', 'complete'];
const STATUSES: Status[] = [...FORWARD, 'cancelled'];
const TERMINAL = new Set<Status>(['complete', 'cancelled']);
const ORDERS = 2;

/** The decided delivery moves (openapi/DECISIONS.md, schema DeliveryStatus); repeating the current status is a no-op. */
const DELIVERY_MOVES: Record<DeliveryStatus, DeliveryStatus[]> = {
  idle: ['courier_assigned', 'problem'],
  courier_assigned: ['delivering', 'problem'],
  delivering: ['delivered', 'problem'],
  problem: ['idle', 'courier_assigned', 'delivering'],
  delivered: [],
};
/** Delivery moves that move the main order too, as a courier's status change does. */
const DELIVERY_SETS: Partial<Record<DeliveryStatus, Status>> = { delivering: 'delivery', delivered: 'complete' };
/** The decided one-to-one mapping of main statuses to the carrier view's order_status (schema CarrierOrderStatus). */
const CARRIER_STATUS: Record<Status, string> = {
  pending: 'new',
  accepted: 'confirmed',
  cooking: 'preparing',
  ready: 'prepared',
  delivery: 'delivering',
  complete: 'complete',
  cancelled: 'cancelled',
};

/** The carrier view of an order compared with the model: order_status mapped from the main status, the delivery block. */
function checkCarrierView(t: TestContext, view: Rec | undefined, id: number, expected: OrderModel, what: string): void {
  const carrier = expected.carrier!;
  t.equal(
    [view?.id, view?.secure_id],
    [id, carrier.secureId],
    `${what}: id and secure_id of the carrier view of order ${id}`,
  );
  // The mapping is decided (the spec lists the carrier statuses, not how they correspond): a failure names it.
  t.decided(
    component('schemas', 'CarrierOrderStatus'),
    view?.order_status === CARRIER_STATUS[expected.status],
    `${what}: order_status of order ${id} (${expected.status} on the main API): expected ${JSON.stringify(CARRIER_STATUS[expected.status])}, got ${JSON.stringify(view?.order_status)}`,
  );
  t.equal(view?.contact_name, expected.contactName, `${what}: contact_name of order ${id} in the carrier view`);
  t.equal(view?.contact_phone, expected.contactPhone, `${what}: contact_phone of order ${id} in the carrier view`);
  if (expected.description !== null)
    t.equal(view?.description, expected.description, `${what}: description of order ${id} in the carrier view`);
  if (expected.deliveryPrice !== undefined)
    t.equal(
      Number(view?.delivery_price),
      expected.deliveryPrice,
      `${what}: delivery_price of order ${id} in the carrier view`,
    );
  if (expected.deliveryAt !== undefined)
    t.equal(
      Date.parse(String(view?.delivery_at)),
      Date.parse(expected.deliveryAt),
      `${what}: delivery_at of order ${id} in the carrier view`,
    );
  const delivery = (view?.delivery ?? {}) as Rec;
  const actual = Object.fromEntries(Object.keys(carrier.delivery).map((key) => [key, delivery[key] ?? null]));
  t.equal(actual, { ...carrier.delivery }, `${what}: delivery block of order ${id}`);
}

async function readCarrierView(t: TestContext, id: number, order: OrderModel, what: string): Promise<void> {
  const response = await t.carrier().get(`/orders/${encodeURIComponent(order.carrier!.secureId)}`);
  t.status(response, 200, `reading order ${id} through the carrier API`);
  checkCarrierView(t, response.body?.order as Rec | undefined, id, order, what);
}

/** The carrier view is used when the control API can hand an order to a carrier (a fresh one per sequence). */
function carrierInSequences(t: TestContext): boolean {
  return t.full && t.hasControl && t.config.capabilities.resetBetweenTests && t.config.capabilities.carrierApi;
}

/** The answer the decided state machine gives: 200 (and the next status) or the refusal. */
function transition(from: Status, to: Status, role: Role): { status: number; next: Status } {
  // A courier may set only delivery and complete, even the status the order has already (403 before anything else).
  if (role === 'courier' && to !== 'delivery' && to !== 'complete') return { status: 403, next: from };
  if (from === to) return { status: 200, next: from };
  if (TERMINAL.has(from)) return { status: 409, next: from };
  if (role === 'courier') return { status: 200, next: to };
  if (to === 'cancelled' || FORWARD.indexOf(to) === FORWARD.indexOf(from) + 1) return { status: 200, next: to };
  return { status: 409, next: from };
}

function checkOrder(t: TestContext, order: Rec, expected: OrderModel, what: string): void {
  t.equal(order.status, expected.status, `${what}: status of order ${order.id}`);
  t.equal(order.contact_name, expected.contactName, `${what}: contact_name of order ${order.id}`);
  t.equal(order.contact_phone, expected.contactPhone, `${what}: contact_phone of order ${order.id}`);
  t.equal(order.courier_id ?? null, expected.courierId, `${what}: courier_id of order ${order.id}`);
  t.equal(order.restaurant_id, expected.restaurantId, `${what}: restaurant_id of order ${order.id}`);
  if (expected.deliveryAt !== undefined)
    t.equal(
      Date.parse(String(order.delivery_at)),
      Date.parse(expected.deliveryAt),
      `${what}: delivery_at of order ${order.id}`,
    );
  if (expected.deliveryPrice !== undefined)
    t.equal(Number(order.delivery_price), expected.deliveryPrice, `${what}: delivery_price of order ${order.id}`);
  if (expected.description !== null)
    t.equal(order.description, expected.description, `${what}: description of order ${order.id}`);
  t.equal(
    order.restaurant_confirmed_at != null,
    expected.confirmed,
    `${what}: order ${order.id} confirmed by the restaurant`,
  );
  t.equal(
    order.courier_confirmed_at != null,
    expected.courierConfirmed,
    `${what}: order ${order.id} confirmed by the courier`,
  );
}

/** Checks the order an answer carries (under `order`) against the model, or fails naming what is missing. */
function checkAnswer(t: TestContext, body: unknown, expected: OrderModel, what: string): void {
  checkOrder(t, t.dig<Rec>(body, ['order'], `the order of ${what}`), expected, what);
}

/** GET /api/orders/:id: the order, and its sideloads (the assigned courier, the restaurant) as the model has them. */
async function readOrder(t: TestContext, id: number, expected: OrderModel): Promise<void> {
  const response = await (await t.as('dispatcher')).get(`/api/orders/${id}`);
  t.status(response, 200, `reading order ${id}`);
  checkAnswer(t, response.body, expected, 'GET by id');
  const couriers = t.list<Rec>(response.body, ['couriers'], 'the sideloaded couriers', true).map((c) => c.id as number);
  t.equal(
    couriers,
    expected.courierId === null ? [] : [expected.courierId],
    `GET by id: the couriers sideloaded with order ${id}`,
  );
  const restaurants = t
    .list<Rec>(response.body, ['restaurants'], 'the sideloaded restaurants', true)
    .map((r) => r.id as number);
  t.check(
    restaurants.includes(expected.restaurantId),
    `GET by id: restaurant ${expected.restaurantId} of order ${id} is not sideloaded (got ${JSON.stringify(restaurants)})`,
  );
}

/**
 * The model's orders in a list read with an optional status filter: every row has that status, an order of the
 * model with another status is not listed, one listed agrees with the model, and one missing fails when `whole`
 * (what was read is the whole list).
 */
function checkListed(
  t: TestContext,
  m: OrdersModel,
  listed: Rec[],
  status: Status | undefined,
  whole: boolean,
  where: string,
): void {
  for (const row of listed)
    if (status) t.equal(row.status, status, `status of order ${row.id} in ${where} filtered by status`);
  for (const [id, order] of m.orders) {
    const row = listed.find((o) => o.id === id);
    if (status && order.status !== status)
      t.check(!row, `order ${id} (${order.status} in the model) is listed under status=${status} in ${where}`);
    else if (row) checkOrder(t, row, order, where);
    else t.check(!whole, `order ${id} is missing from ${where}`);
  }
}

/**
 * The staff member's whole list (no filter but `status`), its first page: the list view itself, one request
 * however many orders the service holds. The model's orders are the newest (the decided default sort puts them
 * first); one not on the page fails only when the page is the whole list.
 */
async function listFirstPage(t: TestContext, m: OrdersModel, status?: Status, perPage?: number): Promise<void> {
  const query = { ...(status ? { status } : {}), ...(perPage ? { per_page: perPage } : t.listPage), page: 1 };
  const response = await (await t.as('staffMember')).get('/api/orders', query);
  t.status(response, 200, `listing orders ${JSON.stringify(query)}`);
  const rows = t.list<Rec>(response.body, ['orders'], 'the list of orders');
  checkListed(t, m, rows, status, Number(response.body?.meta?.page_count ?? 1) <= 1, 'the list');
}

/** The list filtered by courier_id: exactly the model's orders assigned to that courier, and no other of them. */
async function checkCourierFilter(t: TestContext, m: OrdersModel): Promise<void> {
  const listed = await ownOrders(t, 'dispatcher', m, { courier_id: m.courierId });
  for (const row of listed)
    t.equal(row.courier_id, m.courierId, `courier_id of order ${row.id} in the list filtered by courier_id`);
  for (const [id, order] of m.orders) {
    const row = listed.find((o) => o.id === id);
    if (order.courierId !== m.courierId)
      t.check(!row, `order ${id} (courier ${order.courierId} in the model) is listed under courier_id=${m.courierId}`);
    else
      checkOrder(
        t,
        t.present(row, `order ${id} is missing from the list filtered by courier_id=${m.courierId}`),
        order,
        'the list filtered by courier_id',
      );
  }
}

/** The courier's own list: the orders assigned to it, and no other order of the model. */
async function checkCourierList(t: TestContext, m: OrdersModel): Promise<void> {
  const listed = await ownOrders(t, 'courier', m);
  for (const [id, order] of m.orders) {
    const row = listed.find((o) => o.id === id);
    if (order.courierId !== m.courierId) t.check(!row, `order ${id} of another courier is in the courier's list`);
    else
      checkOrder(
        t,
        t.present(row, `order ${id} of the courier is missing from the courier's list`),
        order,
        "the courier's list",
      );
  }
}

function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** The HTML receipt (a derived document; what it prints is decided): the contact name and phone as the model has them. */
async function checkReceipt(t: TestContext, id: number, expected: OrderModel): Promise<void> {
  const response = await (await t.as('staffMember')).get(`/api/orders/${id}/receipt.html`);
  t.status(response, 200, `reading the receipt of order ${id}`);
  const html = String(response.body ?? '');
  for (const [field, value] of [
    ['contact_name', expected.contactName],
    ['contact_phone', expected.contactPhone],
  ] as const)
    t.check(
      html.includes(escapeHtml(value)),
      `the receipt of order ${id} does not show its ${field} ${JSON.stringify(value)}`,
    );
}

const orderMachine: Machine<OrdersModel> = {
  // Each write twice to one order: assigned, unassigned and assigned again, updated, confirmed by both parties,
  // moved on, re-imported; the carrier's delivery updated twice.
  tour: [
    /^assignCourier\(order pick 0, courier\)$/,
    /^updateOrder\(order pick 0, .*phone/,
    /^updateOrder\(order pick 0, .*phone/,
    /^assignCourier\(order pick 0, none\)$/,
    /^assignCourier\(order pick 0, courier\)$/,
    /^confirm\(order pick 0, as staffMember\)$/,
    /^confirm\(order pick 0, as courier\)$/,
    /^setStatus\(order pick 0, next, as staffMember\)$/,
    /^setStatus\(order pick 0, next, as staffMember\)$/,
    /^updateOrder\(order pick 0, .*delivery_price/,
    /^reimport\(order pick 0, existing=update, /,
    /^updateDelivery\(/,
    /^updateDelivery\(/,
    /^updateOrder\(order pick 2, /,
    /^updateOrder\(order pick 2, /,
    /^assignCourier\(order pick 1, courier\)$/,
  ],
  // Every view of an order after every write: the list, the order by id with its sideloads, the list filtered by
  // courier_id, the courier's own list, under full the receipt and the carrier view.
  async observe(m, tc) {
    checkListed(tc, m, await ownOrders(tc, 'staffMember', m), undefined, true, 'the list filtered by client_id');
    await listFirstPage(tc, m);
    for (const [id, order] of m.orders) await readOrder(tc, id, order);
    await checkCourierFilter(tc, m);
    await checkCourierList(tc, m);
    if (tc.full) for (const [id, order] of m.orders) await checkReceipt(tc, id, order);
    for (const [id, order] of m.orders)
      if (order.carrier) await readCarrierView(tc, id, order, 'the carrier view after the write');
  },
  decidedOnly: [
    "status changes by a staff member or a dispatcher, and to statuses other than a courier's delivery and complete: the spec names neither the other statuses nor their transitions",
    'the status filter of the list: its allowed values are not shown in the spec',
    'the answers to updates, confirmations and status changes: their bodies are not shown in the spec (each change is read back from the list instead)',
    'the receipt: what the printable statement shows is not stated (full: the contact name and phone)',
    "the carrier view and delivery updates: the carrier view's order_status mapping and the delivery block's transitions are decided",
  ],
  skipped: (t) =>
    carrierInSequences(t) || !t.full
      ? []
      : [
          'the carrier view and delivery updates (they need the control API with resets, to hand an order to a carrier, and capabilities.carrierApi)',
        ],
  async init(t) {
    await fresh(t);
    const drafts: Rec[] = [];
    // The sequence's orders share a client of their own (Order import rules 3), so its lists can be filtered to them.
    const client = { client_external_id: `client-${t.unique('CT')}` };
    for (let i = 0; i < ORDERS; i += 1) drafts.push(await t.fixtures.orderDraft(client));
    const imported = await t.fixtures.importOrders(drafts);
    t.status(imported, '2xx', 'importing the orders of the sequence');
    const first = t.present(
      await findOrderByContact(t, drafts[0]!.contact_name as string),
      `the imported order ${drafts[0]!.external_id} is not in the list`,
    );
    const clientId = first.client_id as number | null;
    t.check(
      typeof clientId === 'number',
      `Order import rules 3: the order imported with client_external_id has client_id ${JSON.stringify(clientId)}`,
    );
    const listed = await allOrderPages(t, 'staffMember', { client_id: clientId });
    const orders = new Map<number, OrderModel>();
    for (const draft of drafts) {
      const order = t.present(
        listed.find((o) => o.contact_name === draft.contact_name),
        `the imported order ${draft.external_id} is not in the list`,
      );
      orders.set(order.id as number, {
        draft,
        status: 'pending',
        contactName: draft.contact_name as string,
        contactPhone: draft.contact_phone as string,
        description: null,
        courierId: null,
        confirmed: false,
        courierConfirmed: false,
        restaurantId: order.restaurant_id as number,
        clientId,
      });
    }
    if (carrierInSequences(t)) {
      const handed = await handedOverOrder(t);
      const order = await t.fixtures.order(handed.orderId!);
      orders.set(handed.orderId!, {
        draft: { contact_name: order.contact_name },
        carrier: {
          secureId: handed.secureId,
          delivery: {
            status: 'idle',
            message: null,
            courier_name: null,
            courier_phone: null,
            courier_external_id: null,
            lat: null,
            lon: null,
          },
        },
        status: order.status as Status,
        contactName: order.contact_name as string,
        contactPhone: order.contact_phone as string,
        description: null,
        courierId: (order.courier_id as number | null) ?? null,
        confirmed: order.restaurant_confirmed_at != null,
        courierConfirmed: order.courier_confirmed_at != null,
        restaurantId: order.restaurant_id as number,
        clientId: (order.client_id as number | null) ?? null,
      });
    }
    return { orders, courierId: await t.fixtures.accountId('courier') };
  },
  commands(t) {
    const orderPick = fc.nat();
    // Mostly the next step of the machine, so sequences walk orders far; any status for the refusals. The spec
    // names only a courier's delivery and complete (any order of the courier that is not over yet).
    const target = t.full
      ? fc.oneof(
          { arbitrary: fc.constant<Status | 'next'>('next'), weight: 3 },
          { arbitrary: fc.constantFrom<Status | 'next'>(...STATUSES), weight: 2 },
        )
      : fc.constantFrom<Status | 'next'>('delivery', 'complete');
    const roles: Role[] = t.full ? ['staffMember', 'dispatcher', 'courier'] : ['courier'];
    // Under spec, no refusal is asked for: a courier changes only its orders that are not complete (or cancelled).
    const changeable = (m: OrdersModel, role: Role, o: OrderModel): boolean =>
      (role !== 'courier' || o.courierId === m.courierId) && (t.full || !TERMINAL.has(o.status));
    const setStatus = fc
      .tuple(orderPick, target, fc.constantFrom<Role>(...roles))
      .map(([n, wanted, role]): Step<OrdersModel> => ({
        label: `setStatus(order pick ${n}, ${wanted}, as ${role})`,
        writes: true,
        // A courier changes only the orders assigned to it (its scope).
        applies: (m) => [...m.orders.values()].some((o) => changeable(m, role, o)),
        async run(m, tc) {
          const ids = [...m.orders].filter(([, o]) => changeable(m, role, o)).map(([id]) => id);
          const id = pick(ids, n)!;
          const order = m.orders.get(id)!;
          let to: Status;
          if (wanted === 'next') to = FORWARD[FORWARD.indexOf(order.status) + 1] ?? order.status;
          else to = wanted;
          const expected = transition(order.status, to, role);
          const response = await (
            await tc.as(role)
          ).request({
            method: 'PUT',
            path: `/api/orders/${id}/status`,
            query: { status: to, send_sms: false },
          });
          // The spec shows neither the status nor the body of a successful change: under spec any 2xx is one.
          const accepted = expected.status === 200 && !tc.full ? '2xx' : expected.status;
          tc.status(response, accepted, `${role} sets order ${id} from ${order.status} to ${to}`);
          order.status = expected.next;
          if (expected.status === 200 && tc.full)
            checkAnswer(tc, response.body, order, 'the answer to the status change');
        },
      }));
    // Courier changes come twice as often: a view that misses the second change of an order needs two of them.
    const assignCourier = fc.tuple(orderPick, fc.boolean()).map(([n, assign]): Step<OrdersModel> => ({
      label: `assignCourier(order pick ${n}, ${assign ? 'courier' : 'none'})`,
      writes: true,
      applies: (m) => [...m.orders.values()].some((o) => !TERMINAL.has(o.status)),
      async run(m, tc) {
        const id = pick(
          [...m.orders].filter(([, o]) => !TERMINAL.has(o.status)).map(([i]) => i),
          n,
        )!;
        const courierId = assign ? m.courierId : null;
        const response = await (
          await tc.as('dispatcher')
        ).put(`/api/orders/${id}`, { order: { courier_id: courierId } });
        // That `courier_id: null` unassigns is decided: a service that refuses it keeps the courier.
        if (courierId === null && tc.declined(response, COURIER_ID, `taking the courier off order ${id}`)) return;
        tc.status(response, tc.full ? 200 : '2xx', `assigning courier ${courierId} to order ${id}`);
        m.orders.get(id)!.courierId = courierId;
        if (tc.full) checkAnswer(tc, response.body, m.orders.get(id)!, 'the answer to the update');
      },
    }));
    const steps: fc.Arbitrary<Step<OrdersModel>>[] = [
      // Status changes are what orders live through: they come three times as often as other commands.
      setStatus,
      setStatus,
      setStatus,
      assignCourier,
      assignCourier,
      fc
        .tuple(
          orderPick,
          fc.constantFrom('Ada', 'Ben', 'Cleo'),
          fc.constantFrom('ring twice', 'no onions', 'leave at door'),
          fc.option(fc.constantFrom('+49 30 5550101', '+49 30 5550102'), { nil: undefined }),
          fc.option(fc.constantFrom('2030-05-01T18:30:00Z', '2030-05-02T12:00:00Z'), { nil: undefined }),
          fc.option(fc.constantFrom('0.00', '3.50', '4.90'), { nil: undefined }),
        )
        .map(([n, name, description, phone, deliveryAt, deliveryPrice]) => ({
          label: `updateOrder(order pick ${n}, contact ${name}, "${description}"${phone ? `, phone ${phone}` : ''}${deliveryAt ? `, delivery_at ${deliveryAt}` : ''}${deliveryPrice ? `, delivery_price ${deliveryPrice}` : ''})`,
          writes: true,
          async run(m, tc) {
            const id = pick(m.orders.keys(), n)!;
            const order = m.orders.get(id)!;
            const contactName = `${order.draft.contact_name} ${name}`;
            const response = await (
              await tc.as('staffMember')
            ).put(`/api/orders/${id}`, {
              order: {
                contact_name: contactName,
                description,
                ...(phone ? { contact_phone: phone } : {}),
                ...(deliveryAt ? { delivery_at: deliveryAt } : {}),
                ...(deliveryPrice ? { delivery_price: deliveryPrice } : {}),
              },
            });
            tc.status(response, tc.full ? 200 : '2xx', `updating order ${id}`);
            order.contactName = contactName;
            order.description = description;
            if (phone) order.contactPhone = phone;
            if (deliveryAt) order.deliveryAt = deliveryAt;
            if (deliveryPrice) order.deliveryPrice = Number(deliveryPrice);
            if (tc.full) checkAnswer(tc, response.body, order, 'the answer to the update');
          },
        })),
      fc.tuple(orderPick, fc.constantFrom<Role>('staffMember', 'courier')).map(([n, role]) => ({
        label: `confirm(order pick ${n}, as ${role})`,
        writes: true,
        // A courier confirms only the orders assigned to it (its scope).
        applies: (m) => role !== 'courier' || [...m.orders.values()].some((o) => o.courierId === m.courierId),
        // Confirming a cancelled order is a decided refusal; under spec no order is cancelled.
        async run(m, tc) {
          const ids = [...m.orders].filter(([, o]) => role !== 'courier' || o.courierId === m.courierId);
          const id = pick(
            ids.map(([i]) => i),
            n,
          )!;
          const order = m.orders.get(id)!;
          const response = await (await tc.as(role)).put(`/api/orders/${id}/confirm`);
          const already = role === 'courier' ? order.courierConfirmed : order.confirmed;
          // A cancelled order can no longer be confirmed; a repeated confirmation keeps the first one.
          if (order.status === 'cancelled' && !already) {
            tc.refused(response, 409, `confirming the cancelled order ${id} as ${role}`);
            return;
          }
          tc.status(response, tc.full ? 200 : '2xx', `confirming order ${id} as ${role}`);
          // The spec: the confirmation is the restaurant's or the courier's, chosen by the caller's account.
          if (role === 'courier') order.courierConfirmed = true;
          else order.confirmed = true;
          if (tc.full) checkAnswer(tc, response.body, m.orders.get(id)!, 'the answer to the confirmation');
        },
      })),
      fc
        .tuple(
          orderPick,
          fc.constantFrom<'update' | 'ignore' | undefined>('update', 'ignore', undefined),
          fc.constantFrom('Dora', 'Emil'),
        )
        .map(([n, existing, name]) => ({
          label: `reimport(order pick ${n}, existing=${existing ?? '(omitted)'}, contact ${name})`,
          writes: true,
          // A re-import sends the order as imported (pending); only pending orders keep the model simple.
          // The order handed to a carrier was placed on the storefront: it has no external_id to re-import by.
          applies: (m) => [...m.orders.values()].some((o) => o.status === 'pending' && !o.carrier),
          async run(m, tc) {
            const id = pick(
              [...m.orders].filter(([, o]) => o.status === 'pending' && !o.carrier).map(([i]) => i),
              n,
            )!;
            const order = m.orders.get(id)!;
            const contactName = `${order.draft.contact_name} ${name}`;
            const response = await tc.fixtures.importOrders([{ ...order.draft, contact_name: contactName }], existing);
            tc.status(response, '2xx', `re-importing order ${id}`);
            const item = response.body?.organization_import?.[0] as Rec | undefined;
            tc.equal(
              item?.status,
              existing === 'update' ? 'imported' : 'ignored',
              `the import status of order ${id} with existing=${existing}`,
            );
            if (existing === 'update') {
              order.contactName = contactName;
              order.contactPhone = order.draft.contact_phone as string;
              order.deliveryAt = undefined;
              order.deliveryPrice = undefined;
              // The import format has no description: what an update makes of it is not the model's business.
              order.description = null;
            }
          },
        })),
      // One entry for the single read, the courier_id filter and the courier's own list: writes come more often.
      fc.oneof(
        orderPick.map((n): Step<OrdersModel> => ({
          label: `readOrder(order pick ${n})`,
          async run(m, tc) {
            const id = pick(m.orders.keys(), n)!;
            await readOrder(tc, id, m.orders.get(id)!);
          },
        })),
        fc.constantFrom<Step<OrdersModel>>(
          { label: 'listOrdersOfCourier()', run: (m, tc) => checkCourierFilter(tc, m) },
          { label: 'courierList()', run: (m, tc) => checkCourierList(tc, m) },
        ),
      ),
      fc
        .tuple(
          t.full ? fc.option(fc.constantFrom(...STATUSES), { nil: undefined }) : fc.constant(undefined),
          fc.integer({ min: 2, max: 40 }),
        )
        .map(([status, perPage]) => ({
          label: `listOrders(${status ? `status=${status}, ` : ''}per_page=${perPage}, every page)`,
          async run(m, tc) {
            const listed = await ownOrders(tc, 'staffMember', m, status ? { status } : {}, perPage);
            checkListed(tc, m, listed, status, true, 'the list filtered by client_id');
            await listFirstPage(tc, m, status, perPage);
          },
        })),
      ...(t.full ? carrierSteps() : []),
    ];
    return steps;
  },
};

/** The carrier's commands: read the carrier view, update the delivery block (status, message, courier, position). */
function carrierSteps(): fc.Arbitrary<Step<OrdersModel>>[] {
  const hasCarrier = (m: OrdersModel): boolean => [...m.orders.values()].some((o) => o.carrier);
  const carrierOrder = (m: OrdersModel): [number, OrderModel] => [...m.orders].find(([, o]) => o.carrier)!;
  const status = fc.oneof(
    { arbitrary: fc.constant<DeliveryStatus | 'next' | undefined>('next'), weight: 3 },
    { arbitrary: fc.constantFrom<DeliveryStatus | undefined>(undefined, 'problem', 'idle', 'delivered'), weight: 2 },
  );
  const update = fc
    .record({
      status,
      message: fc.constantFrom<string | null | undefined>(undefined, undefined, 'on the way', 'stuck in traffic', null),
      courier_name: fc.constantFrom<string | null | undefined>(undefined, undefined, 'Carla', 'Dmitri'),
      courier_phone: fc.constantFrom<string | null | undefined>(undefined, '+49 151 0000001', '+49 151 0000002', null),
      courier_external_id: fc.constantFrom<number | null | undefined>(undefined, undefined, 4711, 815, null),
      position: fc.option(fc.constantFrom<[number, number]>([52.5, 13.42], [52.51, 13.4]), { nil: undefined }),
    })
    .map(({ position, ...fields }): Step<OrdersModel> => {
      const shown = Object.entries({ ...fields, position })
        .filter(([, v]) => v !== undefined)
        .map(([k, v]) => `${k}=${JSON.stringify(v)}`);
      return {
        label: `updateDelivery(${shown.join(', ') || 'message="on the way"'})`,
        writes: true,
        applies: hasCarrier,
        async run(m, tc) {
          const [id, order] = carrierOrder(m);
          const delivery = order.carrier!.delivery;
          const wanted = fields.status === 'next' ? DELIVERY_MOVES[delivery.status][0] : fields.status;
          const body: Rec = Object.fromEntries(
            Object.entries({ ...fields, status: wanted }).filter(([, v]) => v !== undefined),
          );
          if (position) [body.lat, body.lon] = position;
          // An empty update is refused (422): the model's sequences send at least one field.
          if (Object.keys(body).length === 0) body.message = 'on the way';
          const response = await tc
            .carrier()
            .put(`/orders/${encodeURIComponent(order.carrier!.secureId)}/delivery`, body);
          const what = `the carrier updates the delivery of order ${id} (${order.status}, delivery ${delivery.status}) with ${JSON.stringify(body)}`;
          const target = body.status as DeliveryStatus | undefined;
          const moves = target !== undefined && target !== delivery.status;
          // A complete or cancelled order's delivery is over; other moves follow the decided delivery machine.
          if (TERMINAL.has(order.status) || (moves && !DELIVERY_MOVES[delivery.status].includes(target))) {
            tc.refused(response, 409, what);
            return;
          }
          tc.status(response, 200, what);
          if (moves && DELIVERY_SETS[target]) order.status = DELIVERY_SETS[target]!;
          for (const key of [
            'status',
            'message',
            'courier_name',
            'courier_phone',
            'courier_external_id',
            'lat',
            'lon',
          ] as const)
            if (body[key] !== undefined) (delivery as unknown as Rec)[key] = body[key];
          checkCarrierView(tc, response.body?.order as Rec | undefined, id, order, 'the answer to the delivery update');
        },
      };
    });
  return [
    update,
    update,
    fc.constant({
      label: 'readCarrierView()',
      applies: hasCarrier,
      async run(m, tc) {
        const [id, order] = carrierOrder(m);
        await readCarrierView(tc, id, order, 'GET by secure_id');
      },
    }),
  ];
}

/** The order machine as a test: updates, confirmations, status changes by role, lists, re-imports, carrier view and delivery updates. */
export const orderMachineTest = defineTest({
  id: 'stateful.orders',
  title:
    'Endpoints > Orders (model-based): random sequences of updates, confirmations, status changes by role, re-imports, paged, filtered lists, the carrier view and delivery updates agree with a model',
  clauses: [
    'Endpoints > Orders: GET /orders',
    'Endpoints > Orders: GET /orders/:id',
    'Endpoints > Orders: PUT /orders/:id',
    'Endpoints > Orders: PUT /orders/:id/status',
    'Endpoints > Orders: PUT /orders/:id/confirm',
    'States and transitions: row 1',
    'States and transitions: row 2',
    'States and transitions: row 3',
    'States and transitions: row 7',
    'States and transitions: row 8',
    'Order import rules 3',
    'Data format rules 4',
    'Endpoints > Carrier API: GET /api-delivery/orders/:secure_id',
    'Endpoints > Carrier API: PUT /api-delivery/orders/:secure_id/delivery',
    'Resources > Carrier order view: order_status',
    'Resources > Carrier order view > The delivery block: status',
  ],
  // The carrier commands are decided (see decidedOnly): a spec run skips them.
  fullOnlyClauses: [
    'Endpoints > Carrier API: GET /api-delivery/orders/:secure_id',
    'Endpoints > Carrier API: PUT /api-delivery/orders/:secure_id/delivery',
    'Resources > Carrier order view: order_status',
    'Resources > Carrier order view > The delivery block: status',
  ],
  profile: 'spec',
  decisions: [
    component('schemas', 'OrderStatus'),
    opPointer('/api/orders/{id}/status', 'put', '/responses/200'),
    opPointer('/api/orders/{id}', 'put', '/responses/200'),
    component('schemas', 'DeliveryStatus'),
    component('schemas', 'CarrierOrderStatus'),
  ],
  kind: 'stateful',
  needs: ['mutations', 'role:courier'],
  operations: [
    'listOrders',
    'getOrder',
    'updateOrder',
    'setOrderStatus',
    'confirmOrder',
    'importOrders',
    'getCarrierOrder',
    'updateCarrierDelivery',
  ],
  run: (t) => runMachine(t, orderMachine),
});
