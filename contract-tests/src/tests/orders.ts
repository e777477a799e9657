import type { TestContext } from '../runner/context.js';
import type { Rec } from '../runner/fixtures.js';
import { component, defineTest, opPointer, resourceRows } from './define.js';
import { allOrders, wholeLists, type ListedOrders } from './scopes.js';

export const ORDER_FIELDS = [
  'id',
  'number',
  'delivery_time',
  'transportation_time',
  'cooking_time',
  'contact_phone',
  'contact_name',
  'description',
  'change',
  'status',
  'created_at',
  'courier_confirmed_at',
  'restaurant_confirmed_at',
  'delivery_asap',
  'delivery_at',
  'coordinates',
  'latitude, longitude',
  'city',
  'address',
  'apartment, staircase, floor, doorphone',
  'address_text',
  'pick_up_at',
  'payment_source',
  'final_sum',
  'delivery_price',
  'total',
  'restaurant_id',
  'client_id',
  'courier_id',
  'payment_id',
  'links',
];
export const COURIER_FIELDS = [
  'id',
  'name',
  'phone',
  'avatar',
  'organization_id',
  'last_known_position',
  'comment',
  'partnership_id',
];

/** Makes sure the dispatcher sees at least `n` orders (creating some when allowed). */
async function atLeastOrders(t: TestContext, n: number): Promise<ListedOrders> {
  const dispatcher = await t.as('dispatcher');
  let orders = await allOrders(t, dispatcher);
  while (orders.length < n && t.config.capabilities.mutations) {
    await t.fixtures.createOrder();
    orders = await allOrders(t, dispatcher);
  }
  if (orders.length < n) t.skip(`needs at least ${n} orders`);
  return orders;
}

/** The pages of the pagination test: all of them up to this many, else the first two and the last. */
const WALKED_PAGES = 3;

const ids = (orders: Rec[]): number[] => orders.map((o) => o.id as number).sort((a, b) => a - b);

