import type { Rec } from '../runner/fixtures.js';
import { JSON_MEDIA_TYPE } from '@restoapi/openapi';
import { component, defineTest } from './define.js';

export const formatTests = [
  defineTest({
    id: 'format.json-needs-content-type',
    title:
      'Data format rules 8 / Errors 5: a JSON body without Content-Type: application/json is not accepted as JSON, and nothing changes',
    clauses: [
      'Data format rules 8',
      'Errors 5',
      'Endpoints > Organizations: PUT /api/organizations/:id',
      'Endpoints > Draft dishes: POST /api/draft_dishes/',
      'Endpoints > Delivery zones: POST /api/delivery_zones',
      'Endpoints > Organizations: POST /api/organizations/:id/import/orders',
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['mutations'],
    operations: [
      'updateOrganization',
      'createDraftDish',
      'createDeliveryZone',
      'importOrders',
      'getOrganization',
      'listDraftDishes',
    ],
    async run(t) {
      const staff = await t.as('staffMember');
      const org = `/api/organizations/${t.fixtures.orgId}`;
      const before = t.dig<Rec>((await staff.get(org)).body, ['organization'], 'the organization');
      const category = await t.fixtures.category();
      const [restaurantId] = await t.fixtures.restaurantIds();
      const draft = await t.fixtures.orderDraft();
      const dishName = `Untyped ${t.unique()}`;
      for (const contentType of ['text/plain', null] as const) {
        const label = contentType ?? 'no Content-Type';
        t.refused(
          await staff.request({
            method: 'PUT',
            path: org,
            json: { organization: { about: `changed without JSON type ${t.unique()}` } },
            contentType,
          }),
          415,
          `PUT organization with ${label}`,
        );
        t.refused(
          await staff.request({
            method: 'POST',
            path: '/api/draft_dishes/',
            json: {
              draft_dish: {
                name: dishName,
                price: '3.00',
                draft_category_id: category.id,
                organization_id: t.fixtures.orgId,
              },
            },
            contentType,
          }),
          415,
          `POST draft dish with ${label}`,
        );
        t.refused(
          await staff.request({
            method: 'POST',
            path: '/api/delivery_zones',
            json: { organization_id: t.fixtures.orgId, restaurant_id: restaurantId, name: dishName },
            contentType,
          }),
          415,
          `POST zone with ${label}`,
        );
        t.refused(
          await staff.request({ method: 'POST', path: `${org}/import/orders`, json: { orders: [draft] }, contentType }),
          415,
          `POST order import with ${label}`,
        );
      }
      t.equal((await staff.get(org)).body?.organization?.about, before.about, 'organization after refused updates');
      t.check(
        !(await t.fixtures.dishes()).some((d) => d.name === dishName),
        'a dish sent without the JSON Content-Type was created',
      );
      const zones = (await staff.get('/api/delivery_zones', { organization_id: t.fixtures.orgId })).body
        .delivery_zones as Rec[];
      t.check(!zones.some((z) => z.name === dishName), 'a zone sent without the JSON Content-Type was created');
      t.check(
        !(await t.fixtures.findOrderByContact(draft.contact_name, undefined, 1)),
        'an order import sent without the JSON Content-Type was imported',
      );
      t.status(
        await staff.request({
          method: 'PUT',
          path: org,
          json: { organization: { about: before.about } },
          contentType: 'application/json; charset=utf-8',
        }),
        '2xx',
        'the same update with application/json; charset=utf-8',
      );
    },
  }),
  defineTest({
    id: 'format.decided-headers',
    title: 'Headers (decided): every answer carries X-Request-Id; JSON answers are application/json',
    clauses: ['Data format rules 1'],
    profile: 'full',
    decisions: [component('headers', 'X-Request-Id'), component('schemas', 'ErrorBody'), JSON_MEDIA_TYPE],
    kind: 'decision',
    operations: ['listOrganizations', 'getOrganization', 'listOrders'],
    async run(t) {
      const staff = await t.as('staffMember');
      const answers = [
        await staff.get('/api/organizations'),
        await staff.get('/api/organizations/987654321'),
        await t.anon().get('/api/orders'),
        await staff.get('/api/orders', { per_page: 'many' }),
      ];
      for (const answer of answers) {
        t.check(
          answer.headers.get('x-request-id'),
          `${answer.method} ${answer.url} → ${answer.status} has no X-Request-Id`,
        );
        t.decided(
          JSON_MEDIA_TYPE,
          answer.contentType?.startsWith('application/json'),
          `${answer.url} → ${answer.status} is ${answer.contentType}`,
          answer,
        );
        if (answer.status >= 400)
          t.check(
            Array.isArray(answer.body?.errors) && answer.body?.errors?.[0]?.status === String(answer.status),
            `error body of ${answer.status}: ${answer.text.slice(0, 200)}`,
          );
      }
    },
  }),
];
