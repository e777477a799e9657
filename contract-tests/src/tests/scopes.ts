/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Client, TestContext } from '../runner/context.js';
import type { Rec } from '../runner/fixtures.js';
import { component, defineTest } from './define.js';

/**
 * The most pages of one list a test pages through, and only where a filter selects the test's own few orders
 * (stateful/order-pages.ts): the list it reads ends within them on any service.
 */
export const MAX_LIST_PAGES = 4;

/** Orders as listed, and whether they are all of them (the list ended on its first page). */
export type ListedOrders = Rec[] & { complete: boolean };

/**
 * The first page of the orders a client can list (at the decided maximum of `per_page` under `full`, the service's
 * own page size under `spec`): one request, so a service with 100,000 orders costs a run no more requests than the
 * demo. `complete` says whether that was all: a check that needs every order (equal sets, counts) makes it only
 * then, and warns otherwise ({@link wholeLists}).
 */
export async function allOrders(
  t: TestContext,
  client: Client,
  query: Record<string, any> = {},
): Promise<ListedOrders> {
  const response = await client.get('/api/orders', { ...query, page: 1, ...t.listPage });
  t.status(response, 200, 'listing orders');
  const orders = t.list<Rec>(response.body, ['orders'], 'the list of orders');
  return Object.assign(orders, { complete: Number(response.body?.meta?.page_count ?? 1) <= 1 });
}

/** Whether every list given is complete; else a warning that `what` was checked on the first pages only. */
export function wholeLists(t: TestContext, what: string, ...lists: ListedOrders[]): boolean {
  if (lists.every((list) => list.complete)) return true;
  t.warn(`${what}: checked on the first page of orders only (the service lists more than one page)`);
  return false;
}

/** Ids of a foreign organization's records of each kind, as an account of that organization (or the dispatcher) sees them. */
async function foreignRecords(t: TestContext): Promise<Record<string, number | undefined>> {
  const foreignOrg = t.fixtures.foreignOrgId();
  const reader = t.config.accounts.foreignStaffMember ? await t.as('foreignStaffMember') : await t.as('dispatcher');
  const first = async (
    path: string,
    key: string,
    query: Record<string, any> = { organization_id: foreignOrg },
  ): Promise<number | undefined> => {
    const response = await reader.get(path, query);
    if (response.status !== 200) return undefined;
    const list = (response.body?.[key] ?? []) as Rec[];
    return list.find((r) => r.organization_id === undefined || r.organization_id === foreignOrg)?.id as
      number | undefined;
  };
  const restaurant = await first('/api/restaurants', 'restaurants');
  const orders = t.config.accounts.foreignStaffMember ? await allOrders(t, reader) : [];
  return {
    organization: foreignOrg,
    restaurant,
    draft_category: await first('/api/draft_categories', 'draft_categories'),
    draft_dish: await first('/api/draft_dishes', 'draft_dishes'),
    delivery_zone: await first('/api/delivery_zones', 'delivery_zones'),
    order: orders[0]?.id as number | undefined,
  };
}

const BY_ID: Record<string, string> = {
  organization: '/api/organizations/',
  restaurant: '/api/restaurants/',
  draft_category: '/api/draft_categories/',
  draft_dish: '/api/draft_dishes/',
  delivery_zone: '/api/delivery_zones/',
  order: '/api/orders/',
};

