import type { TestContext } from '../runner/context.js';
import type { Rec } from '../runner/fixtures.js';
import { CallbackReceiver } from '../runner/receiver.js';
import { PNG } from './menu.js';
import { component, defineTest, opPointer } from './define.js';
import { placedOrder, plainDish, storefrontOrder, zoneWith } from './stated-rules.js';

const MENU = 'Resources > Import payloads > Menu import body';
const CLIENT = 'Resources > Import payloads > Client import body';
const ORDER = 'Resources > Import payloads > Order import body';
/** The decision of the statuses an imported order may have (the spec shows only `pending`). */
const IMPORT_STATUS = component('schemas', 'OrderImportStatus');

function menuDish(name: string, extra: Rec = {}): Rec {
  return { name, price: 7.5, category_name: 'Contract Mains', ...extra };
}

async function dishByExternal(t: TestContext): Promise<Map<string, Rec>> {
  return new Map((await t.fixtures.dishes()).filter((d) => d.external_id).map((d) => [d.external_id as string, d]));
}

async function importedOrder(
  t: TestContext,
  draft: Rec,
  existing?: 'update' | 'ignore',
): Promise<{ item: Rec; order: Rec | undefined }> {
  const response = await t.fixtures.importOrders([draft], existing);
  t.status(response, '2xx', 'importing an order');
  const item = response.body?.organization_import?.[0] as Rec;
  t.check(item, 'the order import answered no item');
  return { item, order: await t.fixtures.findOrderByContact(draft.contact_name as string) };
}

