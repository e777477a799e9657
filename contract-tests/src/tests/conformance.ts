/* eslint-disable @typescript-eslint/no-explicit-any */
import type { TestContext } from '../runner/context.js';
import type { Rec } from '../runner/fixtures.js';
import type { ApiResponse } from '../runner/http.js';
import type { ContractTest } from '../runner/context.js';
import type { Need } from '../runner/types.js';
import { checkCallback, DELIVERY_FIELDS, handedOverOrder, VIEW_FIELDS, waitForCallback } from './carrier.js';
import { defineTest, resourceRows } from './define.js';
import { DISH_FIELDS, photoForm } from './menu.js';
import { COURIER_FIELDS, ORDER_FIELDS } from './orders.js';
import { ZONE_FIELDS } from './zones.js';

const R = {
  apiUser: resourceRows('ApiUser', ['id', 'login', 'name', 'phone', 'avatar', 'account']),
  staff: resourceRows('StaffMember', ['id', 'role', 'organization_id', 'restaurant_ids']),
  organization: resourceRows('Organization', [
    'id',
    'name',
    'host',
    'social_network',
    'about',
    'phone',
    'accept_cashless',
  ]),
  restaurant: resourceRows('Restaurant', [
    'id',
    'name',
    'phone',
    'address',
    'organization_id',
    'is_running',
    'is_delivery',
  ]),
  category: resourceRows('DraftCategory', ['id', 'name', 'menu_order', 'photo', 'draft_dish_ids', 'organization_id']),
  dish: resourceRows('DraftDish', DISH_FIELDS),
  configurator: resourceRows('Dish configurator', ['name', 'items', 'multiple', 'min', 'max']),
  zone: [
    ...resourceRows('DeliveryZone', ZONE_FIELDS),
    ...resourceRows('DeliveryZone > Timetable entry', ['id', 'open_at', 'close_at', 'day', 'date', 'is_working']),
  ],
  courier: resourceRows('Courier', COURIER_FIELDS),
  order: resourceRows('Order', ORDER_FIELDS),
  view: [
    ...resourceRows('Carrier order view', VIEW_FIELDS),
    ...resourceRows('Carrier order view > The delivery block', DELIVERY_FIELDS),
  ],
};

const E = (section: string, row: string): string => `Endpoints > ${section}: ${row}`;

/**
 * Starts an import and, once it is accepted, waits for its job without judging it: left running, the job replaces
 * what a later test reads on a service without resets (the menu under the next draft-dish test).
 */
async function startImport(t: TestContext, kind: 'menu' | 'clients', body: Rec): Promise<ApiResponse> {
  const answer = await (await t.as('staffMember')).post(`/api/organizations/${t.fixtures.orgId}/import/${kind}`, body);
  if (answer.status >= 200 && answer.status < 300) await t.fixtures.importSettled(kind);
  return answer;
}

interface Recipe {
  op: string;
  clauses: string[];
  needs?: Need[];
  run(t: TestContext): Promise<ApiResponse | void>;
}

async function first(t: TestContext, path: string, key: string, query: Record<string, any> = {}): Promise<Rec> {
  const staff = await t.as('staffMember');
  const response = await staff.get(path, { organization_id: t.fixtures.orgId, ...query });
  t.status(response, 200, `listing ${key}`);
  const record = (response.body?.[key] as Rec[] | undefined)?.[0];
  if (!record) t.skip(`no ${key} to read in organization ${t.fixtures.orgId}`);
  return record;
}

async function anyOrder(t: TestContext): Promise<Rec> {
  const staff = await t.as('staffMember');
  const response = await staff.get('/api/orders', { per_page: 1 });
  t.status(response, 200, 'listing orders');
  return t.list<Rec>(response.body, ['orders'], 'the list of orders')[0] ?? (await t.fixtures.createOrder());
}