export const scopeTests = [
  defineTest({
    id: 'scope.courier-sees-only-its-orders',
    title: 'Authentication 5 (Courier): a courier sees only the orders assigned to it, in lists and by id',
    clauses: [
      'Authentication 5: Courier',
      'Endpoints > Orders: GET /orders',
      'Endpoints > Orders: GET /orders/:id',
      'Resources > Order: courier_id',
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['mutations'],
    operations: ['listOrders', 'getOrder', 'importOrders', 'updateOrder'],
    async run(t) {
      const mine = await t.fixtures.createOrder({ courier: 'courier' });
      const other = await t.fixtures.createOrder(t.config.accounts.otherCourier ? { courier: 'otherCourier' } : {});
      const courierId = await t.fixtures.accountId('courier');
      const courier = await t.as('courier');
      const listed = await allOrders(t, courier);
      for (const order of listed)
        t.equal(order.courier_id, courierId, `courier_id of order ${order.id} in the courier's list`);
      // Its own order is on the first page, or the list goes on past it (then the check is not made, and says so).
      if (
        !listed.some((o) => o.id === mine.id) &&
        wholeLists(t, `the courier's list shows its order ${mine.id}`, listed)
      )
        t.fail(`the courier's list lacks its own order ${mine.id}`);
      t.check(!listed.some((o) => o.id === other.id), `the courier's list shows order ${other.id} of another courier`);
      if (t.config.accounts.otherCourier) {
        const otherId = await t.fixtures.accountId('otherCourier');
        const filtered = await allOrders(t, courier, { courier_id: otherId });
        t.check(
          !filtered.some((o) => o.courier_id !== courierId),
          "filtering by another courier shows that courier's orders to a courier",
        );
      }
      t.status(await courier.get(`/api/orders/${mine.id}`), 200, 'the courier reads its own order');
      t.refused(await courier.get(`/api/orders/${other.id}`), 404, "the courier reads another courier's order");
    },
  }),
  defineTest({
    id: 'scope.courier-cannot-act-on-foreign-orders',
    title:
      'Authentication 5 (Courier): a courier can neither confirm nor change the status of an order that is not assigned to it',
    clauses: [
      'Authentication 5: Courier',
      'Endpoints > Orders: PUT /orders/:id/confirm',
      'Endpoints > Orders: PUT /orders/:id/status',
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['mutations'],
    operations: ['confirmOrder', 'setOrderStatus', 'getOrder'],
    async run(t) {
      const other = await t.fixtures.createOrder(t.config.accounts.otherCourier ? { courier: 'otherCourier' } : {});
      const courier = await t.as('courier');
      t.refused(await courier.put(`/api/orders/${other.id}/confirm`), 404, "confirming another courier's order");
      t.refused(
        await courier.request({ method: 'PUT', path: `/api/orders/${other.id}/status`, query: { status: 'delivery' } }),
        404,
        "setting the status of another courier's order",
      );
      const after = await t.fixtures.order(other.id as number);
      t.equal(after.status, other.status, "status of the other courier's order");
      t.equal(
        after.courier_confirmed_at,
        other.courier_confirmed_at,
        "courier_confirmed_at of the other courier's order",
      );
    },
  }),
  defineTest({
    id: 'scope.staff-member-sees-one-organization',
    title: 'Limits 2: a StaffMember account sees exactly one organization',
    clauses: [
      'Limits 2',
      'Authentication 5: StaffMember',
      'Endpoints > Organizations: GET /api/organizations',
      'Endpoints > Organizations: GET /api/organizations/:id',
    ],
    profile: 'spec',
    kind: 'behaviour',
    operations: ['listOrganizations', 'getOrganization'],
    async run(t) {
      const staff = await t.as('staffMember');
      const list = await staff.get('/api/organizations');
      t.status(list, 200);
      const ids = t.list<Rec>(list.body, ['organizations'], 'the list of organizations').map((o) => o.id);
      t.equal(ids, [t.fixtures.orgId], 'organizations listed for a staff member');
      t.status(await staff.get(`/api/organizations/${t.fixtures.orgId}`), 200, 'reading its own organization');
      if (t.config.foreignOrganization)
        t.refused(
          await staff.get(`/api/organizations/${t.config.foreignOrganization.id}`),
          404,
          'reading another organization',
        );
    },
  }),
  defineTest({
    id: 'scope.lists-never-show-foreign-records',
    title:
      "Authentication 5 (StaffMember): lists show only the records of the staff member's organization, also when filtered by another one",
    clauses: [
      'Authentication 5: StaffMember',
      'Limits 2',
      'Endpoints > Restaurants: GET /api/restaurants',
      'Endpoints > Draft categories: GET /api/draft_categories',
      'Endpoints > Draft dishes: GET /api/draft_dishes',
      'Endpoints > Delivery zones: GET /api/delivery_zones',
      'Endpoints > Orders: GET /orders',
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['foreignOrganization'],
    operations: ['listRestaurants', 'listDraftCategories', 'listDraftDishes', 'listDeliveryZones', 'listOrders'],
    async run(t) {
      const own = t.fixtures.orgId;
      const foreign = t.fixtures.foreignOrgId();
      const staff = await t.as('staffMember');
      for (const [path, key] of [
        ['/api/restaurants', 'restaurants'],
        ['/api/draft_categories', 'draft_categories'],
        ['/api/draft_dishes', 'draft_dishes'],
        ['/api/delivery_zones', 'delivery_zones'],
      ] as const) {
        const all = await staff.get(path);
        t.status(all, 200, `listing ${key}`);
        for (const record of t.list<Rec>(all.body, [key], `the list of ${key}`))
          t.equal(record.organization_id, own, `organization of ${key} ${record.id} listed for a staff member`);
        const filtered = await staff.get(path, { organization_id: foreign });
        if (filtered.status === 200) {
          for (const record of t.list<Rec>(filtered.body, [key], `the list of ${key}`))
            t.equal(record.organization_id, own, `${key} ${record.id} listed with organization_id=${foreign}`);
        } else t.status(filtered, '4xx', `filtering ${key} by another organization`);
      }
      const restaurants = new Set(await t.fixtures.restaurantIds());
      for (const order of await allOrders(t, staff))
        t.check(
          restaurants.has(order.restaurant_id),
          `order ${order.id} of restaurant ${order.restaurant_id} is listed for a staff member of organization ${own}`,
        );
    },
  }),
  defineTest({
    id: 'scope.by-id-never-shows-foreign-records',
    title: 'Authentication 5 (StaffMember): records of another organization cannot be read or changed by id',
    clauses: [
      'Authentication 5: StaffMember',
      'Limits 2',
      'Endpoints > Organizations: GET /api/organizations/:id',
      'Endpoints > Restaurants: GET /api/restaurants/:id',
      'Endpoints > Restaurants: PUT /api/restaurants/:id',
      'Endpoints > Draft categories: GET /api/draft_categories/:id',
      'Endpoints > Draft dishes: GET /api/draft_dishes/:id',
      'Endpoints > Draft dishes: DELETE /api/draft_dishes/:id',
      'Endpoints > Delivery zones: GET /api/delivery_zones/:id',
      'Endpoints > Orders: GET /orders/:id',
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['foreignOrganization'],
    operations: [
      'getOrganization',
      'getRestaurant',
      'getDraftCategory',
      'getDraftDish',
      'getDeliveryZone',
      'getOrder',
      'updateRestaurant',
      'deleteDraftDish',
    ],
    async run(t) {
      const foreign = await foreignRecords(t);
      const staff = await t.as('staffMember');
      let checked = 0;
      for (const [kind, id] of Object.entries(foreign)) {
        if (id === undefined) continue;
        checked += 1;
        t.refused(
          await staff.get(`${BY_ID[kind]}${id}`),
          404,
          `a staff member reads ${kind} ${id} of another organization`,
        );
      }
      t.check(checked >= 3, `too few foreign records found to check (${JSON.stringify(foreign)})`);
      const reader = t.config.accounts.foreignStaffMember ? await t.as('foreignStaffMember') : await t.as('dispatcher');
      if (foreign.restaurant !== undefined) {
        const before = await reader.get(`/api/restaurants/${foreign.restaurant}`);
        t.refused(
          await staff.put(`/api/restaurants/${foreign.restaurant}`, { restaurant: { name: `Hijacked ${t.unique()}` } }),
          404,
          'renaming a restaurant of another organization',
        );
        t.equal(
          (await reader.get(`/api/restaurants/${foreign.restaurant}`)).body,
          before.body,
          'the foreign restaurant after a refused update',
        );
      }
      if (foreign.draft_dish !== undefined) {
        t.refused(
          await staff.delete(`/api/draft_dishes/${foreign.draft_dish}`),
          404,
          'deleting a dish of another organization',
        );
        t.status(
          await reader.get(`/api/draft_dishes/${foreign.draft_dish}`),
          200,
          'the foreign dish after a refused delete',
        );
      }
    },
  }),
  defineTest({
    id: 'scope.dispatcher-sees-all-orders',
    title: 'Authentication 5 (Dispatcher): the dispatcher sees the orders of every organization',
    clauses: ['Authentication 5: Dispatcher', 'Endpoints > Orders: GET /orders', 'Endpoints > Orders: GET /orders/:id'],
    profile: 'spec',
    kind: 'behaviour',
    operations: ['listOrders', 'getOrder'],
    async run(t) {
      const dispatcher = await t.as('dispatcher');
      const listed = await allOrders(t, dispatcher);
      const all = new Set(listed.map((o) => o.id));
      const staffOrders = await allOrders(t, await t.as('staffMember'));
      if (wholeLists(t, "the dispatcher's orders include the staff member's", listed))
        for (const order of staffOrders)
          t.check(
            all.has(order.id),
            `the dispatcher does not see order ${order.id} of organization ${t.fixtures.orgId}`,
          );
      if (t.config.accounts.foreignStaffMember) {
        const foreignOrders = await allOrders(t, await t.as('foreignStaffMember'));
        if (wholeLists(t, "the dispatcher's orders include the other organization's", listed))
          for (const order of foreignOrders)
            t.check(all.has(order.id), `the dispatcher does not see order ${order.id} of the other organization`);
        if (foreignOrders[0])
          t.status(
            await dispatcher.get(`/api/orders/${foreignOrders[0].id}`),
            200,
            'the dispatcher reads an order of the other organization',
          );
      }
      if (staffOrders[0])
        t.status(await dispatcher.get(`/api/orders/${staffOrders[0].id}`), 200, 'the dispatcher reads an order by id');
    },
  }),
  defineTest({
    id: 'scope.decided-account-refusals',
    title:
      'Accounts (decided): a dispatcher or courier may not edit menus, zones or organizations (403); out-of-scope records answer 404',
    clauses: ['Authentication 5: Dispatcher', 'Authentication 5: Courier', 'Authentication 5: StaffMember'],
    profile: 'full',
    decisions: [component('responses', 'Forbidden'), component('responses', 'NotFound')],
    kind: 'decision',
    operations: ['updateOrganization', 'createDraftDish', 'createDeliveryZone', 'updateRestaurant'],
    async run(t) {
      const category = await t.fixtures.category();
      const [restaurantId] = await t.fixtures.restaurantIds();
      for (const role of ['dispatcher', 'courier'] as const) {
        const client = await t.as(role);
        t.status(
          await client.put(`/api/organizations/${t.fixtures.orgId}`, {
            organization: { about: 'changed by a non-staff account' },
          }),
          403,
          `${role} updates the organization`,
        );
        t.status(
          await client.post('/api/draft_dishes', {
            draft_dish: {
              name: 'Forbidden dish',
              price: '1.00',
              draft_category_id: category.id,
              organization_id: t.fixtures.orgId,
            },
          }),
          403,
          `${role} creates a draft dish`,
        );
        t.status(
          await client.post('/api/delivery_zones', {
            organization_id: t.fixtures.orgId,
            restaurant_id: restaurantId,
            name: 'Forbidden zone',
          }),
          403,
          `${role} creates a zone`,
        );
        t.status(
          await client.put(`/api/restaurants/${restaurantId}`, { restaurant: { name: 'Forbidden name' } }),
          403,
          `${role} renames a restaurant`,
        );
      }
    },
  }),
];
