/**
 * Stated rules that no other test tried under the `spec` profile: the order of a WKT point's coordinates, the
 * final sum after a change of the delivery price, the free-delivery threshold and the minimal order price of a
 * zone, filters that "may be an array", and a hidden dish after publication. Where the means of a check rest on
 * something the spec does not show (orders placed through the mock's storefront, the published menu read through
 * the control API), the test needs that capability and skips without it; the rule it checks is stated.
 */
import type { TestContext } from '../runner/context.js';
import type { Rec } from '../runner/fixtures.js';
import { pointInside } from '../runner/geometry.js';
import { defineTest } from './define.js';

/** The two numbers of a WKT point, in the order written (`POINT(x y)`), or undefined when it is no point. */
export function wktPoint(text: unknown): [number, number] | undefined {
  const match = /^\s*POINT\s*\(\s*(-?[\d.]+(?:e-?\d+)?)\s+(-?[\d.]+(?:e-?\d+)?)\s*\)\s*$/i.exec(String(text));
  return match ? [Number(match[1]), Number(match[2])] : undefined;
}

/** Two amounts of money equal to the cent. */
function sameMoney(a: number, b: number): boolean {
  return Math.abs(a - b) < 0.005;
}

/** A published dish without a configurator (so an order needs no configuration), the cheapest first. */
export async function plainDish(t: TestContext): Promise<Rec> {
  const menu = await t.setup('the published menu', () => t.control.publishedMenu(t.fixtures.orgId));
  const dishes = (menu?.dishes ?? []).filter((d: Rec) => d.options == null || (d.options as Rec[]).length === 0);
  if (dishes.length === 0) t.skip('the published menu has no dish without options to order');
  return [...dishes].sort((a: Rec, b: Rec) => Number(a.price) - Number(b.price))[0] as Rec;
}

/** A zone of the organization with an area, a point inside it, and the zone's own terms. */
export async function zoneWith(
  t: TestContext,
  wanted: (zone: Rec) => boolean,
  what: string,
): Promise<{ zone: Rec; lat: number; lon: number }> {
  for (const zone of await t.fixtures.zones()) {
    if (typeof zone.area !== 'string' || !wanted(zone)) continue;
    const point = pointInside(zone.area);
    if (point) return { zone, ...point };
  }
  t.skip(`no delivery zone of organization ${t.fixtures.orgId} has ${what}`);
}

/**
 * Places an order as the storefront would (the control API: the spec shows no public cart), `amount` of one dish
 * in the zone; answers the control API's status and the order's contact name.
 */
export async function storefrontOrder(
  t: TestContext,
  place: { zone: Rec; lat: number; lon: number },
  dish: Rec,
  amount: number,
): Promise<{ status: number; order?: Rec; contactName: string }> {
  await t.fixtures.openingHours();
  const contactName = `Contract ${t.unique('rule')}`;
  const answer = await t.setup('a storefront order', () =>
    t.control.placeOrder({
      organization_id: t.fixtures.orgId,
      restaurant_id: place.zone.restaurant_id,
      latitude: place.lat,
      longitude: place.lon,
      city: 'Berlin',
      address: `Contract Street ${t.unique()}`,
      contact_name: contactName,
      contact_phone: '+49 30 5550002',
      payment_source: 'cash',
      delivery_asap: true,
      items: [{ dish_id: dish.id, amount }],
    }),
  );
  return { status: answer.status, order: answer.body?.order as Rec | undefined, contactName };
}

/** The order as the main API shows it (`GET /api/orders/{id}`), from a storefront answer. */
export async function placedOrder(t: TestContext, placed: { status: number; order?: Rec }, what: string): Promise<Rec> {
  if (placed.status >= 300 || !placed.order?.id)
    t.skip(`the storefront refused ${what} (${placed.status}), so the rule cannot be tried`);
  return t.fixtures.order(placed.order.id as number, 'staffMember');
}

/** The number of orders a filter matches (`meta.count`, one page read). */
async function countOf(
  t: TestContext,
  query: Record<string, unknown>,
  what: string,
): Promise<{ count: number; orders: Rec[] }> {
  const response = await (await t.as('dispatcher')).get('/api/orders', query as never);
  t.status(response, 200, what);
  return {
    count: Number(response.body?.meta?.count),
    orders: t.list<Rec>(response.body, ['orders'], 'the list of orders'),
  };
}

/**
 * A filter that "may be an array", given two values that match disjoint sets of orders: some form of sending both
 * (the document's repeated keys first, then `key[]` and a comma-separated list, which the spec does not rule out)
 * must match the orders of both, and only those.
 */