const RECIPES: Recipe[] = [
  {
    op: 'createSession',
    clauses: [E('Session', 'POST /api/session'), ...R.apiUser, ...R.staff],
    run: async (t) => void (await t.login('staffMember')),
  },
  {
    op: 'getSession',
    clauses: [E('Session', 'GET /api/session'), ...R.apiUser],
    run: async (t) => (await t.as('staffMember')).get('/api/session'),
  },
  {
    op: 'deleteSession',
    clauses: [E('Session', 'DELETE /api/session')],
    run: async (t) => t.withSession(await t.login('courier')).delete('/api/session'),
  },
  {
    op: 'listOrganizations',
    clauses: [E('Organizations', 'GET /api/organizations'), ...R.organization],
    run: async (t) => (await t.as('dispatcher')).get('/api/organizations'),
  },
  {
    op: 'getOrganization',
    clauses: [E('Organizations', 'GET /api/organizations/:id'), ...R.organization],
    run: async (t) => (await t.as('staffMember')).get(`/api/organizations/${t.fixtures.orgId}`),
  },
  {
    op: 'updateOrganization',
    clauses: [E('Organizations', 'PUT /api/organizations/:id'), ...R.organization],
    needs: ['mutations'],
    run: async (t) => {
      const staff = await t.as('staffMember');
      const current = t.dig<Rec>(
        (await staff.get(`/api/organizations/${t.fixtures.orgId}`)).body,
        ['organization'],
        'the organization',
      );
      return staff.put(`/api/organizations/${t.fixtures.orgId}`, { organization: { about: current.about } });
    },
  },
  {
    op: 'publishMenu',
    clauses: [E('Organizations', 'POST /api/organizations/:id/publish')],
    needs: ['mutations'],
    run: async (t) => (await t.as('staffMember')).post(`/api/organizations/${t.fixtures.orgId}/publish`),
  },
  {
    op: 'importMenu',
    clauses: [E('Organizations', 'POST /api/organizations/:id/import/menu')],
    needs: ['mutations', 'menuImport'],
    run: (t) =>
      startImport(t, 'menu', { dishes: [{ name: 'Conformance dish', price: 5, category_name: 'Conformance' }] }),
  },
  {
    op: 'getMenuImport',
    clauses: [E('Organizations', 'GET /api/organizations/:id/import/menu')],
    run: async (t) => (await t.as('staffMember')).get(`/api/organizations/${t.fixtures.orgId}/import/menu`),
  },
  {
    op: 'importClients',
    clauses: [E('Organizations', 'POST /api/organizations/:id/import/clients')],
    needs: ['mutations'],
    run: (t) =>
      startImport(t, 'clients', {
        clients: [{ external_id: `conformance-${t.unique()}`, name: 'Conformance client' }],
      }),
  },
  {
    op: 'getClientImport',
    clauses: [E('Organizations', 'GET /api/organizations/:id/import/clients')],
    run: async (t) => (await t.as('staffMember')).get(`/api/organizations/${t.fixtures.orgId}/import/clients`),
  },
  {
    op: 'importOrders',
    clauses: [E('Organizations', 'POST /api/organizations/:id/import/orders')],
    needs: ['mutations'],
    run: async (t) => t.fixtures.importOrders([await t.fixtures.orderDraft()]),
  },
  {
    op: 'listRestaurants',
    clauses: [E('Restaurants', 'GET /api/restaurants'), ...R.restaurant],
    run: async (t) => (await t.as('staffMember')).get('/api/restaurants', { organization_id: t.fixtures.orgId }),
  },
  {
    op: 'getRestaurant',
    clauses: [E('Restaurants', 'GET /api/restaurants/:id'), ...R.restaurant],
    run: async (t) =>
      (await t.as('staffMember')).get(`/api/restaurants/${(await first(t, '/api/restaurants', 'restaurants')).id}`),
  },
  {
    op: 'updateRestaurant',
    clauses: [E('Restaurants', 'PUT /api/restaurants/:id'), ...R.restaurant],
    needs: ['mutations'],
    run: async (t) => {
      const restaurant = await first(t, '/api/restaurants', 'restaurants');
      return (await t.as('staffMember')).put(`/api/restaurants/${restaurant.id}`, {
        restaurant: { name: restaurant.name },
      });
    },
  },
  {
    op: 'listCouriers',
    clauses: R.courier,
    run: async (t) => (await t.as('staffMember')).get('/api/couriers', { organization_id: t.fixtures.orgId }),
  },
  {
    op: 'getCourier',
    clauses: R.courier,
    run: async (t) =>
      (await t.as('staffMember')).get(`/api/couriers/${(await first(t, '/api/couriers', 'couriers')).id}`),
  },
  {
    op: 'listDraftCategories',
    clauses: [E('Draft categories', 'GET /api/draft_categories'), ...R.category],
    run: async (t) => (await t.as('staffMember')).get('/api/draft_categories', { organization_id: t.fixtures.orgId }),
  },
  {
    op: 'getDraftCategory',
    clauses: [E('Draft categories', 'GET /api/draft_categories/:id'), ...R.category],
    run: async (t) =>
      (await t.as('staffMember')).get(
        `/api/draft_categories/${(await first(t, '/api/draft_categories', 'draft_categories')).id}`,
      ),
  },
  {
    op: 'createDraftCategory',
    clauses: R.category,
    needs: ['mutations'],
    run: async (t) =>
      (await t.as('staffMember')).post('/api/draft_categories', {
        draft_category: { name: `Conformance ${t.unique()}`, organization_id: t.fixtures.orgId },
      }),
  },
  {
    op: 'updateDraftCategory',
    clauses: [E('Draft categories', 'PUT /api/draft_categories/:id'), ...R.category],
    needs: ['mutations'],
    run: async (t) => {
      const category = await first(t, '/api/draft_categories', 'draft_categories');
      return (await t.as('staffMember')).put(`/api/draft_categories/${category.id}`, {
        draft_category: { name: category.name },
      });
    },
  },
  {
    op: 'deleteDraftCategory',
    clauses: [E('Draft categories', 'DELETE /api/draft_categories/:id')],
    needs: ['mutations'],
    run: async (t) =>
      (await t.as('staffMember')).delete(`/api/draft_categories/${(await t.fixtures.createCategory()).id}`),
  },
  {
    op: 'uploadDraftCategoryPhoto',
    clauses: [E('Draft categories', 'PUT /api/draft_categories/:id/photo'), 'Data format rules 9'],
    needs: ['mutations'],
    run: async (t) =>
      (await t.as('staffMember')).request({
        method: 'PUT',
        path: `/api/draft_categories/${(await first(t, '/api/draft_categories', 'draft_categories')).id}/photo`,
        body: photoForm(),
      }),
  },
  {
    op: 'listDraftDishes',
    clauses: [E('Draft dishes', 'GET /api/draft_dishes'), ...R.dish, ...R.configurator],
    run: async (t) => (await t.as('staffMember')).get('/api/draft_dishes', { organization_id: t.fixtures.orgId }),
  },
  {
    op: 'getDraftDish',
    clauses: [E('Draft dishes', 'GET /api/draft_dishes/:id'), ...R.dish],
    run: async (t) =>
      (await t.as('staffMember')).get(`/api/draft_dishes/${(await first(t, '/api/draft_dishes', 'draft_dishes')).id}`),
  },
  {
    op: 'createDraftDish',
    clauses: [E('Draft dishes', 'POST /api/draft_dishes/'), ...R.dish],
    needs: ['mutations'],
    run: async (t) => {
      const category = await first(t, '/api/draft_categories', 'draft_categories');
      return (await t.as('staffMember')).post('/api/draft_dishes', {
        draft_dish: {
          name: `Conformance ${t.unique()}`,
          price: '4.50',
          draft_category_id: category.id,
          organization_id: t.fixtures.orgId,
        },
      });
    },
  },
  {
    op: 'updateDraftDish',
    clauses: [E('Draft dishes', 'PUT /api/draft_dishes/:id'), ...R.dish],
    needs: ['mutations'],
    run: async (t) => {
      const dish = await first(t, '/api/draft_dishes', 'draft_dishes');
      return (await t.as('staffMember')).put(`/api/draft_dishes/${dish.id}`, { draft_dish: { name: dish.name } });
    },
  },
  {
    op: 'deleteDraftDish',
    clauses: [E('Draft dishes', 'DELETE /api/draft_dishes/:id')],
    needs: ['mutations'],
    run: async (t) => (await t.as('staffMember')).delete(`/api/draft_dishes/${(await t.fixtures.createDish()).id}`),
  },
  {
    op: 'uploadDraftDishPhoto',
    clauses: [E('Draft dishes', 'PUT /api/draft_dishes/:id/photo'), 'Data format rules 9'],
    needs: ['mutations'],
    run: async (t) =>
      (await t.as('staffMember')).request({
        method: 'PUT',
        path: `/api/draft_dishes/${(await first(t, '/api/draft_dishes', 'draft_dishes')).id}/photo`,
        body: photoForm(),
      }),
  },
  {
    op: 'listDeliveryZones',
    clauses: [E('Delivery zones', 'GET /api/delivery_zones'), ...R.zone],
    run: async (t) => (await t.as('staffMember')).get('/api/delivery_zones', { organization_id: t.fixtures.orgId }),
  },
  {
    op: 'getDeliveryZone',
    clauses: [E('Delivery zones', 'GET /api/delivery_zones/:id'), ...R.zone],
    run: async (t) =>
      (await t.as('staffMember')).get(
        `/api/delivery_zones/${(await first(t, '/api/delivery_zones', 'delivery_zones')).id}`,
      ),
  },
  {
    op: 'createDeliveryZone',
    clauses: [E('Delivery zones', 'POST /api/delivery_zones'), ...R.zone],
    needs: ['mutations'],
    run: async (t) => void (await t.fixtures.createZone()),
  },
  {
    op: 'updateDeliveryZone',
    clauses: [E('Delivery zones', 'PUT /api/delivery_zones/:id'), ...R.zone],
    needs: ['mutations'],
    run: async (t) => {
      const zone = await first(t, '/api/delivery_zones', 'delivery_zones');
      return (await t.as('staffMember')).put(`/api/delivery_zones/${zone.id}`, { name: zone.name });
    },
  },
  {
    op: 'deleteDeliveryZone',
    clauses: [],
    needs: ['mutations'],
    run: async (t) => (await t.as('staffMember')).delete(`/api/delivery_zones/${(await t.fixtures.createZone()).id}`),
  },
  {
    op: 'listOrders',
    clauses: [E('Orders', 'GET /orders'), ...R.order],
    run: async (t) => (await t.as('dispatcher')).get('/api/orders'),
  },
  {
    op: 'getOrder',
    clauses: [E('Orders', 'GET /orders/:id'), ...R.order, ...R.restaurant, ...R.courier],
    run: async (t) => (await t.as('staffMember')).get(`/api/orders/${(await anyOrder(t)).id}`),
  },
  {
    op: 'updateOrder',
    clauses: [E('Orders', 'PUT /orders/:id'), ...R.order],
    needs: ['mutations'],
    run: async (t) => {
      const order = await anyOrder(t);
      return (await t.as('dispatcher')).put(`/api/orders/${order.id}`, { order: { description: order.description } });
    },
  },
  {
    op: 'getOrderReceiptPdf',
    clauses: [E('Orders', 'GET /orders/:id/receipt.pdf or /orders/:id/receipt.html')],
    run: async (t) => (await t.as('staffMember')).get(`/api/orders/${(await anyOrder(t)).id}/receipt.pdf`),
  },
  {
    op: 'getOrderReceiptHtml',
    clauses: [E('Orders', 'GET /orders/:id/receipt.pdf or /orders/:id/receipt.html')],
    run: async (t) => (await t.as('staffMember')).get(`/api/orders/${(await anyOrder(t)).id}/receipt.html`),
  },
  {
    op: 'confirmOrder',
    clauses: [E('Orders', 'PUT /orders/:id/confirm'), ...R.order],
    needs: ['mutations'],
    run: async (t) => (await t.as('courier')).put(`/api/orders/${(await t.fixtures.courierOrder()).id}/confirm`),
  },
  {
    op: 'setOrderStatus',
    clauses: [E('Orders', 'PUT /orders/:id/status'), ...R.order],
    needs: ['mutations'],
    run: async (t) =>
      (await t.as('courier')).request({
        method: 'PUT',
        path: `/api/orders/${(await t.fixtures.courierOrder()).id}/status`,
        query: { status: 'delivery' },
      }),
  },
  {
    op: 'listOrderItems',
    clauses: ['Resources > Order: links'],
    run: async (t) => (await t.as('staffMember')).get(`/api/orders/${(await anyOrder(t)).id}/items`),
  },
  {
    op: 'listOrderBuddies',
    clauses: ['Resources > Order: links'],
    run: async (t) => (await t.as('staffMember')).get(`/api/orders/${(await anyOrder(t)).id}/buddies`),
  },
  {
    op: 'getCarrierOrder',
    clauses: [E('Carrier API', 'GET /api-delivery/orders/:secure_id'), ...R.view],
    needs: ['carrierApi'],
    run: async (t) => t.carrier().get(`/orders/${encodeURIComponent((await handedOverOrder(t)).secureId)}`),
  },
  {
    op: 'updateCarrierDelivery',
    clauses: [E('Carrier API', 'PUT /api-delivery/orders/:secure_id/delivery'), ...R.view],
    needs: ['carrierApi'],
    run: async (t) =>
      t.carrier().put(`/orders/${encodeURIComponent((await handedOverOrder(t)).secureId)}/delivery`, {
        message: 'Conformance check',
      }),
  },
];

