import type { TestContext } from '../runner/context.js';
import type { Rec } from '../runner/fixtures.js';
import { component, defineTest, opPointer, resourceRows } from './define.js';

/** A 1×1 PNG. */
export const PNG = Uint8Array.from(
  Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
    'base64',
  ),
);

export function photoForm(): FormData {
  const form = new FormData();
  form.set('file', new Blob([PNG], { type: 'image/png' }), 'dish.png');
  return form;
}

export const DISH_FIELDS = [
  'id',
  'is_hidden',
  'name',
  'description',
  'menu_order',
  'price',
  'photo',
  'weight',
  'ingredients',
  'can_zoom',
  'is_next_day',
  'external_id',
  'options',
  'draft_category_id',
  'organization_id',
];

const CONFIGURATOR = [
  {
    name: 'Size',
    multiple: false,
    items: [
      { name: 'Small', price: 0 },
      { name: 'Large', price: '3.50' },
    ],
  },
  {
    name: 'Extras',
    multiple: true,
    min: 0,
    max: 2,
    items: [
      { name: 'Cheese', price: 1.5 },
      { name: 'Olives', price: '0.80' },
    ],
  },
];

async function published(t: TestContext): Promise<Rec | undefined> {
  return t.setup('the published menu', () => t.control.publishedMenu(t.fixtures.orgId));
}

async function publish(t: TestContext): Promise<void> {
  const staff = await t.as('staffMember');
  t.status(await staff.post(`/api/organizations/${t.fixtures.orgId}/publish`), '2xx', 'publishing the menu');
}