export const orderTests = [
  defineTest({
    id: 'orders.pagination-meta',
    title:
      'Limits 3: order pages follow page and per_page, and meta (page, page_count, per_page, count) agrees with the data',
    clauses: ['Limits 3', 'Endpoints > Orders: GET /orders', 'Data format rules 2'],
    profile: 'spec',
    kind: 'behaviour',
    operations: ['listOrders'],
    async run(t) {
      const everything = await atLeastOrders(t, 3);
      const dispatcher = await t.as('dispatcher');
      const perPage = 2;
      const first = await dispatcher.get('/api/orders', { page: 1, per_page: perPage });
      t.status(first, 200);
      const meta = t.dig<Rec>(first.body, ['meta'], 'the meta of the first page');
      t.equal([meta.page, meta.per_page], [1, perPage], 'meta.page and meta.per_page of the first page');
      for (const key of ['page', 'page_count', 'per_page', 'count'])
        t.check(Number.isInteger(meta[key]), `meta.${key} is not an integer: ${JSON.stringify(meta)}`);
      const pageCount = meta.page_count as number;
      t.check(pageCount >= 2, `page_count ${pageCount} for ${everything.length} orders at ${perPage} per page`);
      const seen: number[] = [];
      // The first two pages and the last one: the walk costs the same requests whatever the number of orders.
      const walked = pageCount <= WALKED_PAGES;
      const pages = walked ? Array.from({ length: pageCount }, (_, i) => i + 1) : [1, 2, pageCount];
      if (!walked) t.warn(`${pageCount} pages of ${perPage} orders: read pages 1, 2 and ${pageCount} only`);
      for (const page of pages) {
        const response = page === 1 ? first : await dispatcher.get('/api/orders', { page, per_page: perPage });
        t.status(response, 200);
        const orders = t.list<Rec>(response.body, ['orders'], `the orders of page ${page}`);
        const pageMeta = t.dig<Rec>(response.body, ['meta'], `the meta of page ${page}`);
        t.equal(pageMeta.page, page, `meta.page of page ${page}`);
        t.equal(pageMeta.page_count, pageCount, `meta.page_count on page ${page}`);
        t.check(
          orders.length >= 1 && orders.length <= perPage,
          `page ${page} of ${pageCount} holds ${orders.length} orders (per_page ${perPage})`,
        );
        if (page < pageCount) t.equal(orders.length, perPage, `orders on the full page ${page}`);
        seen.push(...orders.map((o) => o.id as number));
      }
      t.equal(new Set(seen).size, seen.length, 'orders repeated across pages');
      if (walked && everything.complete)
        t.equal(seen.length, everything.length, 'orders on all pages together (every order once)');
      const beyond = await dispatcher.get('/api/orders', { page: pageCount + 1, per_page: perPage });
      if (beyond.status === 200) t.equal(beyond.body?.orders?.length, 0, 'orders on the page after the last one');
      else t.status(beyond, '4xx', 'the page after the last one');
      // Without per_page the service picks its default, which the spec does not show.
      const plain = await dispatcher.get('/api/orders');
      t.status(plain, 200);
      t.decided(
        '/paths/~1api~1orders/get/parameters/1',
        plain.body?.meta?.per_page === 25,
        `per_page defaults to 25: meta.per_page is ${JSON.stringify(plain.body?.meta?.per_page)}`,
        plain,
      );
    },
  }),
  defineTest({
    id: 'orders.filters',
    title:
      'Endpoints > Orders: the restaurant_id, courier_id, client_id and status filters return exactly the matching orders',
    clauses: [
      'Endpoints > Orders: GET /orders',
      'Data format rules 4',
      'Resources > Order: restaurant_id',
      'Resources > Order: courier_id',
      'Resources > Order: client_id',
      'Resources > Order: status',
    ],
    profile: 'spec',
    kind: 'behaviour',
    operations: ['listOrders'],
    async run(t) {
      const everything = await atLeastOrders(t, 3);
      const dispatcher = await t.as('dispatcher');
      const check = async (key: string, value: unknown): Promise<void> => {
        const expected = everything.filter((o) => o[key] === value);
        const got = await allOrders(t, dispatcher, { [key]: value as string });
        for (const order of got) t.equal(order[key], value, `${key} of order ${order.id} filtered by ${key}=${value}`);
        if (wholeLists(t, `every order with ${key}=${value} is listed`, everything, got))
          t.equal(ids(got), ids(expected), `orders filtered by ${key}=${value}`);
      };
      const sample = everything.find((o) => o.courier_id !== null) ?? everything[0]!;
      await check('restaurant_id', sample.restaurant_id);
      if (sample.courier_id !== null) await check('courier_id', sample.courier_id);
      await check('client_id', sample.client_id);
      await check('status', sample.status);
    },
  }),
  defineTest({
    id: 'orders.decided-list-rules',
    title:
      'Orders list (decided): per_page default 25 and 1..100, sort_by keys, array filters as repeated keys, meta.count over all pages',
    clauses: ['Endpoints > Orders: GET /orders', 'Limits 3'],
    profile: 'full',
    decisions: [
      opPointer('/api/orders', 'get', '/parameters/1'),
      opPointer('/api/orders', 'get', '/parameters/5'),
      opPointer('/api/orders', 'get', '/parameters/6'),
      component('schemas', 'OrderListMeta/properties/count'),
    ],
    kind: 'decision',
    operations: ['listOrders'],
    async run(t) {
      const everything = await atLeastOrders(t, 3);
      const dispatcher = await t.as('dispatcher');
      const plain = await dispatcher.get('/api/orders');
      const plainMeta = t.dig<Rec>(plain.body, ['meta'], 'the meta of the list');
      const count = everything.complete ? everything.length : Number(plainMeta.count);
      t.equal([plainMeta.page, plainMeta.per_page, plainMeta.count], [1, 25, count], 'defaults and count');
      t.equal(plainMeta.page_count, Math.ceil(count / 25), 'page_count = ceil(count / per_page)');
      const two = await dispatcher.get('/api/orders', { per_page: 2 });
      t.equal(
        t.dig(two.body, ['meta', 'page_count'], 'meta.page_count'),
        Math.ceil(count / 2),
        'page_count at 2 per page',
      );
      t.decided(
        component('schemas', 'OrderListMeta/properties/count'),
        two.body?.meta?.count === count,
        `meta.count at 2 per page counts every matching order: ${JSON.stringify(two.body?.meta?.count)}, not ${count}`,
        two,
      );
      for (const bad of [0, 101])
        t.status(await dispatcher.get('/api/orders', { per_page: bad }), 400, `per_page=${bad}`);
      t.status(await dispatcher.get('/api/orders', { sort_by: 'colour' }), 400, 'an unknown sort_by');
      t.status(await dispatcher.get('/api/orders', { status: 'lost' }), 400, 'an unknown status');
      const up = await allOrders(t, dispatcher, { sort_by: 'id' });
      const ascending = up.map((o) => o.id as number);
      t.equal(
        ascending,
        [...ascending].sort((a, b) => a - b),
        'sort_by=id',
      );
      const down = await allOrders(t, dispatcher, { sort_by: '-id' });
      const descending = down.map((o) => o.id as number);
      t.equal(
        descending,
        [...descending].sort((a, b) => b - a),
        'sort_by=-id',
      );
      if (wholeLists(t, 'sort_by=-id lists the orders of sort_by=id backwards', up, down))
        t.equal(descending, [...ascending].reverse(), 'sort_by=-id');
      // An array filter lists the orders of any of its values (two of those the orders have).
      for (const key of ['restaurant_id', 'status']) {
        const values = [...new Set(everything.map((o) => o[key] as string | number))].slice(0, 2);
        const listed = await allOrders(t, dispatcher, { [key]: values });
        for (const order of listed)
          t.check(values.includes(order[key]), `order ${order.id} with ${key} ${order[key]} listed for ${values}`);
        if (wholeLists(t, `an array filter of ${key} lists every order of both`, everything, listed))
          t.equal(
            ids(listed),
            ids(everything.filter((o) => values.includes(o[key]))),
            `${key}=${values.join(`&${key}=`)}`,
          );
      }
    },
  }),
  defineTest({
    id: 'orders.read-with-sideloads',
    title:
      'Data format rules 5: an order is read under `order` with the sideloaded `restaurants`, `couriers` and `payments`',
    clauses: [
      'Data format rules 5',
      'Endpoints > Orders: GET /orders/:id',
      ...resourceRows('Order', ORDER_FIELDS),
      ...resourceRows('Courier', COURIER_FIELDS),
    ],
    profile: 'spec',
    kind: 'behaviour',
    operations: ['getOrder', 'listOrders'],
    async run(t) {
      const dispatcher = await t.as('dispatcher');
      let order = (await allOrders(t, dispatcher)).find((o) => o.courier_id !== null);
      if (!order) order = await t.fixtures.createOrder({ courier: 'courier' });
      const response = await dispatcher.get(`/api/orders/${order.id}`);
      t.status(response, 200);
      const body = t.dig<Rec>(response, ['body'], 'the order answer');
      t.equal(body.order?.id, order.id, 'order.id');
      for (const key of ['restaurants', 'couriers', 'payments'])
        t.check(Array.isArray(body[key]), `the order answer has no sideloaded ${key} array`);
      t.check(
        (body.restaurants as Rec[]).some((r) => r.id === body.order.restaurant_id),
        "the order's restaurant is not sideloaded",
      );
      t.check(
        (body.couriers as Rec[]).some((c) => c.id === body.order.courier_id),
        "the order's courier is not sideloaded",
      );
      t.check(
        body.order.coordinates.includes(String(body.order.longitude)),
        `coordinates ${body.order.coordinates} do not start with the longitude ${body.order.longitude}`,
      );
    },
  }),
  defineTest({
    id: 'orders.path-forms-and-links',
    title: 'Endpoints: /orders and /api/orders denote the same endpoints; links point under /api/orders/<id>/',
    clauses: ['Endpoints > Orders: GET /orders/:id', 'Endpoints > Orders: GET /orders', 'Resources > Order: links'],
    profile: 'spec',
    kind: 'behaviour',
    operations: ['getOrder', 'listOrders'],
    async run(t) {
      const staff = await t.as('staffMember');
      // Under spec the service's own page size: the spec shows no maximum of per_page, and any number may pass it.
      const page = t.full ? { per_page: 5 } : {};
      const short = await staff.get('/orders', page);
      const long = await staff.get('/api/orders', page);
      t.status(short, 200, 'GET /orders');
      t.equal(short.body, long.body, 'GET /orders and GET /api/orders');
      const order = t.list<Rec>(long.body, ['orders'], 'the orders')[0] ?? t.skip('the staff member sees no order');
      const a = await staff.get(`/orders/${order.id}`);
      const b = await staff.get(`/api/orders/${order.id}`);
      t.status(a, 200, 'GET /orders/:id');
      t.equal(a.body, b.body, 'GET /orders/:id and GET /api/orders/:id');
      for (const key of ['buddies', 'items'])
        t.check(
          String(order.links?.[key]).includes(`/api/orders/${order.id}/`),
          `links.${key} = ${order.links?.[key]}`,
        );
    },
  }),
  defineTest({
    id: 'orders.receipts',
    title: 'Endpoints > Orders: the printable statement is served as PDF and as HTML',
    clauses: ['Endpoints > Orders: GET /orders/:id/receipt.pdf or /orders/:id/receipt.html'],
    profile: 'spec',
    kind: 'behaviour',
    operations: ['getOrderReceiptPdf', 'getOrderReceiptHtml', 'listOrders'],
    async run(t) {
      const staff = await t.as('staffMember');
      const order =
        t.list<Rec>((await staff.get('/api/orders', { per_page: 1 })).body, ['orders'], 'the list of orders')[0] ??
        (await t.fixtures.createOrder());
      const pdf = await staff.get(`/api/orders/${order.id}/receipt.pdf`);
      t.status(pdf, 200, 'the PDF statement');
      t.check(pdf.contentType?.startsWith('application/pdf'), `Content-Type of the PDF statement: ${pdf.contentType}`);
      t.equal(new TextDecoder().decode(pdf.bytes.slice(0, 5)), '%PDF-', 'start of the PDF statement');
      const html = await staff.get(`/api/orders/${order.id}/receipt.html`);
      t.status(html, 200, 'the HTML statement');
      t.check(html.contentType?.startsWith('text/html'), `Content-Type of the HTML statement: ${html.contentType}`);
      t.check(html.text.includes(String(order.number)), 'the HTML statement does not name the order number');
    },
  }),
  defineTest({
    id: 'orders.update-fields',
    title:
      'Endpoints > Orders: PUT /orders/:id changes courier_id, contact_name, contact_phone, description, delivery_at and delivery_price',
    clauses: [
      'Endpoints > Orders: PUT /orders/:id',
      'Resources > Order: delivery_price',
      'Resources > Order: courier_id',
      'Data format rules 3',
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['mutations'],
    operations: ['updateOrder', 'getOrder'],
    async run(t) {
      const order = await t.fixtures.createOrder();
      const courierId = await t.fixtures.accountId('courier');
      const dispatcher = await t.as('dispatcher');
      const changes = {
        courier_id: courierId,
        contact_name: 'Changed Name',
        contact_phone: '+49 30 5558888',
        description: 'Leave at the door',
        delivery_at: '2031-01-01T12:00:00Z',
        delivery_price: '4.20',
      };
      t.status(await dispatcher.put(`/api/orders/${order.id}`, { order: changes }), '2xx', 'updating the order');
      const after = await t.fixtures.order(order.id as number);
      t.equal(
        [
          after.courier_id,
          after.contact_name,
          after.contact_phone,
          after.description,
          Date.parse(after.delivery_at),
          Number(after.delivery_price),
        ],
        [courierId, 'Changed Name', '+49 30 5558888', 'Leave at the door', Date.parse(changes.delivery_at), 4.2],
        'fields after the update',
      );
      t.check(typeof after.delivery_price === 'string', 'delivery_price is not returned as a string');
    },
  }),
  defineTest({
    id: 'orders.confirm-by-account-type',
    title:
      'Authentication 6: PUT /orders/:id/confirm sets restaurant_confirmed_at for a restaurant account and courier_confirmed_at for a courier, status unchanged',
    clauses: [
      'Authentication 6',
      'States and transitions: row 3',
      'Endpoints > Orders: PUT /orders/:id/confirm',
      'Data format rules 6',
      'Resources > Order: courier_confirmed_at',
      'Resources > Order: restaurant_confirmed_at',
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['mutations'],
    operations: ['confirmOrder', 'getOrder'],
    async run(t) {
      const order = await t.fixtures.createOrder({ courier: 'courier' });
      t.equal(
        [order.restaurant_confirmed_at, order.courier_confirmed_at],
        [null, null],
        'confirmations of a new order',
      );
      t.status(
        await (await t.as('staffMember')).put(`/api/orders/${order.id}/confirm`),
        '2xx',
        'a staff member confirms',
      );
      const byRestaurant = await t.fixtures.order(order.id as number);
      t.check(
        byRestaurant.restaurant_confirmed_at,
        "restaurant_confirmed_at is not set by a staff member's confirmation",
      );
      t.equal(byRestaurant.courier_confirmed_at, null, "courier_confirmed_at after a staff member's confirmation");
      t.equal(byRestaurant.status, order.status, 'status after a confirmation');
      t.status(
        await (await t.as('courier')).put(`/api/orders/${order.id}/confirm`),
        '2xx',
        'the assigned courier confirms',
      );
      const byCourier = await t.fixtures.order(order.id as number);
      t.check(byCourier.courier_confirmed_at, "courier_confirmed_at is not set by the courier's confirmation");
      t.equal(byCourier.status, order.status, "status after the courier's confirmation");
    },
  }),
  defineTest({
    id: 'orders.courier-status-changes',
    title: 'States and transitions rows 1 and 2: a courier sets its order to `delivery`, then `complete`',
    clauses: [
      'States and transitions: row 1',
      'States and transitions: row 2',
      'Endpoints > Orders: PUT /orders/:id/status',
      'Authentication 5: Courier',
      'Data format rules 6',
      'Data format rules 7',
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['mutations'],
    operations: ['setOrderStatus', 'getOrder'],
    async run(t) {
      const order = await t.fixtures.createOrder({ courier: 'courier' });
      const courier = await t.as('courier');
      for (const status of ['delivery', 'complete']) {
        t.status(
          await courier.request({ method: 'PUT', path: `/api/orders/${order.id}/status`, query: { status } }),
          '2xx',
          `the courier sets ${status}`,
        );
        t.equal(
          (await t.fixtures.order(order.id as number, 'courier')).status,
          status,
          `status after the courier set ${status}`,
        );
      }
    },
  }),
  defineTest({
    id: 'orders.status-change-notifies',
    title: 'Events: a status change of an order sends an SMS notification',
    clauses: ['Endpoints > Orders: PUT /orders/:id/status', 'Data format rules 7'],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['mutations', 'controlApi'],
    operations: ['setOrderStatus'],
    async run(t) {
      const order = await t.fixtures.createOrder({ courier: 'courier' });
      const courier = await t.as('courier');
      const sms = async (): Promise<number> =>
        (await t.setup('the outbox', () => t.control.notifications({ order_id: order.id as number, channel: 'sms' })))
          .length;
      const before = await sms();
      t.status(
        await courier.request({ method: 'PUT', path: `/api/orders/${order.id}/status`, query: { status: 'delivery' } }),
        '2xx',
      );
      t.check((await sms()) > before, 'no SMS was sent on a status change');
    },
  }),
  defineTest({
    id: 'orders.decided-status-machine',
    title:
      'Order statuses (decided): one step forward for staff, terminal statuses are final (409), repeats are no-ops, confirm/status answer the order, dispatcher cannot confirm',
    clauses: [
      'Endpoints > Orders: PUT /orders/:id/status',
      'Endpoints > Orders: PUT /orders/:id/confirm',
      'Authentication 6',
    ],
    profile: 'full',
    decisions: [
      component('schemas', 'OrderStatus'),
      opPointer('/api/orders/{id}/confirm', 'put'),
      opPointer('/api/orders/{id}/confirm', 'put', '/responses/200'),
      opPointer('/api/orders/{id}/status', 'put', '/responses/200'),
      opPointer('/api/orders/{id}', 'put', '/responses/200'),
      component('schemas', 'OrderUpdate/properties/order'),
      component('schemas', 'Order/properties/courier_id'),
      component('parameters', 'SendSms'),
    ],
    kind: 'decision',
    needs: ['mutations'],
    operations: ['setOrderStatus', 'confirmOrder', 'updateOrder', 'getOrder'],
    async run(t) {
      const order = await t.fixtures.createOrder({ courier: 'courier' });
      const staff = await t.as('staffMember');
      const statusPath = `/api/orders/${order.id}/status`;
      t.status(
        await staff.request({ method: 'PUT', path: statusPath, query: { status: 'cooking' } }),
        409,
        'pending → cooking (skipping accepted)',
      );
      const accepted = await staff.request({ method: 'PUT', path: statusPath, query: { status: 'accepted' } });
      t.status(accepted, 200, 'pending → accepted');
      t.equal(accepted.body?.order?.status, 'accepted', 'the status answer carries the order');
      t.status(
        await staff.request({ method: 'PUT', path: statusPath, query: { status: 'accepted' } }),
        200,
        'repeating the current status',
      );
      t.status(await (await t.as('dispatcher')).put(`/api/orders/${order.id}/confirm`), 403, 'a dispatcher confirms');
      const first = await staff.put(`/api/orders/${order.id}/confirm`);
      t.status(first, 200);
      const second = await staff.put(`/api/orders/${order.id}/confirm`);
      t.equal(
        second.body?.order?.restaurant_confirmed_at,
        first.body?.order?.restaurant_confirmed_at,
        'a repeated confirmation keeps the first timestamp',
      );
      const courier = await t.as('courier');
      t.status(
        await courier.request({ method: 'PUT', path: statusPath, query: { status: 'cooking' } }),
        403,
        'a courier sets a kitchen status',
      );
      const sms = async (): Promise<number> =>
        t.hasControl
          ? (
              await t.setup('the outbox', () =>
                t.control.notifications({ order_id: order.id as number, channel: 'sms' }),
              )
            ).length
          : 0;
      const quiet = await sms();
      t.status(
        await courier.request({ method: 'PUT', path: statusPath, query: { status: 'complete', send_sms: false } }),
        200,
        'the courier completes the order (send_sms=false)',
      );
      t.decided(component('parameters', 'SendSms'), (await sms()) === quiet, 'SMS sent although send_sms=false');
      t.status(
        await staff.request({ method: 'PUT', path: statusPath, query: { status: 'cancelled' } }),
        409,
        'leaving complete',
      );
      const unassigned = await (
        await t.as('dispatcher')
      ).put(`/api/orders/${order.id}`, { order: { courier_id: null } });
      const courierId = component('schemas', 'Order/properties/courier_id');
      if (!t.declined(unassigned, courierId, 'taking the courier off the order with courier_id: null')) {
        t.status(unassigned, 200, 'taking the courier off the order');
        t.equal(unassigned.body?.order?.courier_id, null, 'courier_id after unassigning');
      }
    },
  }),
  defineTest({
    id: 'orders.decided-items-and-buddies',
    title: 'Order links (decided): GET items and buddies answer {items} and {buddies} of the order',
    clauses: ['Resources > Order: links', `Resources > Import payloads > Order import body: buddies`],
    profile: 'full',
    decisions: [
      opPointer('/api/orders/{id}/items', 'get'),
      opPointer('/api/orders/{id}/buddies', 'get'),
      component('schemas', 'OrderItem'),
      component('schemas', 'Buddy'),
    ],
    kind: 'decision',
    needs: ['mutations'],
    operations: ['listOrderItems', 'listOrderBuddies'],
    async run(t) {
      const order = await t.fixtures.createOrder({
        draft: { buddies: [{ name: 'Guest', items: [{ name: 'Soup', amount: 2, price: 7, item_price: 3.5 }] }] },
      });
      const staff = await t.as('staffMember');
      const items = await staff.get(String(order.links.items).replace(/^https?:\/\/[^/]+/, ''));
      t.status(items, 200, 'following links.items');
      t.equal(
        t.list<Rec>(items.body, ['items'], 'the items').map((i) => [i.name, i.amount, i.price, i.item_price]),
        [['Soup', 2, '7.00', '3.50']],
        'items of the imported order',
      );
      const buddies = await staff.get(`/api/orders/${order.id}/buddies`);
      t.status(buddies, 200);
      t.equal(
        t.list<Rec>(buddies.body, ['buddies'], 'the buddies').map((b) => [b.name, b.item_ids?.length]),
        [['Guest', 1]],
        'buddies of the imported order',
      );
    },
  }),
];