async function arrayFilter(t: TestContext, key: string, field: string, a: number, b: number): Promise<void> {
  const one = await countOf(t, { [key]: a }, `listing orders with ${key}=${a}`);
  const other = await countOf(t, { [key]: b }, `listing orders with ${key}=${b}`);
  if (one.count === 0 || other.count === 0)
    t.skip(`${key}: ${one.count === 0 ? a : b} matches no order, so an array of two values proves nothing`);
  const forms: [string, Record<string, unknown>][] = [
    ['repeated keys', { [key]: [a, b] }],
    [`${key}[]`, { [`${key}[]`]: [a, b] }],
    ['a comma-separated list', { [key]: `${a},${b}` }],
  ];
  const tried: string[] = [];
  for (const [form, query] of forms) {
    const response = await (await t.as('dispatcher')).get('/api/orders', query as never);
    if (response.status !== 200) {
      tried.push(`${form}: ${response.status}`);
      continue;
    }
    const orders = t.list<Rec>(response.body, ['orders'], 'the list of orders');
    const count = Number(response.body?.meta?.count);
    const foreign = orders.filter((o) => o[field] !== a && o[field] !== b);
    if (count === one.count + other.count && foreign.length === 0) {
      if (form !== 'repeated keys')
        t.warn(
          `${key} takes several values as ${form}, not as repeated keys (the form the document decided for array filters: /paths/~1api~1orders/get)`,
        );
      return;
    }
    tried.push(`${form}: ${count} orders${foreign.length ? `, ${foreign.length} of other ${field}s` : ''}`);
  }
  t.fail(
    `GET /api/orders: ${key} "may be an array", but no form of ${key}=[${a}, ${b}] answered the ${one.count} + ${other.count} orders of both values (${tried.join('; ')})`,
  );
}