export const menuTests = [
  defineTest({
    id: 'menu.draft-dish-lifecycle',
    title: 'Endpoints > Draft dishes: a dish is created, read, listed by filter, updated and deleted',
    clauses: [
      'Endpoints > Draft dishes: POST /api/draft_dishes/',
      'Endpoints > Draft dishes: GET /api/draft_dishes/:id',
      'Endpoints > Draft dishes: GET /api/draft_dishes',
      'Endpoints > Draft dishes: PUT /api/draft_dishes/:id',
      'Endpoints > Draft dishes: DELETE /api/draft_dishes/:id',
      'Data format rules 3',
      'Data format rules 4',
      ...resourceRows('DraftDish', DISH_FIELDS),
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['mutations'],
    operations: ['createDraftDish', 'getDraftDish', 'listDraftDishes', 'updateDraftDish', 'deleteDraftDish'],
    async run(t) {
      const category = await t.fixtures.category();
      const staff = await t.as('staffMember');
      const name = `Contract dish ${t.unique()}`;
      const created = await staff.post('/api/draft_dishes/', {
        draft_dish: {
          name,
          price: '12.50',
          draft_category_id: category.id,
          organization_id: t.fixtures.orgId,
          description: 'Made by the contract tests',
          weight: '300',
        },
      });
      t.status(created, '2xx', 'creating a dish with the required fields');
      const dish = created.body?.draft_dish as Rec;
      t.check(dish && Number.isInteger(dish.id), 'the created dish has no id under the `draft_dish` root');
      t.equal(dish.name, name, 'name of the created dish');
      t.check(
        typeof dish.price === 'string' && Number(dish.price) === 12.5,
        `price is returned as a decimal string: ${JSON.stringify(dish.price)}`,
      );
      t.check(
        typeof dish.weight === 'string' && Number(dish.weight) === 300,
        `weight is returned as a string: ${JSON.stringify(dish.weight)}`,
      );
      const read = await staff.get(`/api/draft_dishes/${dish.id}`);
      t.status(read, 200);
      t.equal(t.dig(read.body, ['draft_dish', 'id'], 'the dish read by id'), dish.id, 'draft_dish.id read by id');
      const byCategory = await staff.get('/api/draft_dishes', { draft_category_id: category.id });
      t.status(byCategory, 200);
      t.check(
        t.list<Rec>(byCategory.body, ['draft_dishes'], 'the draft dishes').some((d) => d.id === dish.id),
        'the new dish is missing from the list filtered by its category',
      );
      for (const d of t.list<Rec>(byCategory.body, ['draft_dishes'], 'the draft dishes'))
        t.equal(d.draft_category_id, category.id, `category of dish ${d.id} filtered by draft_category_id`);
      // The order of the list is not shown: under spec a different one is a warning naming the decision.
      const listed = t.list<Rec>(byCategory.body, ['draft_dishes'], 'the draft dishes');
      const storefront = [...listed].sort(
        (a, b) => Number(a.menu_order) - Number(b.menu_order) || Number(a.id) - Number(b.id),
      );
      t.decided(
        '/paths/~1api~1draft_dishes/get',
        listed.every((d, i) => d.id === storefront[i]!.id),
        `dishes of one category in storefront order (menu_order, then id): got ids ${listed.map((d) => d.id).join(', ')}`,
        byCategory,
      );
      const byOrg = await staff.get('/api/draft_dishes', { organization_id: t.fixtures.orgId });
      t.check(
        t.list<Rec>(byOrg.body, ['draft_dishes'], 'the list of draft dishes').some((d) => d.id === dish.id),
        'the new dish is missing from the list filtered by its organization',
      );
      t.status(
        await staff.put(`/api/draft_dishes/${dish.id}`, { draft_dish: { name: `${name} (renamed)`, price: '13.00' } }),
        '2xx',
        'updating the dish',
      );
      const updated = t.dig<Rec>(
        (await staff.get(`/api/draft_dishes/${dish.id}`)).body,
        ['draft_dish'],
        'the draft dish',
      );
      t.equal(updated.name, `${name} (renamed)`, 'name after the update');
      t.equal(Number(updated.price), 13, 'price after the update');
      t.status(await staff.delete(`/api/draft_dishes/${dish.id}`), '2xx', 'deleting the dish');
      t.status(await staff.get(`/api/draft_dishes/${dish.id}`), '4xx', 'reading a deleted dish');
      const afterDelete = await staff.get('/api/draft_dishes', { draft_category_id: category.id });
      t.check(
        !t.list<Rec>(afterDelete.body, ['draft_dishes'], 'the draft dishes').some((d) => d.id === dish.id),
        'a deleted dish is still listed',
      );
    },
  }),
  defineTest({
    id: 'menu.draft-dish-required-fields',
    title:
      'Errors 3: a draft dish without draft_category_id, organization_id, price or name is refused and not created',
    clauses: [
      'Errors 3',
      'Endpoints > Draft dishes: POST /api/draft_dishes/',
      ...resourceRows('DraftDish', ['name', 'price', 'draft_category_id', 'organization_id']),
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['mutations'],
    operations: ['createDraftDish', 'listDraftDishes'],
    async run(t) {
      const category = await t.fixtures.category();
      const staff = await t.as('staffMember');
      const before = (await t.fixtures.dishes()).length;
      const complete = {
        name: `Incomplete ${t.unique()}`,
        price: '5.00',
        draft_category_id: category.id,
        organization_id: t.fixtures.orgId,
      };
      for (const field of Object.keys(complete)) {
        const body = { ...complete } as Record<string, unknown>;
        delete body[field];
        const response = await staff.post('/api/draft_dishes/', { draft_dish: body });
        t.refused(response, 422, `creating a dish without ${field}`);
        if (t.full)
          t.check(
            t
              .list<Rec>(response.body, ['errors'], 'the errors of the refusal')
              .some((e) => e.source?.pointer === `/draft_dish/${field}`),
            `no error points at /draft_dish/${field}`,
          );
      }
      t.equal((await t.fixtures.dishes()).length, before, 'number of dishes after refused creations');
    },
  }),
  defineTest({
    id: 'menu.configurator-round-trip',
    title: 'Dish configurator: option groups (name, items, multiple, min, max) are stored and returned',
    clauses: [
      ...resourceRows('Dish configurator', ['name', 'items', 'multiple', 'min', 'max']),
      'Resources > DraftDish: options',
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['mutations'],
    operations: ['createDraftDish', 'getDraftDish'],
    async run(t) {
      const dish = await t.fixtures.createDish({ options: CONFIGURATOR });
      const read = t.dig<Rec>(
        (await (await t.as('staffMember')).get(`/api/draft_dishes/${dish.id}`)).body,
        ['draft_dish'],
        'the dish',
      );
      const groups = read.options as Rec[];
      t.check(Array.isArray(groups) && groups.length === 2, `options of the dish: ${JSON.stringify(read.options)}`);
      t.equal(
        groups.map((g) => [g.name, g.multiple, g.items.map((i: Rec) => i.name)]),
        CONFIGURATOR.map((g) => [g.name, g.multiple, g.items.map((i) => i.name)]),
        'groups, multiple and item names',
      );
      t.equal(Number(groups[1]!.min), 0, 'min of the multiple group');
      t.equal(Number(groups[1]!.max), 2, 'max of the multiple group');
      t.equal(
        groups[0]!.items.map((i: Rec) => Number(i.price)),
        [0, 3.5],
        'item prices',
      );
    },
  }),
  defineTest({
    id: 'menu.draft-category-lifecycle',
    title: 'Endpoints > Draft categories: read, list by organization, update, and delete with all its dishes',
    clauses: [
      'Endpoints > Draft categories: GET /api/draft_categories/:id',
      'Endpoints > Draft categories: GET /api/draft_categories',
      'Endpoints > Draft categories: PUT /api/draft_categories/:id',
      'Endpoints > Draft categories: DELETE /api/draft_categories/:id',
      ...resourceRows('DraftCategory', ['id', 'name', 'menu_order', 'photo', 'draft_dish_ids', 'organization_id']),
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['mutations'],
    operations: [
      'createDraftCategory',
      'getDraftCategory',
      'listDraftCategories',
      'updateDraftCategory',
      'deleteDraftCategory',
      'createDraftDish',
      'getDraftDish',
    ],
    async run(t) {
      const category = await t.fixtures.createCategory();
      const staff = await t.as('staffMember');
      const dishes = [
        await t.fixtures.createDish({ draft_category_id: category.id }),
        await t.fixtures.createDish({ draft_category_id: category.id }),
      ];
      const read = await staff.get(`/api/draft_categories/${category.id}`);
      t.status(read, 200);
      t.equal(
        [...t.list<number>(read.body, ['draft_category', 'draft_dish_ids'], 'the dishes of the category')].sort(),
        dishes.map((d) => d.id as number).sort(),
        'draft_dish_ids of the category',
      );
      const list = await staff.get('/api/draft_categories', { organization_id: t.fixtures.orgId });
      t.status(list, 200);
      t.check(
        t.list<Rec>(list.body, ['draft_categories'], 'the list of draft categories').some((c) => c.id === category.id),
        "the category is missing from its organization's list",
      );
      const listed = t.list<Rec>(list.body, ['draft_categories'], 'the draft categories');
      for (const c of listed) t.equal(c.organization_id, t.fixtures.orgId, `organization of category ${c.id}`);
      // The order of the list is decided: the storefront's (menu_order, then id).
      const storefront = [...listed].sort(
        (a, b) => Number(a.menu_order) - Number(b.menu_order) || Number(a.id) - Number(b.id),
      );
      t.decided(
        opPointer('/api/draft_categories', 'get'),
        listed.every((c, i) => c.id === storefront[i]!.id),
        `categories in storefront order (menu_order, then id): got ids ${listed.map((c) => c.id).join(', ')}`,
        list,
      );
      t.status(
        await staff.put(`/api/draft_categories/${category.id}`, {
          draft_category: { name: 'Renamed by the contract tests', menu_order: 42 },
        }),
        '2xx',
        'updating the category',
      );
      const updated = t.dig<Rec>(
        (await staff.get(`/api/draft_categories/${category.id}`)).body,
        ['draft_category'],
        'the draft category',
      );
      t.equal(updated.name, 'Renamed by the contract tests', 'name after the update');
      // Which fields of a category are editable is not shown: menu_order being one is decided.
      t.decided(
        component('schemas', 'DraftCategoryUpdate'),
        updated.menu_order === 42,
        `menu_order after an update to 42: ${JSON.stringify(updated.menu_order)}`,
      );
      t.status(await staff.delete(`/api/draft_categories/${category.id}`), '2xx', 'deleting the category');
      t.status(await staff.get(`/api/draft_categories/${category.id}`), '4xx', 'reading a deleted category');
      for (const dish of dishes)
        t.status(
          await staff.get(`/api/draft_dishes/${dish.id}`),
          '4xx',
          `reading dish ${dish.id} of a deleted category`,
        );
    },
  }),
  defineTest({
    id: 'menu.photo-uploads',
    title:
      'Data format rules 9: photos of dishes and categories are uploaded as multipart/form-data with the attribute `file`',
    clauses: [
      'Data format rules 9',
      'Data format rules 7',
      'Endpoints > Draft dishes: PUT /api/draft_dishes/:id/photo',
      'Endpoints > Draft categories: PUT /api/draft_categories/:id/photo',
      'Resources > DraftDish: photo',
      'Resources > DraftCategory: photo',
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['mutations'],
    operations: ['uploadDraftDishPhoto', 'uploadDraftCategoryPhoto', 'getDraftDish', 'getDraftCategory'],
    async run(t) {
      const staff = await t.as('staffMember');
      const dish = await t.fixtures.createDish();
      t.status(
        await staff.request({ method: 'PUT', path: `/api/draft_dishes/${dish.id}/photo`, body: photoForm() }),
        '2xx',
        'uploading a dish photo',
      );
      const photo = (await staff.get(`/api/draft_dishes/${dish.id}`)).body?.draft_dish?.photo as Rec | null;
      // That the photo is readable at once (not processed later) is decided, not stated.
      t.decided(
        component('schemas', 'DraftDish/properties/photo'),
        photo && typeof photo.original === 'string' && typeof photo.medium === 'string',
        `dish photo right after the upload: ${JSON.stringify(photo)}`,
      );
      const category = await t.fixtures.category();
      t.status(
        await staff.request({ method: 'PUT', path: `/api/draft_categories/${category.id}/photo`, body: photoForm() }),
        '2xx',
        'uploading a category photo',
      );
      const categoryPhoto = (await staff.get(`/api/draft_categories/${category.id}`)).body?.draft_category
        ?.photo as Rec | null;
      t.decided(
        component('schemas', 'DraftCategory/properties/photo'),
        categoryPhoto && typeof categoryPhoto.large === 'string',
        `category photo right after the upload: ${JSON.stringify(categoryPhoto)}`,
      );
    },
  }),
  defineTest({
    id: 'menu.drafts-reach-storefront-only-on-publish',
    title:
      'States and transitions row 4: draft changes, new dishes and deletions reach the storefront only when the menu is published',
    clauses: [
      'States and transitions: row 4',
      'Endpoints > Organizations: POST /api/organizations/:id/publish',
      'Endpoints > Draft dishes: DELETE /api/draft_dishes/:id',
      'Endpoints > Draft dishes: PUT /api/draft_dishes/:id',
      'Endpoints > Draft categories: DELETE /api/draft_categories/:id',
    ],
    profile: 'spec',
    kind: 'behaviour',
    needs: ['controlApi', 'mutations'],
    operations: ['publishMenu', 'createDraftDish', 'updateDraftDish', 'deleteDraftDish'],
    async run(t) {
      const staff = await t.as('staffMember');
      await publish(t);
      const dish = await t.fixtures.createDish({ price: '10.00' });
      t.check(
        !(await published(t))?.dishes.some((d: Rec) => d.id === dish.id),
        'a new draft dish is on the storefront before publication',
      );
      await publish(t);
      const live = (await published(t))?.dishes.find((d: Rec) => d.id === dish.id);
      t.check(live, 'a new draft dish is not on the storefront after publication');
      t.status(
        await staff.put(`/api/draft_dishes/${dish.id}`, { draft_dish: { price: '11.00' } }),
        '2xx',
        'changing the draft price',
      );
      t.equal(
        Number((await published(t))?.dishes.find((d: Rec) => d.id === dish.id)?.price),
        10,
        'storefront price before publication',
      );
      await publish(t);
      t.equal(
        Number((await published(t))?.dishes.find((d: Rec) => d.id === dish.id)?.price),
        11,
        'storefront price after publication',
      );
      t.status(await staff.delete(`/api/draft_dishes/${dish.id}`), '2xx', 'deleting the draft');
      t.check(
        (await published(t))?.dishes.some((d: Rec) => d.id === dish.id),
        'a deleted draft left the storefront before publication',
      );
      await publish(t);
      t.check(
        !(await published(t))?.dishes.some((d: Rec) => d.id === dish.id),
        'a deleted draft is still on the storefront after publication',
      );
    },
  }),
  defineTest({
    id: 'menu.decided-create-and-delete',
    title:
      'Menu drafts (decided): create defaults, 201 answers, DELETE 204 then 404, both forms of the dishes path, category create',
    clauses: [
      'Endpoints > Draft dishes: POST /api/draft_dishes/',
      'Endpoints > Draft dishes: DELETE /api/draft_dishes/:id',
      'Endpoints > Draft categories: DELETE /api/draft_categories/:id',
    ],
    profile: 'full',
    decisions: [
      component('schemas', 'DraftDishCreate'),
      opPointer('/api/draft_dishes', 'post', '/responses/201'),
      opPointer('/api/draft_dishes/{id}', 'delete', '/responses/204'),
      opPointer('/api/draft_categories/{id}', 'delete', '/responses/204'),
      opPointer('/api/draft_categories', 'post'),
      component('schemas', 'DraftCategoryCreate'),
      '/paths/~1api~1draft_dishes',
      component('schemas', 'DraftDish/properties/weight'),
      component('schemas', 'DraftDish/properties/external_id'),
      component('schemas', 'DraftDish/properties/photo'),
      component('schemas', 'DishPriceInput'),
      component('schemas', 'DishWeightInput'),
    ],
    kind: 'decision',
    needs: ['mutations'],
    operations: [
      'createDraftDish',
      'updateDraftDish',
      'deleteDraftDish',
      'createDraftCategory',
      'deleteDraftCategory',
      'listDraftDishes',
    ],
    async run(t) {
      const staff = await t.as('staffMember');
      const category = await staff.post('/api/draft_categories', {
        draft_category: { name: `Decided ${t.unique()}`, organization_id: t.fixtures.orgId },
      });
      t.status(category, 201, 'creating a category');
      t.check(category.headers.get('location'), 'a created category without a Location header');
      const categoryId = t.dig<number>(category.body, ['draft_category', 'id'], 'the id of the created category');
      const created = await staff.post('/api/draft_dishes', {
        draft_dish: { name: 'Defaults', price: 9.5, draft_category_id: categoryId, organization_id: t.fixtures.orgId },
      });
      t.status(created, 201, 'creating a dish without the trailing slash');
      const dish = t.dig<Rec>(created.body, ['draft_dish'], 'the created draft dish');
      t.equal(
        {
          is_hidden: dish.is_hidden,
          description: dish.description,
          ingredients: dish.ingredients,
          weight: dish.weight,
          can_zoom: dish.can_zoom,
          is_next_day: dish.is_next_day,
          external_id: dish.external_id,
          options: dish.options,
          photo: dish.photo,
          price: dish.price,
          menu_order: dish.menu_order,
        },
        {
          is_hidden: false,
          description: '',
          ingredients: '',
          weight: null,
          can_zoom: false,
          is_next_day: false,
          external_id: null,
          options: null,
          photo: null,
          price: '9.50',
          menu_order: 1,
        },
        'defaults of a created dish',
      );
      // A weight is taken as a number and as a decimal string, and returned without trailing zeros.
      for (const [sent, returned] of [
        [450, '450'],
        ['12.50', '12.5'],
      ] as const) {
        const updated = await staff.put(`/api/draft_dishes/${dish.id}`, { draft_dish: { weight: sent } });
        t.status(updated, 200, `setting the weight ${JSON.stringify(sent)}`);
        t.equal(updated.body?.draft_dish?.weight, returned, `the weight sent as ${JSON.stringify(sent)}`);
      }
      t.status(
        await staff.get('/api/draft_dishes/', { draft_category_id: categoryId }),
        200,
        'listing with the trailing slash',
      );
      const deleted = await staff.delete(`/api/draft_dishes/${dish.id}`);
      t.status(deleted, 204, 'deleting the dish');
      t.status(await staff.delete(`/api/draft_dishes/${dish.id}`), 404, 'deleting it again');
      t.status(await staff.delete(`/api/draft_categories/${categoryId}`), 204, 'deleting the category');
    },
  }),
  defineTest({
    id: 'menu.decided-publication-and-configurator',
    title:
      'Menu (decided): the publication answer counts what went live and increases its version; impossible configurators are 422',
    clauses: [
      'Endpoints > Organizations: POST /api/organizations/:id/publish',
      'Resources > Dish configurator: min',
      'Resources > Dish configurator: max',
    ],
    profile: 'full',
    decisions: [
      component('schemas', 'MenuPublication'),
      component('schemas', 'ConfiguratorGroup'),
      component('schemas', 'Configurator'),
      component('schemas', 'ConfiguratorCount'),
      component('schemas', 'ConfiguratorPrice'),
      component('schemas', 'DraftDish/properties/options'),
    ],
    kind: 'decision',
    needs: ['mutations'],
    operations: ['publishMenu', 'createDraftDish'],
    async run(t) {
      const staff = await t.as('staffMember');
      const first = await staff.post(`/api/organizations/${t.fixtures.orgId}/publish`);
      t.status(first, 200);
      const second = await staff.post(`/api/organizations/${t.fixtures.orgId}/publish`);
      const menu = t.dig<Rec>(second.body, ['menu'], 'the publication');
      t.equal(
        menu.version,
        t.dig(first.body, ['menu', 'version'], 'the version published') + 1,
        'version of the next publication',
      );
      t.equal(menu.organization_id, t.fixtures.orgId, 'organization of the publication');
      const all = await t.fixtures.dishes();
      const visible = all.filter((d) => !d.is_hidden).length;
      const count = Number(second.body?.menu?.dish_count);
      t.check(
        count >= visible && count <= all.length,
        `dish_count ${count} does not count the ${all.length} drafts (${visible} visible)`,
      );
      const category = await t.fixtures.category();
      const impossible = await staff.post('/api/draft_dishes/', {
        draft_dish: {
          name: 'Impossible',
          price: '1.00',
          draft_category_id: category.id,
          organization_id: t.fixtures.orgId,
          options: [
            {
              name: 'Pick',
              multiple: true,
              min: 3,
              max: 2,
              items: [
                { name: 'a', price: 0 },
                { name: 'b', price: 0 },
              ],
            },
          ],
        },
      });
      t.status(impossible, 422, 'a group whose min exceeds its items');
      t.equal(impossible.body?.errors?.[0]?.code, 'invalid_configuration', 'error code of an impossible group');
      const kept = await t.fixtures.createDish({
        options: [
          {
            name: 'Size',
            multiple: false,
            items: [
              { name: 'S', price: '0.50' },
              { name: 'L', price: 2 },
            ],
          },
        ],
      });
      t.equal(
        (kept.options as Rec[])[0]!.items.map((i: Rec) => i.price),
        ['0.50', 2],
        'prices are returned as sent',
      );
      // Counts are whole numbers, prices at most two decimals: neither is rounded to fit.
      for (const [what, group] of [
        ['a fractional max', { max: 1.5, items: [{ name: 'a', price: 0 }] }],
        ['a price with three decimals', { items: [{ name: 'a', price: '0.505' }] }],
        ['a numeric price with three decimals', { items: [{ name: 'a', price: 0.505 }] }],
      ] as const) {
        const refused = await staff.post('/api/draft_dishes/', {
          draft_dish: {
            name: 'Rounded',
            price: '1.00',
            draft_category_id: category.id,
            organization_id: t.fixtures.orgId,
            options: [{ name: 'Pick', multiple: true, ...group }],
          },
        });
        t.status(refused, 422, what);
      }
      // An empty configurator is accepted and kept as sent (it means no add-ons, like null).
      const empty = await t.fixtures.createDish({ options: [] });
      t.equal(empty.options, [], 'an empty configurator read back');
    },
  }),
];