export const importTests = [
  defineTest({
    id: 'imports.menu-one-at-a-time',
    title:
      'Limits 1: one menu import per organization at a time; concurrent imports give exactly one `queued` and the rest `busy` with the job data',
    clauses: [
      'Limits 1',
      'Menu import rules 2',
      'Errors 1',
      'States and transitions: row 5',
      'States and transitions: row 6',
      'Endpoints > Organizations: POST /api/organizations/:id/import/menu',
      'Endpoints > Organizations: GET /api/organizations/:id/import/menu',
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['menuImport', 'mutations'],
    operations: ['importMenu', 'getMenuImport'],
    async run(t) {
      const staff = await t.as('staffMember');
      await t.fixtures.waitForImport('menu');
      const path = `/api/organizations/${t.fixtures.orgId}/import/menu`;
      const bodies = [0, 1, 2, 3].map((n) => ({
        dishes: [menuDish(`Concurrent ${n}`, { external_id: `ct-concurrent-${n}` })],
      }));
      const answers = await Promise.all(bodies.map((body) => staff.post(path, body)));
      const queued = answers.filter((a) => a.body?.status === 'queued');
      const busy = answers.filter((a) => a.body?.status === 'busy');
      t.equal(
        [queued.length, busy.length],
        [1, 3],
        `queued and busy answers (statuses ${answers.map((a) => `${a.status} ${a.body?.status}`).join(', ')})`,
      );
      const jobId = queued[0]!.body?.job_id;
      t.check(typeof jobId === 'string' || typeof jobId === 'number', 'a queued import without job_id');
      for (const answer of busy) {
        // Busy is known by its body: the spec shows "busy with job data" but no status, and the document decided 409.
        t.decided(
          component('responses', 'ImportBusy'),
          answer.status === 409,
          `a busy menu import answered ${answer.status}, the document decided 409`,
          answer,
        );
        t.equal(answer.body?.job_id, jobId, 'job_id in a busy answer (the running job)');
        t.check(
          'job_status' in answer.body && 'job_message' in answer.body,
          `a busy answer without job_status/job_message: ${JSON.stringify(answer.body)}`,
        );
        t.check(
          typeof answer.body?.job_percent === 'number' &&
            answer.body?.job_percent >= 0 &&
            answer.body?.job_percent <= 100,
          `job_percent of a busy answer: ${answer.body?.job_percent}`,
        );
      }
      const state = await staff.get(path);
      t.status(state, 200, 'reading the import state');
      t.equal(state.body?.job_id, jobId, 'job_id of the import state while it runs');
      const done = await t.fixtures.waitForImport('menu');
      t.equal(done.job_id, jobId, 'job_id of the finished import');
      const next = await staff.post(path, bodies[0]);
      t.equal(next.body?.status, 'queued', 'a new import once the first has finished');
      await t.fixtures.waitForImport('menu');
    },
  }),
  defineTest({
    id: 'imports.menu-replaces-and-keeps-ids',
    title:
      'Menu import rules 1 and 3: an import replaces the whole menu; a dish re-imported by external_id keeps its id',
    clauses: [
      'Menu import rules 1',
      'Menu import rules 3',
      `${MENU}: dishes`,
      `${MENU}: dishes[].external_id`,
      `${MENU}: dishes[].name`,
      'Endpoints > Organizations: POST /api/organizations/:id/import/menu',
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['menuImport', 'mutations'],
    operations: ['importMenu', 'getMenuImport', 'listDraftDishes'],
    async run(t) {
      await t.fixtures.importMenu({
        dishes: [menuDish('Kept', { external_id: 'ct-kept' }), menuDish('Dropped', { external_id: 'ct-dropped' })],
      });
      const first = await dishByExternal(t);
      const kept = t.present(
        first.get('ct-kept'),
        `the imported dish ct-kept is missing: ${JSON.stringify([...first.keys()])}`,
      );
      t.check(first.get('ct-dropped'), `the imported dish ct-dropped is missing: ${JSON.stringify([...first.keys()])}`);
      await t.fixtures.importMenu({
        dishes: [
          menuDish('Kept, new price', { external_id: 'ct-kept', price: 8.2 }),
          menuDish('Added', { external_id: 'ct-added' }),
        ],
      });
      const dishes = await t.fixtures.dishes();
      t.equal(
        dishes.map((d) => d.external_id).sort(),
        ['ct-added', 'ct-kept'],
        'external ids of the dishes after the second import (the whole menu is replaced)',
      );
      const again = dishes.find((d) => d.external_id === 'ct-kept')!;
      t.equal(again.id, kept.id, 'id of the dish re-imported with the same external_id');
      t.equal([again.name, Number(again.price)], ['Kept, new price', 8.2], 'name and price of the re-imported dish');
    },
  }),
  defineTest({
    id: 'imports.menu-categories-from-dishes',
    title: "Menu import body: without `categories`, categories are created from the dishes' category_name",
    clauses: [`${MENU}: categories`, `${MENU}: dishes[].category_name`],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['menuImport', 'mutations'],
    operations: ['importMenu', 'listDraftCategories', 'listDraftDishes'],
    async run(t) {
      await t.fixtures.importMenu({
        dishes: [
          menuDish('Tomato soup', { category_name: 'Contract Soups' }),
          menuDish('Onion soup', { category_name: 'Contract Soups' }),
          menuDish('Green salad', { category_name: 'Contract Salads' }),
        ],
      });
      const categories = await t.fixtures.categories();
      const byName = new Map(categories.map((c) => [c.name as string, c]));
      t.check(
        byName.has('Contract Soups') && byName.has('Contract Salads'),
        `categories after the import: ${JSON.stringify([...byName.keys()])}`,
      );
      const dishes = await t.fixtures.dishes();
      const soups = dishes
        .filter((d) => d.draft_category_id === byName.get('Contract Soups')!.id)
        .map((d) => d.name)
        .sort();
      t.equal(soups, ['Onion soup', 'Tomato soup'], 'dishes of the created category');
    },
  }),
  defineTest({
    id: 'imports.menu-categories-and-dish-fields',
    title:
      'Menu import body: categories linked by external_id, their menu_order, and the dish fields become draft fields',
    clauses: [
      `${MENU}: categories[].name`,
      `${MENU}: categories[].menu_order`,
      `${MENU}: categories[].external_id`,
      `${MENU}: dishes[].category_external_id`,
      `${MENU}: dishes[].price`,
      `${MENU}: dishes[].weight`,
      `${MENU}: dishes[].menu_order`,
      `${MENU}: dishes[].description`,
      `${MENU}: dishes[].modifiers`,
      'Resources > DraftDish: price',
      'Resources > DraftDish: weight',
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['menuImport', 'mutations'],
    operations: ['importMenu', 'listDraftCategories', 'listDraftDishes'],
    async run(t) {
      const modifiers = [
        {
          name: 'Size',
          multiple: false,
          items: [
            { name: 'Regular', price: 0 },
            { name: 'Large', price: '2.00' },
          ],
        },
      ];
      await t.fixtures.importMenu({
        categories: [
          { name: 'Contract Starters', external_id: 'cat-starters', menu_order: 5 },
          { name: 'Contract Desserts', external_id: 'cat-desserts', menu_order: 7 },
        ],
        dishes: [
          {
            name: 'Bruschetta',
            price: 6.5,
            weight: 250,
            menu_order: 2,
            description: 'Toasted bread',
            category_external_id: 'cat-starters',
            modifiers,
            external_id: 'ct-bruschetta',
          },
          { name: 'Tiramisu', price: 5, category_external_id: 'cat-desserts', external_id: 'ct-tiramisu' },
        ],
      });
      const categories = new Map((await t.fixtures.categories()).map((c) => [c.name as string, c]));
      const starters = t.present(categories.get('Contract Starters'), 'the category Contract Starters was not created');
      t.equal(
        [starters.menu_order, categories.get('Contract Desserts')?.menu_order],
        [5, 7],
        'menu_order of the categories',
      );
      const dishes = await dishByExternal(t);
      const bruschetta = t.present(dishes.get('ct-bruschetta'), 'the dish Bruschetta was not created');
      t.equal(bruschetta.draft_category_id, starters.id, 'category of a dish linked by category_external_id');
      t.equal(
        dishes.get('ct-tiramisu')?.draft_category_id,
        categories.get('Contract Desserts')?.id,
        'category of the second dish',
      );
      t.check(
        typeof bruschetta.price === 'string' && Number(bruschetta.price) === 6.5,
        `price as a string: ${JSON.stringify(bruschetta.price)}`,
      );
      t.check(
        typeof bruschetta.weight === 'string' && Number(bruschetta.weight) === 250,
        `weight as a string: ${JSON.stringify(bruschetta.weight)}`,
      );
      t.equal([bruschetta.menu_order, bruschetta.description], [2, 'Toasted bread'], 'menu_order and description');
      t.equal(
        (bruschetta.options as Rec[] | null)?.map((g) => g.name),
        ['Size'],
        'modifiers become the dish options',
      );
    },
  }),
  defineTest({
    id: 'imports.menu-remote-photos',
    title:
      'Menu import body: remote_photo_url of categories and dishes gives them their photo when the URL can be fetched',
    clauses: [
      `${MENU}: categories[].remote_photo_url`,
      `${MENU}: dishes[].remote_photo_url`,
      'Resources > DraftDish: photo',
      'Resources > DraftCategory: photo',
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['menuImport', 'mutations'],
    operations: ['importMenu', 'listDraftDishes', 'listDraftCategories'],
    async run(t) {
      const server = await CallbackReceiver.start(t.config.carrier?.callbackHost, () => ({
        status: 200,
        type: 'image/png',
        body: PNG,
      }));
      t.cleanup(() => server.close());
      const base = server.url.replace(/\/callbacks$/, '');
      await t.fixtures.importMenu({
        categories: [{ name: 'Contract Photos', external_id: 'cat-photos', remote_photo_url: `${base}/category.png` }],
        dishes: [
          {
            name: 'Photogenic',
            price: 9,
            category_external_id: 'cat-photos',
            external_id: 'ct-photo',
            remote_photo_url: `${base}/dish.png`,
          },
        ],
      });
      const dish = t.present(
        (await dishByExternal(t)).get('ct-photo'),
        'the dish with a remote photo was not imported',
      );
      const category = t.present(
        (await t.fixtures.categories()).find((c) => c.name === 'Contract Photos'),
        'the category with a remote photo was not imported',
      );
      const fetched = new Set(server.received.map((r) => r.path));
      if (fetched.size === 0)
        return t.warn(
          `the photo server at ${base} was never contacted (not reachable from the service?); photos not checked`,
        );
      // The service reaches the photo server (it fetched one photo): then both URLs were given to it to fetch.
      for (const [file, clause] of [
        ['/dish.png', `${MENU}: dishes[].remote_photo_url`],
        ['/category.png', `${MENU}: categories[].remote_photo_url`],
      ] as const)
        t.check(fetched.has(file), `${clause}: the service fetched ${[...fetched].join(', ')} but never ${file}`);
      if (fetched.has('/dish.png'))
        t.check(
          dish.photo && typeof dish.photo.original === 'string',
          `the dish photo was fetched but the dish has none: ${JSON.stringify(dish.photo)}`,
        );
      if (fetched.has('/category.png'))
        t.check(
          category.photo && typeof category.photo.original === 'string',
          `the category photo was fetched but the category has none: ${JSON.stringify(category.photo)}`,
        );
    },
  }),
  defineTest({
    id: 'imports.menu-availability-defaults',
    title: 'Menu import body: availability per restaurant; a dish is `available` in every restaurant not listed',
    clauses: [`${MENU}: dishes[].availability`, `${MENU}: config.publish_menu`],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['menuImport', 'mutations', 'controlApi'],
    operations: ['importMenu'],
    async run(t) {
      const zones = (await t.fixtures.zones()).filter((z) => typeof z.area === 'string');
      const restaurants = [...new Set(zones.map((z) => z.restaurant_id as number))];
      if (restaurants.length < 2) t.skip('needs two restaurants with delivery zones');
      const [blocked, open] = restaurants as [number, number];
      await t.fixtures.importMenu({
        dishes: [
          menuDish('Limited pasta', {
            price: 20,
            external_id: 'ct-limited',
            availability: [{ restaurant_id: blocked, status: 'not_available' }],
          }),
          menuDish('Everywhere pasta', { price: 20, external_id: 'ct-everywhere' }),
        ],
        config: { publish_menu: true },
      });
      const menu = await t.setup('the published menu', () => t.control.publishedMenu(t.fixtures.orgId));
      const ids = new Map(((menu?.dishes ?? []) as Rec[]).map((d) => [d.external_id as string, d.id as number]));
      t.check(
        ids.has('ct-limited') && ids.has('ct-everywhere'),
        'publish_menu: the imported dishes are not on the storefront',
      );
      await t.fixtures.openingHours();
      const order = async (restaurantId: number, externalId: string): Promise<number> => {
        const { lat, lon } = await t.fixtures.zonePoint(restaurantId);
        const answer = await t.setup('a storefront order', () =>
          t.control.placeOrder({
            organization_id: t.fixtures.orgId,
            restaurant_id: restaurantId,
            latitude: lat,
            longitude: lon,
            address: 'Availability Street 1',
            contact_name: 'Availability',
            contact_phone: '+49 30 5550002',
            payment_source: 'cash',
            items: [{ dish_id: ids.get(externalId), amount: 1 }],
          }),
        );
        return answer.status;
      };
      t.check(
        (await order(blocked, 'ct-limited')) >= 400,
        'a dish marked not_available was ordered in that restaurant',
      );
      t.check((await order(open, 'ct-limited')) < 300, 'a dish not listed for a restaurant is not available there');
      t.check((await order(blocked, 'ct-everywhere')) < 300, 'a dish without availability is not available everywhere');
    },
  }),
  defineTest({
    id: 'imports.menu-destroy-and-publish-flags',
    title:
      'Menu import body: config.destroy_menu fully replaces the menu; config.publish_menu publishes right after the import',
    clauses: [`${MENU}: config.destroy_menu`, `${MENU}: config.publish_menu`, 'Menu import rules 1'],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['menuImport', 'mutations'],
    operations: ['importMenu', 'listDraftDishes', 'publishMenu'],
    async run(t) {
      const versionOf = async (): Promise<number | undefined> =>
        t.hasControl
          ? (await t.setup('the published menu', () => t.control.publishedMenu(t.fixtures.orgId)))?.version
          : undefined;
      const before = await versionOf();
      await t.fixtures.importMenu({
        dishes: [menuDish('Unpublished', { external_id: 'ct-unpublished' })],
        config: { publish_menu: false },
      });
      if (t.hasControl) {
        t.equal(await versionOf(), before, 'published menu version after an import without publish_menu');
        const live = await t.setup('the published menu', () => t.control.publishedMenu(t.fixtures.orgId));
        t.check(
          !live?.dishes.some((d: Rec) => d.external_id === 'ct-unpublished'),
          'an import without publish_menu reached the storefront',
        );
      }
      await t.fixtures.importMenu({
        dishes: [menuDish('Fresh start', { external_id: 'ct-fresh' })],
        config: { destroy_menu: true, publish_menu: true },
      });
      t.equal(
        (await t.fixtures.dishes()).map((d) => d.external_id),
        ['ct-fresh'],
        'dishes after an import with destroy_menu',
      );
      if (t.hasControl) {
        const live = await t.setup('the published menu', () => t.control.publishedMenu(t.fixtures.orgId));
        t.equal(
          ((live?.dishes ?? []) as Rec[]).map((d) => d.external_id),
          ['ct-fresh'],
          'storefront after an import with publish_menu',
        );
      } else t.warn('publish_menu is not observable without the control API (the storefront is not part of the API)');
    },
  }),
  defineTest({
    id: 'imports.menu-decided-answers',
    title:
      'Menu import (decided): 202 queued, 409 busy with import_busy, idle/done state, synchronous validation, destroy_menu assigns new ids',
    clauses: [
      'Endpoints > Organizations: POST /api/organizations/:id/import/menu',
      'Endpoints > Organizations: GET /api/organizations/:id/import/menu',
      `${MENU}: config.destroy_menu`,
    ],
    profile: 'full',
    decisions: [
      opPointer('/api/organizations/{id}/import/menu', 'post'),
      opPointer('/api/organizations/{id}/import/menu', 'post', '/responses/202'),
      component('responses', 'ImportBusy'),
      component('schemas', 'ImportJobState'),
      component('schemas', 'ImportJobStatus'),
      component('schemas', 'MenuImportConfig'),
      component('schemas', 'MenuImportDish'),
      component('schemas', 'MenuImport/properties/dishes'),
      opPointer('/api/organizations/{id}/import/menu', 'get'),
    ],
    kind: 'decision',
    needs: ['menuImport', 'mutations'],
    operations: ['importMenu', 'getMenuImport'],
    async run(t) {
      const staff = await t.as('staffMember');
      const path = `/api/organizations/${t.fixtures.orgId}/import/menu`;
      await t.fixtures.waitForImport('menu');
      const empty = await staff.post(path, { dishes: [] });
      t.decided(
        component('schemas', 'MenuImport/properties/dishes'),
        empty.status === 422,
        `an empty dishes list answered ${empty.status}, the document decided 422 (an import never wipes the menu)`,
        empty,
      );
      t.status(
        await staff.post(path, {
          categories: [{ name: 'A', external_id: 'a' }],
          dishes: [{ name: 'X', price: 1, category_external_id: 'b' }],
        }),
        422,
        'a category_external_id not in categories',
      );
      const started = await staff.post(path, { dishes: [menuDish('Decided', { external_id: 'ct-decided' })] });
      t.status(started, 202, 'starting an import');
      const busy = await staff.post(path, { dishes: [menuDish('Second')] });
      t.status(busy, 409, 'a second import');
      t.equal(busy.body?.errors?.[0]?.code, 'import_busy', 'error code of the busy answer');
      const running = await staff.get(path);
      t.equal(running.body?.status, 'busy', 'state while the job runs');
      const done = await t.fixtures.waitForImport('menu');
      t.equal([done.status, done.job_status], ['idle', 'done'], 'state after the job');
      const keptId = (await dishByExternal(t)).get('ct-decided')?.id;
      await t.fixtures.importMenu({
        dishes: [menuDish('Decided', { external_id: 'ct-decided' })],
        config: { destroy_menu: true },
      });
      t.notEqual((await dishByExternal(t)).get('ct-decided')?.id, keptId, 'destroy_menu keeps a dish id');
      for (const role of ['dispatcher', 'courier'] as const)
        t.status(await (await t.as(role)).get(path), 403, `${role} reads the import state`);
      t.status(
        await (await t.as('dispatcher')).post(path, { dishes: [menuDish('Refused')] }),
        403,
        'a dispatcher imports a menu',
      );
    },
  }),
  defineTest({
    id: 'imports.clients-and-client-external-id',
    title:
      'Order import rules 3: clients imported by external_id are assigned to orders; an unknown client_external_id creates a client',
    clauses: [
      'Order import rules 3',
      'Endpoints > Organizations: POST /api/organizations/:id/import/clients',
      'Endpoints > Organizations: GET /api/organizations/:id/import/clients',
      `${ORDER}: client_external_id`,
      ...[
        'external_id',
        'email',
        'gender',
        'birthdate',
        'registered_at',
        'name',
        'comment',
        'addresses',
        'phone_numbers',
        'tags',
        'is_blacklisted',
      ].map((f) => `${CLIENT}: ${f}`),
      'Resources > Order: client_id',
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['mutations'],
    operations: ['importClients', 'getClientImport', 'importOrders', 'listOrders'],
    async run(t) {
      const known = `client-${t.unique()}`;
      await t.fixtures.importClients([
        {
          external_id: known,
          email: 'anna.contract@example.com',
          gender: 'female',
          birthdate: '24/12/1990',
          registered_at: '2024-03-01T10:00:00Z',
          name: 'Anna Contract',
          comment: 'Imported by the contract tests',
          addresses: ['Contract Street 1, Berlin'],
          phone_numbers: ['+49 30 5550003'],
          tags: ['vip'],
          is_blacklisted: false,
        },
      ]);
      const one = t.present(
        (await importedOrder(t, await t.fixtures.orderDraft({ client_external_id: known }))).order,
        'the first imported order is not listed',
      );
      const two = t.present(
        (await importedOrder(t, await t.fixtures.orderDraft({ client_external_id: known }))).order,
        'the second imported order is not listed',
      );
      t.check(Number.isInteger(one.client_id), 'an order with a known client_external_id has no client_id');
      t.equal(two.client_id, one.client_id, 'client of two orders of the same imported client');
      const unknown = `client-${t.unique()}`;
      const three = await importedOrder(t, await t.fixtures.orderDraft({ client_external_id: unknown }));
      const four = await importedOrder(t, await t.fixtures.orderDraft({ client_external_id: unknown }));
      t.equal(
        [three.item.status, four.item.status],
        ['imported', 'imported'],
        'orders with an unknown client_external_id',
      );
      t.check(
        Number.isInteger(three.order?.client_id) && three.order?.client_id !== one.client_id,
        'an unknown client_external_id did not create a new client',
      );
      t.equal(
        four.order?.client_id,
        three.order?.client_id,
        'the client created for an unknown client_external_id is found again',
      );
    },
  }),
  defineTest({
    id: 'imports.clients-from-scratch',
    title:
      'Endpoints > Organizations: client import with from_scratch=true deletes the previously created clients first',
    clauses: ['Endpoints > Organizations: POST /api/organizations/:id/import/clients', `${CLIENT}: external_id`],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['mutations'],
    operations: ['importClients', 'getClientImport', 'importOrders'],
    async run(t) {
      const old = `client-${t.unique()}`;
      const kept = `client-${t.unique()}`;
      await t.fixtures.importClients([{ external_id: old, name: 'Old client' }]);
      const before = await importedOrder(t, await t.fixtures.orderDraft({ client_external_id: old }));
      await t.fixtures.importClients([{ external_id: kept, name: 'New client' }], true);
      const after = await importedOrder(t, await t.fixtures.orderDraft({ client_external_id: old }));
      t.notEqual(
        after.order?.client_id,
        before.order?.client_id,
        'a client deleted by from_scratch is still assigned by its external_id',
      );
      const fresh = await importedOrder(t, await t.fixtures.orderDraft({ client_external_id: kept }));
      const again = await importedOrder(t, await t.fixtures.orderDraft({ client_external_id: kept }));
      t.equal(again.order?.client_id, fresh.order?.client_id, 'the client imported with from_scratch');
    },
  }),
  defineTest({
    id: 'imports.clients-from-scratch-decided',
    title:
      'Client import (decided): from_scratch deletes the clients imports created and keeps those the storefront registered',
    clauses: ['Endpoints > Organizations: POST /api/organizations/:id/import/clients'],
    profile: 'full',
    decisions: [opPointer('/api/organizations/{id}/import/clients', 'post', '/parameters/0')],
    kind: 'decision',
    needs: ['controlApi', 'mutations'],
    operations: ['importClients', 'importOrders'],
    async run(t) {
      const place = await zoneWith(t, () => true, 'an area');
      const dish = await plainDish(t);
      const amount = Math.max(1, Math.ceil(Number(place.zone.minimal_order_price ?? 0) / Number(dish.price)));
      const placed = await placedOrder(t, await storefrontOrder(t, place, dish, amount), 'a storefront order');
      await t.fixtures.importClients([{ external_id: `client-${t.unique()}`, name: 'After the storefront' }], true);
      const answer = await t.fixtures.importOrders([await t.fixtures.orderDraft({ client_id: placed.client_id })]);
      t.status(answer, 200, 'importing an order of the client the storefront registered');
      t.equal(
        answer.body?.organization_import?.[0]?.status,
        'imported',
        `an order of client ${placed.client_id}, whom the storefront registered, after a from_scratch client import`,
      );
    },
  }),
  defineTest({
    id: 'imports.clients-decided',
    title:
      'Client import (decided): 202, one client import at a time (409 busy), duplicates and impossible dates are 422',
    clauses: ['Endpoints > Organizations: POST /api/organizations/:id/import/clients', `${CLIENT}: birthdate`],
    profile: 'full',
    decisions: [
      opPointer('/api/organizations/{id}/import/clients', 'post'),
      opPointer('/api/organizations/{id}/import/clients', 'post', '/responses/202'),
      opPointer('/api/organizations/{id}/import/clients', 'get'),
      component('schemas', 'ClientImportClient'),
      component('schemas', 'ClientImport/properties/clients'),
    ],
    kind: 'decision',
    needs: ['mutations'],
    operations: ['importClients', 'getClientImport'],
    async run(t) {
      const staff = await t.as('staffMember');
      const path = `/api/organizations/${t.fixtures.orgId}/import/clients`;
      await t.fixtures.waitForImport('clients');
      t.status(
        await staff.post(path, { clients: [{ external_id: 'x', birthdate: '31/02/1990' }] }),
        422,
        'an impossible birthdate',
      );
      t.status(
        await staff.post(path, { clients: [{ external_id: 'dup' }, { external_id: 'dup' }] }),
        422,
        'a duplicate external_id',
      );
      t.status(
        await staff.post(path, { clients: [{ external_id: `c-${t.unique()}` }] }),
        202,
        'starting a client import',
      );
      const busy = await staff.post(path, { clients: [] });
      t.decided(
        component('schemas', 'ClientImport/properties/clients'),
        busy.status !== 422,
        'an empty clients list was refused with 422 (decided: it may be empty)',
        busy,
      );
      t.status(busy, 409, 'a second client import');
      t.equal(busy.body?.status, 'busy', 'status of the busy answer');
      await t.fixtures.waitForImport('clients');
      t.status(await (await t.as('dispatcher')).post(path, { clients: [] }), 403, 'a dispatcher imports clients');
      t.status(await (await t.as('dispatcher')).get(path), 403, 'a dispatcher reads the client import state');
    },
  }),
  defineTest({
    id: 'imports.orders-existing-update-or-ignore',
    title:
      'States and transitions rows 7 and 8: a re-imported external_id is `ignored` by default and with existing=ignore, and updated with existing=update',
    clauses: [
      'States and transitions: row 7',
      'States and transitions: row 8',
      'Endpoints > Organizations: POST /api/organizations/:id/import/orders',
      `${ORDER}: external_id`,
      `${ORDER}: status`,
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['mutations'],
    operations: ['importOrders', 'listOrders', 'getOrder'],
    async run(t) {
      const draft = await t.fixtures.orderDraft();
      const first = await importedOrder(t, draft);
      t.equal(first.item.status, 'imported', 'status of a new order');
      t.equal(first.item.external_id, draft.external_id, 'external_id of the result item');
      t.check(typeof first.item.imported_at === 'string', 'an imported item without imported_at');
      const original = t.present(first.order, 'the imported order is not listed');
      const changed = {
        ...draft,
        description: undefined,
        comment: 'changed by a re-import',
        contact_phone: '+49 30 5559999',
      };
      for (const existing of [undefined, 'ignore'] as const) {
        const again = await t.fixtures.importOrders([changed], existing);
        t.status(again, '2xx');
        t.equal(
          again.body?.organization_import?.[0]?.status,
          'ignored',
          `status of a re-import with existing=${existing ?? '(omitted)'}`,
        );
        const now = await t.fixtures.order(original.id as number);
        t.equal(
          [now.contact_phone, now.description],
          [original.contact_phone, original.description],
          `order after a re-import with existing=${existing ?? '(omitted)'}`,
        );
      }
      const updated = await t.fixtures.importOrders([changed], 'update');
      t.equal(updated.body?.organization_import?.[0]?.status, 'imported', 'status of a re-import with existing=update');
      const now = await t.fixtures.order(original.id as number);
      t.equal(now.contact_phone, '+49 30 5559999', 'contact_phone after a re-import with existing=update');
      // Where the import's comment shows is decided: the description is only checked against it as decided.
      t.decided(
        '/components/schemas/OrderImportOrder/allOf/0/properties/comment',
        now.description === 'changed by a re-import',
        `description after a re-import with existing=update: ${JSON.stringify(now.description)}`,
      );
      t.equal(now.id, original.id, 'id of an updated order');
    },
  }),
  defineTest({
    id: 'imports.orders-unknown-client-id',
    title:
      'Order import rules 4 / Errors 2: an unknown client_id ends that order with `error` and an errors array; the others are still imported',
    clauses: [
      'Order import rules 4',
      'Errors 2',
      'States and transitions: row 9',
      `${ORDER}: client_id`,
      'Endpoints > Organizations: POST /api/organizations/:id/import/orders',
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['mutations'],
    operations: ['importOrders', 'listOrders'],
    async run(t) {
      const drafts = [
        await t.fixtures.orderDraft(),
        await t.fixtures.orderDraft({ client_id: 987654321 }),
        await t.fixtures.orderDraft(),
      ];
      const response = await t.fixtures.importOrders(drafts);
      t.status(response, '2xx', 'an import with one failing order');
      const items = t.list<Rec>(response.body, ['organization_import'], 'the organization import');
      t.equal(items.length, 3, 'one result item per submitted order');
      t.equal(
        items.map((i) => [i.external_id, i.status]),
        drafts.map((d, n) => [d.external_id, n === 1 ? 'error' : 'imported']),
        'results per order',
      );
      t.check(Array.isArray(items[1]!.errors) && items[1]!.errors.length > 0, 'the failed order has no errors array');
      t.check(await t.fixtures.findOrderByContact(drafts[0]!.contact_name), 'the first order was not imported');
      t.check(await t.fixtures.findOrderByContact(drafts[2]!.contact_name), 'the third order was not imported');
      t.check(
        !(await t.fixtures.findOrderByContact(drafts[1]!.contact_name, undefined, 1)),
        'the failed order was created',
      );
    },
  }),
  defineTest({
    id: 'imports.orders-address-and-zone',
    title:
      'Order import rules 1 and 2: only address and zone are validated; coordinates find the zone and its restaurant, or restaurant_id and delivery_zone_id are given',
    clauses: [
      'Order import rules 1',
      'Order import rules 2',
      `${ORDER}: latitude, longitude`,
      `${ORDER}: restaurant_id, delivery_zone_id`,
      'Resources > DeliveryZone: restaurant_id',
      `${ORDER}: buddies[].items[]`,
      `${ORDER}: delivery_at`,
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['mutations'],
    operations: ['importOrders', 'listOrders'],
    async run(t) {
      const zones = (await t.fixtures.zones()).filter((z) => typeof z.area === 'string');
      const target = t.present(zones[zones.length - 1], 'the organization has no zone with an area');
      const inZone = await t.fixtures.orderDraft();
      const { lat, lon } = await t.fixtures.zonePoint(target.restaurant_id);
      Object.assign(inZone, {
        latitude: lat,
        longitude: lon,
        delivery_at: '2001-01-01T12:00:00Z',
        buddies: [
          {
            items: [
              { name: 'Unknown dish', dish_id: 987654321, dish_external_id: 'no-such-dish', amount: 2, price: 3 },
            ],
          },
        ],
      });
      const outside = await t.fixtures.orderDraft();
      Object.assign(outside, { latitude: t.config.outsideZones.lat, longitude: t.config.outsideZones.lon });
      const manual = await t.fixtures.orderDraft();
      delete manual.latitude;
      delete manual.longitude;
      Object.assign(manual, { restaurant_id: target.restaurant_id, delivery_zone_id: target.id });
      const response = await t.fixtures.importOrders([inZone, outside, manual]);
      t.status(response, '2xx');
      const items = t.list<Rec>(response.body, ['organization_import'], 'the organization import');
      t.equal(
        items.map((i) => i.status),
        ['imported', 'error', 'imported'],
        'results: inside a zone (past delivery time, unknown dish), outside every zone, manual assignment',
      );
      const placed = await t.fixtures.findOrderByContact(inZone.contact_name);
      t.equal(
        placed?.restaurant_id,
        target.restaurant_id,
        "restaurant of an order placed by its coordinates (the zone's restaurant)",
      );
      const assigned = await t.fixtures.findOrderByContact(manual.contact_name);
      t.equal(assigned?.restaurant_id, target.restaurant_id, 'restaurant of an order assigned manually');
    },
  }),
  defineTest({
    id: 'imports.orders-fields',
    title: 'Order import body: the imported fields appear on the order',
    clauses: [
      `${ORDER}: city, address, comment`,
      `${ORDER}: change`,
      `${ORDER}: contact_phone, contact_name`,
      `${ORDER}: payment_source`,
      `${ORDER}: delivery_asap`,
      `${ORDER}: buddies`,
      `${ORDER}: source`,
      `${ORDER}: used_bonuses`,
      `${ORDER}: total`,
      `${ORDER}: published_at`,
      `${ORDER}: takeaway`,
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['mutations'],
    operations: ['importOrders', 'getOrder'],
    async run(t) {
      const draft = await t.fixtures.orderDraft({
        city: 'Berlin',
        comment: 'Please ring twice',
        change: 50,
        payment_source: 'card',
        // true beside a delivery_at (it "may be delivered earlier"): a service that ignored the field would say false.
        delivery_asap: true,
        delivery_at: '2030-06-01T18:00:00Z',
        published_at: '2030-06-01T17:00:00Z',
        total: 20,
        used_bonuses: 2,
        source: 'phone',
        takeaway: false,
        buddies: [
          { id: 'b1', name: 'Guest', items: [{ name: 'Contract dish', amount: 2, price: 20, item_price: 10 }] },
        ],
      });
      const { item, order } = await importedOrder(t, draft);
      t.equal(item.status, 'imported', 'status of the import');
      const full = await t.fixtures.order(t.present(order, 'the imported order is not listed').id as number);
      t.equal(
        [
          full.city,
          full.address,
          full.change,
          full.contact_name,
          full.contact_phone,
          full.payment_source,
          full.delivery_asap,
        ],
        [draft.city, draft.address, 50, draft.contact_name, draft.contact_phone, 'card', true],
        'city, address, change, contacts, payment_source, delivery_asap',
      );
      // Where the import's comment shows is not stated: the order's description (the client comment) is decided.
      t.decided(
        '/components/schemas/OrderImportOrder/allOf/0/properties/comment',
        full.description === draft.comment,
        `the imported comment ${JSON.stringify(draft.comment)} as the order's description: ${JSON.stringify(full.description)}`,
      );
      t.equal(Date.parse(full.delivery_at), Date.parse(draft.delivery_at), 'delivery_at of the imported order');
    },
  }),
  defineTest({
    id: 'imports.orders-pending-notifications',
    title: 'Order import rules 5: importing an order in status `pending` sends SMS and e-mail notifications',
    clauses: ['Order import rules 5', `${ORDER}: status`],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['mutations', 'controlApi'],
    operations: ['importOrders', 'importClients'],
    async run(t) {
      const client = `client-${t.unique()}`;
      await t.fixtures.importClients([
        {
          external_id: client,
          name: 'Notified client',
          email: 'notified@example.com',
          phone_numbers: ['+49 30 5550004'],
        },
      ]);
      const pending = await importedOrder(
        t,
        await t.fixtures.orderDraft({ status: 'pending', client_external_id: client }),
      );
      // Only `pending` is shown: another status is decided (OrderImportStatus), and a service may refuse it.
      const acceptedDraft = await t.fixtures.orderDraft({ status: 'accepted', client_external_id: client });
      const acceptedAnswer = await t.fixtures.importOrders([acceptedDraft]);
      const acceptedItem = acceptedAnswer.body?.organization_import?.[0] as Rec | undefined;
      const refused =
        t.declined(acceptedAnswer, IMPORT_STATUS, 'importing an order as `accepted` (the spec shows only `pending`)') ||
        (acceptedAnswer.status < 300 && acceptedItem?.status === 'error');
      if (refused && acceptedAnswer.status < 300)
        t.decided(
          IMPORT_STATUS,
          false,
          `importing an order as \`accepted\` ended with error: ${JSON.stringify(acceptedItem?.errors)}`,
          acceptedAnswer,
        );
      if (!refused) t.status(acceptedAnswer, '2xx', 'importing an order as `accepted`');
      const accepted = refused
        ? undefined
        : { order: await t.fixtures.findOrderByContact(acceptedDraft.contact_name as string) };
      const notes = await t.setup('the notification outbox', () => t.control.notifications());
      const about = (order: Rec | undefined): string[] =>
        notes
          .filter((n) => n.order_id === order?.id)
          .map((n) => n.channel)
          .sort();
      t.equal(about(pending.order), ['email', 'sms'], 'notifications about an order imported as pending');
      if (accepted) t.equal(about(accepted.order), [], 'notifications about an order imported as accepted');
    },
  }),
  defineTest({
    id: 'imports.orders-decided',
    title:
      'Order import (decided): 200 even with failed orders, errors are Error objects pointing at the field, client_id with client_external_id is 422',
    clauses: ['Errors 2', 'Order import rules 4'],
    profile: 'full',
    decisions: [
      opPointer('/api/organizations/{id}/import/orders', 'post'),
      opPointer('/api/organizations/{id}/import/orders', 'post', '/responses/200'),
      component('schemas', 'OrderImportResult/properties/errors'),
      component('schemas', 'OrderImportOrder'),
      component('schemas', 'OrderImport'),
      component('schemas', 'OrderImport/properties/orders'),
    ],
    kind: 'decision',
    needs: ['mutations'],
    operations: ['importOrders'],
    async run(t) {
      const failing = await t.fixtures.importOrders([await t.fixtures.orderDraft({ client_id: 987654321 })]);
      t.status(failing, 200, 'an import whose only order fails');
      const error = t.dig(failing.body, ['organization_import', 0, 'errors', 0], "the failed order's error");
      // Both are decided (the elements of `errors` are not shown): a failure names the decision.
      t.decided(
        component('schemas', 'Error/properties/status'),
        error.status === '422',
        `status of the order error: expected "422", got ${JSON.stringify(error.status)}`,
      );
      t.decided(
        component('schemas', 'OrderImportResult/properties/errors'),
        error.source?.pointer === '/client_id',
        `pointer of the order error, relative to the order: expected "/client_id", got ${JSON.stringify(error.source?.pointer)}`,
      );
      t.status(
        await t.fixtures.importOrders([await t.fixtures.orderDraft({ client_id: 1, client_external_id: 'x' })]),
        422,
        'client_id together with client_external_id',
      );
      t.status(
        await t.fixtures.importOrders([await t.fixtures.orderDraft({ flavour: 'unknown field' })]),
        422,
        'an unknown field',
      );
      t.status(
        await (
          await t.as('courier')
        ).post(`/api/organizations/${t.fixtures.orgId}/import/orders`, { orders: [await t.fixtures.orderDraft()] }),
        403,
        'a courier imports orders',
      );
      const staff = await t.as('staffMember');
      const path = `/api/organizations/${t.fixtures.orgId}/import/orders`;
      t.status(await staff.post(path, { orders: [] }), 422, 'an empty orders list');
      t.status(
        await (await t.as('dispatcher')).post(path, { orders: [await t.fixtures.orderDraft()] }),
        403,
        'a dispatcher imports orders',
      );
    },
  }),
];
