import type { Rec } from '../runner/fixtures.js';
import { component, defineTest, opPointer, resourceRows } from './define.js';

export const resourceTests = [
  defineTest({
    id: 'organization.read',
    title: 'Data format rules 2, 3: an organization is read under the singular root, the list under the plural root',
    clauses: [
      'Data format rules 2',
      'Data format rules 3',
      'Endpoints > Organizations: GET /api/organizations/:id',
      'Endpoints > Organizations: GET /api/organizations',
      ...resourceRows('Organization', ['id', 'name', 'host', 'social_network', 'about', 'phone', 'accept_cashless']),
    ],
    profile: 'spec',
    kind: 'behaviour',
    operations: ['getOrganization', 'listOrganizations'],
    async run(t) {
      const staff = await t.as('staffMember');
      const one = await staff.get(`/api/organizations/${t.fixtures.orgId}`);
      t.status(one, 200);
      t.equal(one.body?.organization?.id, t.fixtures.orgId, 'organization.id of GET /api/organizations/:id');
      const list = await staff.get('/api/organizations');
      t.status(list, 200);
      t.check(Array.isArray(list.body?.organizations), 'the list has no `organizations` array at its root');
      t.equal(list.body?.organizations?.[0], one.body?.organization, 'the organization in the list and read by id');
    },
  }),
  defineTest({
    id: 'organization.update-editable-fields',
    title: 'Endpoints > Organizations: PUT updates name, social_network, about and phone with the singular-root body',
    clauses: [
      'Endpoints > Organizations: PUT /api/organizations/:id',
      'Data format rules 3',
      ...resourceRows('Organization', ['name', 'social_network', 'about', 'phone', 'id', 'host', 'accept_cashless']),
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['mutations'],
    operations: ['updateOrganization', 'getOrganization'],
    async run(t) {
      const staff = await t.as('staffMember');
      const path = `/api/organizations/${t.fixtures.orgId}`;
      const before = t.dig<Rec>((await staff.get(path)).body, ['organization'], 'the organization');
      t.cleanup(async () => {
        await staff.put(path, {
          organization: {
            name: before.name,
            about: before.about,
            phone: before.phone,
            social_network: before.social_network,
          },
        });
      });
      const marker = t.unique();
      const changes = {
        name: `Contract ${marker}`,
        about: `About ${marker}`,
        phone: '+49 30 9999999',
        social_network: { vk: 'https://vk.com/contract-tests' },
      };
      t.status(await staff.put(path, { organization: changes }), '2xx', 'updating the organization');
      const after = t.dig<Rec>((await staff.get(path)).body, ['organization'], 'the organization');
      t.equal(after.name, changes.name, 'name after the update');
      t.equal(after.about, changes.about, 'about after the update');
      t.equal(after.phone, changes.phone, 'phone after the update');
      t.equal(after.social_network?.vk, changes.social_network.vk, 'social_network.vk after the update');
      for (const fixed of ['id', 'host', 'accept_cashless'])
        t.equal(after[fixed], before[fixed], `non-editable ${fixed} after the update`);
    },
  }),
  defineTest({
    id: 'organization.decided-update-rules',
    title:
      'Organization update (decided): a GET body can be sent back, non-editable changes are 422 not_editable, social_network is replaced as a whole',
    clauses: [
      'Endpoints > Organizations: PUT /api/organizations/:id',
      'Resources > Organization: host',
      'Resources > Organization: social_network',
    ],
    profile: 'full',
    decisions: [
      component('schemas', 'OrganizationUpdate/properties/organization'),
      component('schemas', 'OrganizationUpdate/properties/organization/properties/social_network'),
      opPointer('/api/organizations/{id}', 'put', '/responses/200'),
    ],
    kind: 'decision',
    needs: ['mutations'],
    operations: ['updateOrganization', 'getOrganization'],
    async run(t) {
      const staff = await t.as('staffMember');
      const path = `/api/organizations/${t.fixtures.orgId}`;
      const before = t.dig<Rec>((await staff.get(path)).body, ['organization'], 'the organization');
      t.cleanup(async () => {
        await staff.put(path, { organization: { name: before.name, social_network: before.social_network } });
      });
      const echoed = await staff.put(path, { organization: before });
      t.status(echoed, 200, 'sending the GET body back');
      t.equal(echoed.body?.organization, before, 'answer to an unchanged update');
      const hostChange = await staff.put(path, { organization: { host: `changed-${before.host}` } });
      t.status(hostChange, 422, 'changing host');
      t.equal(hostChange.body?.errors?.[0]?.code, 'not_editable', 'error code of a non-editable change');
      t.equal(hostChange.body?.errors?.[0]?.source?.pointer, '/organization/host', 'pointer of a non-editable change');
      t.status(await staff.put(path, { organization: { nickname: 'x' } }), 422, 'an unknown field');
      const replaced = await staff.put(path, {
        organization: { social_network: { twitter: 'https://twitter.com/contract' } },
      });
      t.status(replaced, 200);
      t.equal(
        t.dig(replaced.body, ['organization', 'social_network'], 'the social links of the answer'),
        { twitter: 'https://twitter.com/contract' },
        'social_network after a replacement',
      );
    },
  }),
  defineTest({
    id: 'restaurant.read-and-filter',
    title:
      'Endpoints > Restaurants: GET by id answers a `restaurants` array; the list honours the organization_id filter',
    clauses: [
      'Endpoints > Restaurants: GET /api/restaurants/:id',
      'Endpoints > Restaurants: GET /api/restaurants',
      'Data format rules 4',
      ...resourceRows('Restaurant', ['id', 'name', 'phone', 'address', 'organization_id', 'is_running', 'is_delivery']),
    ],
    profile: 'spec',
    kind: 'behaviour',
    operations: ['getRestaurant', 'listRestaurants'],
    async run(t) {
      const dispatcher = await t.as('dispatcher');
      const filtered = await dispatcher.get('/api/restaurants', { organization_id: t.fixtures.orgId });
      t.status(filtered, 200);
      const list = t.list<Rec>(filtered.body, ['restaurants'], 'the list of restaurants');
      t.check(list.length > 0, 'no restaurant listed for the organization');
      for (const r of list)
        t.equal(r.organization_id, t.fixtures.orgId, `organization of restaurant ${r.id} filtered by organization_id`);
      const staff = await t.as('staffMember');
      const one = await staff.get(`/api/restaurants/${list[0]!.id}`);
      t.status(one, 200);
      t.check(Array.isArray(one.body?.restaurants), 'GET /api/restaurants/:id has no `restaurants` array at its root');
      t.equal(one.body?.restaurants?.length, 1, 'restaurants in the answer to GET /api/restaurants/:id');
      t.equal(one.body?.restaurants?.[0]?.id, list[0]!.id, 'id of the restaurant read by id');
    },
  }),
  defineTest({
    id: 'restaurant.update-editable-fields',
    title: 'Endpoints > Restaurants: PUT updates name, phone and address',
    clauses: [
      'Endpoints > Restaurants: PUT /api/restaurants/:id',
      ...resourceRows('Restaurant', ['name', 'phone', 'address', 'id', 'organization_id']),
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['mutations'],
    operations: ['updateRestaurant', 'getRestaurant'],
    async run(t) {
      const [id] = await t.fixtures.restaurantIds();
      const staff = await t.as('staffMember');
      const path = `/api/restaurants/${id}`;
      const before = t.dig<Rec>((await staff.get(path)).body, ['restaurants', 0], `restaurant ${id}`);
      t.cleanup(async () => {
        await staff.put(path, { restaurant: { name: before.name, phone: before.phone, address: before.address } });
      });
      const changes = {
        name: `Contract ${t.unique()}`,
        phone: '+49 30 1110000',
        address: 'Contractstraße 1, 10115 Berlin',
      };
      t.status(await staff.put(path, { restaurant: changes }), '2xx', 'updating the restaurant');
      const after = t.dig<Rec>((await staff.get(path)).body, ['restaurants', 0], 'the restaurant read back');
      t.equal(
        { name: after.name, phone: after.phone, address: after.address },
        changes,
        'editable fields after the update',
      );
      t.equal(after.organization_id, before.organization_id, 'organization_id after the update');
    },
  }),
  defineTest({
    id: 'restaurant.decided-update-rules',
    title: 'Restaurant update (decided): answer as GET, organization_id, is_running and is_delivery are not editable',
    clauses: [
      'Endpoints > Restaurants: PUT /api/restaurants/:id',
      'Resources > Restaurant: is_running',
      'Resources > Restaurant: is_delivery',
      'Resources > Restaurant: organization_id',
    ],
    profile: 'full',
    decisions: [
      component('schemas', 'RestaurantUpdate/properties/restaurant'),
      component('schemas', 'Restaurant/properties/is_running'),
      component('schemas', 'Restaurant/properties/is_delivery'),
      opPointer('/api/restaurants/{id}', 'put', '/responses/200'),
    ],
    kind: 'decision',
    needs: ['mutations'],
    operations: ['updateRestaurant'],
    async run(t) {
      const [id] = await t.fixtures.restaurantIds();
      const staff = await t.as('staffMember');
      const path = `/api/restaurants/${id}`;
      const before = t.dig<Rec>((await staff.get(path)).body, ['restaurants', 0], `restaurant ${id}`);
      const same = await staff.put(path, { restaurant: before });
      t.status(same, 200, 'sending the GET body back');
      t.equal(same.body?.restaurants, [before], 'answer to an unchanged update');
      const move = await staff.put(path, { restaurant: { organization_id: before.organization_id + 1000 } });
      t.status(move, 422, 'moving the restaurant to another organization');
      t.equal(move.body?.errors?.[0]?.code, 'not_editable', 'error code');
      for (const field of ['is_running', 'is_delivery'] as const) {
        if (typeof before[field] !== 'boolean') continue;
        const changed = await staff.put(path, { restaurant: { [field]: !before[field] } });
        t.status(changed, 422, `changing ${field}`);
        t.equal(changed.body?.errors?.[0]?.code, 'not_editable', `error code of changing ${field}`);
      }
    },
  }),
  defineTest({
    id: 'couriers.decided-read-only',
    title: 'Couriers (decided): read-only list with the organization_id filter and read by id',
    clauses: [
      'Resources > Courier: id',
      'Resources > Courier: organization_id',
      'Resources > Courier: last_known_position',
    ],
    profile: 'full',
    decisions: [
      opPointer('/api/couriers', 'get'),
      opPointer('/api/couriers/{id}', 'get'),
      component('schemas', 'Courier/properties/last_known_position'),
    ],
    kind: 'decision',
    operations: ['listCouriers', 'getCourier'],
    async run(t) {
      const staff = await t.as('staffMember');
      const list = await staff.get('/api/couriers', { organization_id: t.fixtures.orgId });
      t.status(list, 200);
      const couriers = t.list<Rec>(list.body, ['couriers'], 'the list of couriers');
      const courierId = await t.fixtures.accountId('courier');
      t.check(
        couriers.some((c) => c.id === courierId),
        `courier ${courierId} is not listed for its organization`,
      );
      for (const c of couriers) t.equal(c.organization_id, t.fixtures.orgId, `organization of courier ${c.id}`);
      const one = await staff.get(`/api/couriers/${courierId}`);
      t.status(one, 200);
      t.equal(one.body?.courier?.id, courierId, 'courier.id read by id');
      t.status(
        await staff.request({ method: 'POST', path: '/api/couriers', json: { courier: { name: 'x' } } }),
        405,
        'creating a courier',
      );
    },
  }),
  defineTest({
    id: 'collections.decided-meta',
    title:
      "Data format rules 2 (decided): a collection's meta.count is the records in the answer, meta.total those the caller can see in all",
    clauses: ['Data format rules 2'],
    profile: 'full',
    decisions: [component('schemas', 'CollectionMeta')],
    kind: 'decision',
    operations: ['listRestaurants', 'listDeliveryZones', 'listDraftCategories', 'listDraftDishes'],
    async run(t) {
      const staff = await t.as('staffMember');
      // A staff member sees one organization (Limits 2): its own records are all it can see, on one page.
      for (const key of ['restaurants', 'delivery_zones', 'draft_categories', 'draft_dishes']) {
        const answer = await staff.get(`/api/${key}`, { organization_id: t.fixtures.orgId });
        t.status(answer, 200, `listing ${key}`);
        const records = t.list<Rec>(answer.body, [key], `the list of ${key}`);
        const meta = (answer.body?.meta ?? {}) as Rec;
        for (const name of ['count', 'total'] as const)
          if (meta[name] !== undefined)
            t.equal(meta[name], records.length, `meta.${name} of ${key} beside its ${records.length} records`);
      }
    },
  }),
];