export const statedRuleTests = [
  defineTest({
    id: 'rules.order-coordinates-longitude-first',
    title:
      'Resources > Order: coordinates are a WKT point written longitude then latitude, the same point as latitude and longitude',
    clauses: ['Resources > Order: coordinates', 'Resources > Order: latitude, longitude'],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['mutations'],
    operations: ['importOrders', 'getOrder', 'listOrders'],
    async run(t) {
      const created = await t.fixtures.createOrder();
      const order = await t.fixtures.order(created.id as number);
      const point = t.present(
        wktPoint(order.coordinates),
        `coordinates of order ${order.id} are no WKT point: ${JSON.stringify(order.coordinates)}`,
      );
      t.equal(
        point.map((n) => Math.round(n * 1e5) / 1e5),
        [order.longitude, order.latitude].map((n) => Math.round(Number(n) * 1e5) / 1e5),
        `coordinates ${JSON.stringify(order.coordinates)} of order ${order.id} as [longitude, latitude] (spec: "longitude then latitude")`,
      );
    },
  }),
  defineTest({
    id: 'rules.final-sum-follows-delivery-price',
    title:
      'Resources > Order: final_sum is the total including delivery, so a change of delivery_price changes it by as much',
    clauses: [
      'Resources > Order: final_sum',
      'Resources > Order: delivery_price',
      'Endpoints > Orders: PUT /orders/:id',
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['mutations'],
    operations: ['importOrders', 'getOrder', 'updateOrder'],
    async run(t) {
      const created = await t.fixtures.createOrder();
      const before = await t.fixtures.order(created.id as number);
      const price = Number(before.delivery_price ?? 0) + 1.5;
      const response = await (
        await t.as('dispatcher')
      ).put(`/api/orders/${before.id}`, {
        order: { delivery_price: price.toFixed(2) },
      });
      t.status(response, '2xx', `updating delivery_price of order ${before.id}`);
      const after = await t.fixtures.order(before.id as number);
      t.equal(Number(after.delivery_price), price, `delivery_price of order ${before.id} read back`);
      const expected = Number(before.final_sum) + 1.5;
      t.check(
        sameMoney(Number(after.final_sum), expected),
        `final_sum of order ${before.id} after delivery_price went from ${before.delivery_price} to ${price.toFixed(2)}: expected ${expected.toFixed(2)} (it was ${before.final_sum}, "total including delivery"), got ${after.final_sum}`,
      );
    },
  }),
  defineTest({
    id: 'rules.free-delivery-threshold',
    title:
      'Resources > DeliveryZone: free_delivery_price: an order at or above it is delivered free, one below it pays the zone price',
    clauses: [
      'Resources > DeliveryZone: free_delivery_price',
      'Resources > DeliveryZone: price',
      'Resources > Order: final_sum',
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['controlApi', 'mutations'],
    operations: ['getOrder'],
    async run(t) {
      const place = await zoneWith(
        t,
        (z) => z.free_delivery_price != null && Number(z.price) > 0,
        'a free_delivery_price and a delivery price',
      );
      const dish = await plainDish(t);
      const free = Number(place.zone.free_delivery_price);
      const above = await placedOrder(
        t,
        await storefrontOrder(t, place, dish, Math.ceil(free / Number(dish.price)) + 1),
        'an order above the free-delivery threshold',
      );
      t.check(
        sameMoney(Number(above.delivery_price), 0),
        `order ${above.id} totals ${above.total}, above free_delivery_price ${free} of zone ${place.zone.id}: delivery_price expected 0, got ${above.delivery_price}`,
      );
      t.check(
        sameMoney(Number(above.final_sum), Number(above.total)),
        `order ${above.id} is delivered free: final_sum expected its total ${above.total}, got ${above.final_sum}`,
      );
      // Below the threshold (and at or above the minimum): the zone's price is charged.
      const minimal = Number(place.zone.minimal_order_price ?? 0);
      const amount = Math.max(1, Math.ceil(minimal / Number(dish.price)));
      if (amount * Number(dish.price) >= free) return;
      const below = await placedOrder(t, await storefrontOrder(t, place, dish, amount), 'an order below the threshold');
      t.check(
        sameMoney(Number(below.delivery_price), Number(place.zone.price)),
        `order ${below.id} totals ${below.total}, below free_delivery_price ${free}: delivery_price expected the zone's price ${place.zone.price}, got ${below.delivery_price}`,
      );
    },
  }),
  defineTest({
    id: 'rules.minimal-order-price',
    title: 'Resources > DeliveryZone: minimal_order_price: an order below the minimum of its zone is not placed',
    clauses: ['Resources > DeliveryZone: minimal_order_price'],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['controlApi', 'mutations'],
    operations: ['listOrders'],
    async run(t) {
      const place = await zoneWith(t, (z) => Number(z.minimal_order_price ?? 0) > 0, 'a minimal_order_price');
      const dish = await plainDish(t);
      const minimal = Number(place.zone.minimal_order_price);
      if (Number(dish.price) >= minimal)
        t.skip(`every dish costs at least the minimum ${minimal} of zone ${place.zone.id}`);
      const placed = await storefrontOrder(t, place, dish, 1);
      t.check(
        placed.status >= 400 && placed.status < 500,
        `an order of ${dish.price} in zone ${place.zone.id}, whose minimal_order_price is ${minimal}, was placed (${placed.status}${placed.order?.id ? `, order ${placed.order.id}` : ''})`,
      );
      const found = await t.fixtures.findOrderByContact(placed.contactName, place.zone.restaurant_id as number, 1);
      t.check(!found, `the refused order below minimal_order_price ${minimal} exists: order ${found?.id}`);
    },
  }),
  defineTest({
    id: 'rules.order-filters-take-arrays',
    title:
      'Endpoints > Orders: GET /orders: restaurant_id and courier_id "may be an array": both values are matched, not the first only',
    clauses: ['Endpoints > Orders: GET /orders'],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['mutations'],
    operations: ['listOrders', 'importOrders', 'updateOrder'],
    async run(t) {
      const restaurants = await t.fixtures.restaurantIds();
      if (restaurants.length < 2) t.skip('the organization has fewer than two restaurants');
      const [a, b] = restaurants as [number, number];
      await t.fixtures.createOrder({ restaurantId: a });
      await t.fixtures.createOrder({ restaurantId: b });
      await arrayFilter(t, 'restaurant_id', 'restaurant_id', a, b);
      if (!t.config.accounts.otherCourier) {
        t.warn('courier_id as an array: not tried (it needs the otherCourier account)');
        return;
      }
      await t.fixtures.createOrder({ courier: 'courier' });
      await t.fixtures.createOrder({ courier: 'otherCourier' });
      await arrayFilter(
        t,
        'courier_id',
        'courier_id',
        await t.fixtures.accountId('courier'),
        await t.fixtures.accountId('otherCourier'),
      );
    },
  }),
  defineTest({
    id: 'rules.hidden-dish-not-on-storefront',
    title:
      'Resources > DraftDish: is_hidden: a dish created hidden is not on the storefront after publication; a visible one is',
    clauses: [
      'Resources > DraftDish: is_hidden',
      'Endpoints > Organizations: POST /api/organizations/:id/publish',
      'Endpoints > Draft dishes: POST /api/draft_dishes/',
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['controlApi', 'mutations'],
    operations: ['createDraftDish', 'getDraftDish', 'publishMenu'],
    async run(t) {
      const staff = await t.as('staffMember');
      const hidden = await t.fixtures.createDish({ price: '7.00', is_hidden: true });
      const shown = await t.fixtures.createDish({ price: '7.00', is_hidden: false });
      const read = await staff.get(`/api/draft_dishes/${hidden.id}`);
      t.status(read, 200, `reading dish ${hidden.id}`);
      if (read.body?.draft_dish?.is_hidden !== true)
        t.skip(
          `the service did not keep is_hidden: true on create (got ${JSON.stringify(read.body?.draft_dish?.is_hidden)}), and how a dish is hidden otherwise is not shown`,
        );
      t.status(await staff.post(`/api/organizations/${t.fixtures.orgId}/publish`), '2xx', 'publishing the menu');
      const menu = await t.setup('the published menu', () => t.control.publishedMenu(t.fixtures.orgId));
      const ids = (menu?.dishes ?? []).map((d: Rec) => d.id);
      t.check(ids.includes(shown.id), `the visible dish ${shown.id} is not on the storefront after publication`);
      t.check(
        !ids.includes(hidden.id),
        `the hidden dish ${hidden.id} is on the storefront after publication ("hidden on the storefront")`,
      );
    },
  }),
];