/** One schema-conformance test per operation of the document (item 2 of the issue). */
export function conformanceTests(operationIds: readonly string[]): ContractTest[] {
  const tests: ContractTest[] = RECIPES.map((recipe) =>
    defineTest({
      id: `schema.${recipe.op}`,
      title: `Schema conformance: ${recipe.op} answers a documented status, content type and body`,
      clauses: ['Data format rules 1', ...recipe.clauses],
      profile: 'spec',
      kind: 'conformance',
      ...(recipe.needs ? { needs: recipe.needs } : {}),
      operations: [recipe.op],
      async run(t) {
        const response = await recipe.run(t);
        if (response) t.status(response, '2xx', recipe.op);
      },
    }),
  );
  tests.push(
    defineTest({
      id: 'schema.callbacks',
      title: "Schema conformance: the callbacks the service sends match the document's webhooks",
      clauses: ['Data format rules 1', 'Events: order_created', 'Events: order_status_changed'],
      profile: 'spec',
      kind: 'conformance',
      needs: ['controlApi', 'mutations'],
      operations: ['orderCreatedCallback', 'orderStatusChangedCallback'],
      async run(t) {
        const handed = await handedOverOrder(t);
        checkCallback(t, handed.created!, 'orderCreatedCallback');
        await t.fixtures.assignCourier(handed.orderId!, 'courier');
        await (
          await t.as('courier')
        ).request({ method: 'PUT', path: `/api/orders/${handed.orderId}/status`, query: { status: 'delivery' } });
        const changed = t.present(
          await waitForCallback(
            t,
            handed.receiver!,
            (c) => c.query.type === 'order_status_changed' && Number(c.query.order_id) === handed.orderId,
          ),
          'no order_status_changed callback arrived',
        );
        checkCallback(t, changed, 'orderStatusChangedCallback');
      },
    }),
  );
  const covered = new Set(tests.flatMap((test) => test.operations));
  const missing = operationIds.filter((id) => !covered.has(id));
  if (missing.length > 0) throw new Error(`no schema-conformance recipe for ${missing.join(', ')}`);
  return tests;
}
