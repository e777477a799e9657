import fc from 'fast-check';
import type { TestContext } from '../../runner/context.js';
import type { Rec } from '../../runner/fixtures.js';
import { defineTest, opPointer } from '../define.js';
import { photoForm } from '../menu.js';
import {
  decided,
  deleteDishStep,
  editable,
  fresh,
  undo,
  pick,
  runMachine,
  sameIds,
  sameRecords,
  type Machine,
  type Step,
} from './machine.js';

interface DishModel {
  name: string;
  price: number;
  categoryId: number;
  hidden: boolean;
  /** undefined until a sequence sets it (the demo world's own descriptions are not the model's business). */
  description?: string;
  /** Whether a photo was uploaded (the URLs are the service's). */
  photo: boolean;
  /** Since the last upload: the views that have shown the photo (see {@link checkPhoto}); undefined before any. */
  photoShownIn?: Set<string>;
  /** The display fields, as the last write set them (or as first read, for what a sequence never wrote). */
  extras: DishExtras;
}

/** A dish's display fields and configurator, keyed as the API shows them. */
interface DishExtras {
  weight: string | null;
  ingredients: string;
  can_zoom: boolean;
  is_next_day: boolean;
  menu_order: number;
  options: unknown;
}

const EXTRA_KEYS = ['weight', 'ingredients', 'can_zoom', 'is_next_day', 'menu_order', 'options'] as const;

interface CategoryModel {
  name: string;
  photo: boolean;
  /** As {@link DishModel.photoShownIn}. */
  photoShownIn?: Set<string>;
  menuOrder: number;
}

interface MenuModel {
  categories: Map<number, CategoryModel>;
  dishes: Map<number, DishModel>;
  /** The storefront as the last publication left it; undefined before the first one or without a control API. */
  published: { categories: Map<number, CategoryModel>; dishes: Map<number, DishModel> } | undefined;
  /** Records a sequence may change: all with a reset between sequences, else only those it created. */
  ours: Set<number>;
  oursCategories: Set<number>;
}

const names = fc.constantFrom('Soup', 'Pasta', 'Salad', 'Pizza', 'Tart', 'Stew');
const prices = fc.integer({ min: 100, max: 4000 }).map((cents) => cents / 100);
const descriptions = fc.constantFrom('Spicy', 'With basil', 'Vegan', 'Large');
const menuOrders = fc.integer({ min: 1, max: 9 });
/** Weights as sent and as the document returns them (a decimal string without trailing zeros; `null` for none). */
const weights = fc.constantFrom<[string | number | null, string | null]>(
  ['450', '450'],
  [250, '250'],
  ['12.50', '12.5'],
  [0.25, '0.25'],
  [null, null],
);
/** Valid configurators (numbers stay numbers, numeric strings strings), and none. */
const configurators = fc.constantFrom<unknown>(
  null,
  [
    {
      name: 'Size',
      multiple: false,
      items: [
        { name: '30 cm', price: 0 },
        { name: '40 cm', price: 4 },
      ],
    },
  ],
  [
    {
      name: 'Extras',
      multiple: true,
      min: 0,
      max: 2,
      items: [
        { name: 'Basil', price: '0.50' },
        { name: 'Feta', price: 1.5 },
      ],
    },
  ],
);
/** Display fields a create sends under both profiles (fields of the spec's DraftDish; the weight as a string, as returned). */
const specExtras = fc.record(
  {
    weight: fc.constantFrom('450', '250'),
    ingredients: fc.constantFrom('Flour, water', 'Rice', ''),
    can_zoom: fc.boolean(),
    is_next_day: fc.boolean(),
    menu_order: menuOrders,
  },
  { requiredKeys: [] },
);
/** Display fields an update sends (full only: the editable fields of PUT are not shown), with the weight as expected back. */
const fullExtras = fc.record(
  {
    weight: weights,
    ingredients: fc.constantFrom('Flour, water', 'Rice', ''),
    can_zoom: fc.boolean(),
    is_next_day: fc.boolean(),
    menu_order: menuOrders,
    options: configurators,
  },
  { requiredKeys: [] },
);

type SentExtras = Partial<Omit<DishExtras, 'weight'>> & { weight?: [string | number | null, string | null] };

/** The body fields of some extras (the weight as sent). */
function extrasBody(extras: SentExtras): Record<string, unknown> {
  const { weight, ...rest } = extras;
  return { ...rest, ...(weight === undefined ? {} : { weight: weight[0] }) };
}

/** The model's extras after a write of `sent`. */
function applyExtras(model: DishExtras, sent: SentExtras): void {
  const { weight, ...rest } = sent;
  Object.assign(model, rest);
  if (weight !== undefined) model.weight = weight[1];
}

function extrasLabel(extras: SentExtras): string {
  const body = extrasBody(extras);
  return Object.keys(body).length === 0 ? '' : `, ${JSON.stringify(body)}`;
}

/** The display fields of a dish as shown. */
function extrasOf(record: Rec): DishExtras {
  return Object.fromEntries(EXTRA_KEYS.map((key) => [key, record[key]])) as unknown as DishExtras;
}

function hasPhoto(record: Rec): boolean {
  return record.photo != null && typeof record.photo.original === 'string';
}

/** The decisions that an uploaded photo shows at once (the spec does not say when it can be read). */
const PHOTO_AT_ONCE = {
  dish: opPointer('/api/draft_dishes/{id}/photo', 'put'),
  category: opPointer('/api/draft_categories/{id}/photo', 'put'),
};

/**
 * Whether a record shows its photo as the model expects. The spec does not say when an uploaded photo can be
 * read (the document decided: at once), so a view that has not yet shown the photo since its upload may lack it
 * (a decision warning under spec, a failure under full); once a view has shown it, it must go on showing it.
 */
function checkPhoto(
  t: TestContext,
  kind: 'dish' | 'category',
  actual: Rec,
  expected: { photo: boolean; photoShownIn?: Set<string> },
  what: string,
): void {
  const shown = hasPhoto(actual);
  const message = `${what}: ${kind} ${actual.id} has a photo`;
  if (expected.photo && expected.photoShownIn && !expected.photoShownIn.has(what)) {
    if (shown) expected.photoShownIn.add(what);
    else t.decided(PHOTO_AT_ONCE[kind], false, `${message}: expected true, got false`);
    return;
  }
  t.equal(shown, expected.photo, message);
}

function checkDish(t: TestContext, actual: Rec, expected: DishModel, what: string): void {
  t.equal(actual.name, expected.name, `${what}: name of dish ${actual.id}`);
  t.equal(Number(actual.price), expected.price, `${what}: price of dish ${actual.id}`);
  t.equal(actual.draft_category_id, expected.categoryId, `${what}: category of dish ${actual.id}`);
  t.equal(actual.is_hidden === true, expected.hidden, `${what}: is_hidden of dish ${actual.id}`);
  if (expected.description !== undefined)
    t.equal(actual.description, expected.description, `${what}: description of dish ${actual.id}`);
  checkPhoto(t, 'dish', actual, expected, what);
  for (const key of EXTRA_KEYS) {
    // Under spec the weight is a string in grams; its exact format (no trailing zeros) is the document's decision.
    const [got, want] =
      key === 'weight' && !t.full
        ? [numberOrNull(actual.weight), numberOrNull(expected.extras.weight)]
        : [actual[key], expected.extras[key]];
    t.equal(got, want, `${what}: ${key} of dish ${actual.id}`);
  }
}

function numberOrNull(value: unknown): number | null {
  return value == null ? null : Number(value);
}

/** A category as shown: its name, its photo and (where shown) the ids of the dishes in it. */
function checkCategory(
  t: TestContext,
  actual: Rec,
  expected: CategoryModel,
  dishIds: number[] | undefined,
  what: string,
): void {
  t.equal(actual.name, expected.name, `${what}: name of category ${actual.id}`);
  checkPhoto(t, 'category', actual, expected, what);
  t.equal(actual.menu_order, expected.menuOrder, `${what}: menu_order of category ${actual.id}`);
  if (dishIds && Array.isArray(actual.draft_dish_ids))
    t.equal(
      [...(actual.draft_dish_ids as number[])].sort((a, b) => a - b),
      [...dishIds].sort((a, b) => a - b),
      `${what}: draft_dish_ids of category ${actual.id}`,
    );
}

/** A category as first read. */
function categoryModel(c: Rec): CategoryModel {
  return { name: c.name as string, photo: hasPhoto(c), menuOrder: c.menu_order as number };
}

/** Extras generated for a create: under spec a weight string that is also what comes back. */
function sentExtras(sent: SentExtras | Partial<Omit<DishExtras, 'options'>>): SentExtras {
  const { weight, ...rest } = sent as Record<string, unknown>;
  if (weight === undefined || Array.isArray(weight)) return sent as SentExtras;
  return { ...(rest as SentExtras), weight: [weight as string, weight as string] };
}

function dishesIn(dishes: Map<number, DishModel>, categoryId: number): number[] {
  return [...dishes].filter(([, d]) => d.categoryId === categoryId).map(([id]) => id);
}

async function checkDishList(m: MenuModel, tc: TestContext): Promise<void> {
  sameRecords(tc, await tc.fixtures.dishes(), m.dishes, 'the draft dishes listed', (dish, expected) =>
    checkDish(tc, dish, expected, 'the list'),
  );
}

async function checkCategoryList(m: MenuModel, tc: TestContext): Promise<void> {
  sameRecords(tc, await tc.fixtures.categories(), m.categories, 'the draft categories listed', (c, expected) =>
    checkCategory(tc, c, expected, dishesIn(m.dishes, c.id as number), 'the list'),
  );
}

/** The list filtered by draft_category_id: exactly the dishes the model has in that category. */
async function checkCategoryFilter(m: MenuModel, tc: TestContext, categoryId: number): Promise<void> {
  const response = await (
    await tc.as('staffMember')
  ).get('/api/draft_dishes', { organization_id: tc.fixtures.orgId, draft_category_id: categoryId });
  tc.status(response, 200, `listing the dishes of category ${categoryId}`);
  const listed = tc.list<Rec>(response.body, ['draft_dishes'], `the dishes of category ${categoryId}`);
  sameIds(
    tc,
    listed.map((d) => d.id as number),
    dishesIn(m.dishes, categoryId),
    `the draft dishes listed with draft_category_id=${categoryId}`,
  );
  for (const dish of listed) {
    const expected = m.dishes.get(dish.id as number);
    if (expected) checkDish(tc, dish, expected, `the list filtered by category ${categoryId}`);
  }
}

async function readDish(m: MenuModel, tc: TestContext, id: number): Promise<void> {
  const response = await (await tc.as('staffMember')).get(`/api/draft_dishes/${id}`);
  tc.status(response, 200, `reading dish ${id}`);
  checkDish(tc, tc.dig<Rec>(response.body, ['draft_dish'], `dish ${id}`), m.dishes.get(id)!, 'GET by id');
}

async function readCategory(m: MenuModel, tc: TestContext, id: number): Promise<void> {
  const response = await (await tc.as('staffMember')).get(`/api/draft_categories/${id}`);
  tc.status(response, 200, `reading category ${id}`);
  checkCategory(
    tc,
    tc.dig<Rec>(response.body, ['draft_category'], `category ${id}`),
    m.categories.get(id)!,
    dishesIn(m.dishes, id),
    'GET by id',
  );
}

const menuMachine: Machine<MenuModel> = {
  // Each write twice to one dish and one category, a move, a publication before and after a change.
  tour: [
    /^publish\(\)$/,
    /^renameCategory\(pick 0, /,
    /^uploadCategoryPhoto\(pick 0\)$/,
    /^updateDish\(pick 0, [^,]+, [\d.]+\)$/,
    /^updateDish\(pick 0, [^,]+, [\d.]+, to category pick 1\)$/,
    /^updateDish\(pick 0, [^,]+, [\d.]+, to category pick 0\)$/,
    /^updateDish\(pick 0, .*"weight"/,
    /^updateDish\(pick 0, .*"options"/,
    /^updateDish\(pick 0, .*is_hidden=true/,
    /^updateDish\(pick 0, .*is_hidden=false/,
    /^uploadDishPhoto\(pick 0\)$/,
    /^updateDish\(pick 1, [^,]+, [\d.]+\)$/,
    /^createCategory\(/,
    /^publish\(\)$/,
    /^readStorefront\(\)$/,
    /^deleteDish\(pick 0\)$/,
  ],
  decidedOnly: [
    'createCategory(): creating a category is not shown in the spec',
    "updateDish() moving a dish, hiding it or changing its description, weight, ingredients, can_zoom, is_next_day, menu_order or options: the editable fields of PUT on draft dishes are not shown in the spec (name and price are the dish's own required fields)",
    'renameCategory() with a menu_order: the editable fields of PUT on draft categories are not shown in the spec',
    "createDish() with options: how a stored configurator is returned is not shown in the spec (the service's answer to a create without them is read back instead)",
    'the answer to updateDish(): bodies of answers to PUT are not shown in the spec',
  ],
  skipped: (t) =>
    t.hasControl
      ? []
      : ['publish() and readStorefront(): only the control API shows the storefront (capabilities.controlApi)'],
  // Every view of a draft after every write: both lists, each record by id, the list filtered by each category.
  async observe(m, tc) {
    await checkDishList(m, tc);
    await checkCategoryList(m, tc);
    for (const id of m.dishes.keys()) await readDish(m, tc, id);
    for (const id of m.categories.keys()) {
      await readCategory(m, tc, id);
      await checkCategoryFilter(m, tc, id);
    }
  },
  async init(t) {
    await fresh(t);
    const org = t.fixtures.orgId;
    const dishes = await t.fixtures.dishes();
    const categories = await t.fixtures.categories();
    const model: MenuModel = {
      categories: new Map(categories.map((c) => [c.id as number, categoryModel(c)])),
      dishes: new Map(
        dishes.map((d) => [
          d.id as number,
          {
            name: d.name as string,
            price: Number(d.price),
            categoryId: d.draft_category_id as number,
            hidden: d.is_hidden === true,
            photo: hasPhoto(d),
            extras: extrasOf(d),
          },
        ]),
      ),
      published: undefined,
      ours: new Set(),
      oursCategories: new Set(),
    };
    if (t.hasControl) {
      const menu = await t.setup('the published menu', () => t.control.publishedMenu(org));
      if (menu)
        model.published = {
          categories: new Map(menu.categories.map((c) => [c.id as number, categoryModel(c)])),
          dishes: new Map(
            menu.dishes.map((d) => [
              d.id as number,
              {
                name: d.name,
                price: Number(d.price),
                categoryId: d.draft_category_id,
                hidden: false,
                photo: hasPhoto(d),
                extras: extrasOf(d),
              },
            ]),
          ),
        };
    }
    return model;
  },
  commands(t) {
    const org = t.fixtures.orgId;
    const staff = (): ReturnType<TestContext['as']> => t.as('staffMember');
    const photos = fc.oneof(
      { arbitrary: photoStep(t, 'dish'), weight: 2 },
      { arbitrary: photoStep(t, 'category'), weight: 1 },
    );
    // Updates come twice as often: a view that misses a dish's second update (a move, say) needs two of them.
    const updateDish = fc
      .tuple(
        fc.nat(),
        names,
        prices,
        decided(t, fc.nat()),
        decided(t, fc.boolean()),
        decided(t, descriptions),
        decided(t, fullExtras),
      )
      .map(([n, name, price, moveTo, hidden, description, extras = {}]): Step<MenuModel> => ({
        label: `updateDish(pick ${n}, ${name}, ${price.toFixed(2)}${moveTo === undefined ? '' : `, to category pick ${moveTo}`}${hidden === undefined ? '' : `, is_hidden=${hidden}`}${description === undefined ? '' : `, "${description}"`}${extrasLabel(extras)})`,
        writes: true,
        applies: (m) => editable(t, m.dishes, m.ours).length > 0,
        async run(m, tc) {
          const id = pick(editable(tc, m.dishes, m.ours), n)!;
          // A dish moves only into a category the sequence may change (a shared service's other categories stay as they are).
          const categoryId =
            moveTo === undefined ? undefined : pick(editable(tc, m.categories, m.oursCategories), moveTo);
          const response = await (
            await staff()
          ).put(`/api/draft_dishes/${id}`, {
            draft_dish: {
              name,
              price: price.toFixed(2),
              ...(categoryId === undefined ? {} : { draft_category_id: categoryId }),
              ...(hidden === undefined ? {} : { is_hidden: hidden }),
              ...(description === undefined ? {} : { description }),
              ...extrasBody(extras),
            },
          });
          tc.status(response, '2xx', `updating dish ${id}`);
          const dish = m.dishes.get(id)!;
          dish.name = name;
          dish.price = price;
          if (categoryId !== undefined) dish.categoryId = categoryId;
          if (hidden !== undefined) dish.hidden = hidden;
          if (description !== undefined) dish.description = description;
          applyExtras(dish.extras, extras);
          // The body of an answer to PUT is not shown in the spec (decided: the updated dish); the list read after shows the update.
          if (tc.full)
            checkDish(
              tc,
              tc.dig<Rec>(response.body, ['draft_dish'], 'the updated dish'),
              dish,
              'the answer to the update',
            );
        },
      }));
    // Renames come twice as often: a view that misses a category's second write (an upload, say) needs one before it.
    const renameCategory = fc
      .tuple(fc.nat(), names, decided(t, menuOrders))
      .map(([n, name, menuOrder]): Step<MenuModel> => ({
        label: `renameCategory(pick ${n}, ${name}${menuOrder === undefined ? '' : `, menu_order ${menuOrder}`})`,
        writes: true,
        applies: (m) => editable(t, m.categories, m.oursCategories).length > 0,
        async run(m, tc) {
          const id = pick(editable(tc, m.categories, m.oursCategories), n)!;
          // The editable fields of PUT on categories are not shown: menu_order goes only under full.
          const response = await (
            await staff()
          ).put(`/api/draft_categories/${id}`, {
            draft_category: { name, ...(menuOrder === undefined ? {} : { menu_order: menuOrder }) },
          });
          tc.status(response, '2xx', `renaming category ${id}`);
          const category = m.categories.get(id)!;
          category.name = name;
          if (menuOrder !== undefined) category.menuOrder = menuOrder;
        },
      }));
    const steps: fc.Arbitrary<Step<MenuModel>>[] = [
      renameCategory,
      renameCategory,
      // Uploads, mostly of dishes, come twice as often as a read: a view that misses an upload needs a write before it.
      photos,
      photos,
      fc.nat().map((n) => ({
        label: `deleteCategory(pick ${n})`,
        writes: true,
        applies: (m) => deletableCategories(t, m).length > 0,
        async run(m, tc) {
          const id = pick(deletableCategories(tc, m), n)!;
          tc.status(await (await staff()).delete(`/api/draft_categories/${id}`), '2xx', `deleting category ${id}`);
          // The spec: DELETE "deletes the category and all dishes in it".
          m.categories.delete(id);
          for (const [dishId, dish] of m.dishes) if (dish.categoryId === id) m.dishes.delete(dishId);
        },
      })),
      fc.tuple(fc.nat(), names, prices, t.full ? fullExtras : specExtras).map(([n, name, price, sent]) => ({
        label: `createDish(category pick ${n}, ${name}, ${price.toFixed(2)}${extrasLabel(sentExtras(sent))})`,
        writes: true,
        applies: (m) => m.categories.size > 0,
        async run(m, tc) {
          const categoryId = pick(m.categories.keys(), n)!;
          const response = await (
            await staff()
          ).post('/api/draft_dishes', {
            draft_dish: {
              name,
              price: price.toFixed(2),
              draft_category_id: categoryId,
              organization_id: org,
              // Sent, not assumed: the default of is_hidden is decided (DraftDishCreate), the field stated.
              is_hidden: false,
              ...extrasBody(sentExtras(sent)),
            },
          });
          tc.status(response, '2xx', 'creating a draft dish');
          const dish = tc.dig<Rec>(response.body, ['draft_dish'], 'the created dish');
          // Fields not sent take the service's defaults (not shown in the spec): the answer's values are the model's.
          const extras = extrasOf(dish);
          applyExtras(extras, sentExtras(sent));
          const expected = { name, price, categoryId, hidden: false, photo: false, extras };
          checkDish(tc, dish, expected, 'the answer to the create');
          tc.check(!m.dishes.has(dish.id as number), `a new dish got the id ${dish.id} of a dish that exists`);
          m.dishes.set(dish.id as number, expected);
          m.ours.add(dish.id as number);
          undo(tc, async () => (await staff()).delete(`/api/draft_dishes/${dish.id}`));
        },
      })),
      updateDish,
      updateDish,
      deleteDishStep(t),
      fc.oneof(
        fc.nat().map((n): Step<MenuModel> => ({
          label: `readDish(pick ${n})`,
          applies: (m) => m.dishes.size > 0,
          run: (m, tc) => readDish(m, tc, pick(m.dishes.keys(), n)!),
        })),
        fc.nat().map((n): Step<MenuModel> => ({
          label: `listDishesOfCategory(pick ${n})`,
          applies: (m) => m.categories.size > 0,
          run: (m, tc) => checkCategoryFilter(m, tc, pick(m.categories.keys(), n)!),
        })),
      ),
      fc.constantFrom<Step<MenuModel>>(
        { label: 'listDishes()', run: checkDishList },
        { label: 'listCategories()', run: checkCategoryList },
      ),
    ];
    // Creating a category is not shown in the spec: only the decided POST (full profile) is part of the sequences.
    if (t.full)
      steps.push(
        names.map((name) => ({
          label: `createCategory(${name})`,
          writes: true,
          async run(m, tc) {
            const response = await (
              await staff()
            ).post('/api/draft_categories', {
              draft_category: { name, organization_id: org },
            });
            tc.status(response, '2xx', 'creating a draft category');
            const created = tc.dig<Rec>(response.body, ['draft_category'], 'the created category');
            const id = tc.dig<number>(created, ['id'], 'the id of the created category');
            tc.check(!m.categories.has(id), `a new category got the id ${id} of a category that exists`);
            // Its position (decided: after the last category) is the answer's.
            m.categories.set(id, { name, photo: false, menuOrder: created.menu_order as number });
            m.oursCategories.add(id);
            undo(tc, async () => (await staff()).delete(`/api/draft_categories/${id}`));
          },
        })),
      );
    if (t.hasControl) {
      const publish = fc.constant<Step<MenuModel>>({
        label: 'publish()',
        async run(m, tc) {
          tc.status(await (await staff()).post(`/api/organizations/${org}/publish`), '2xx', 'publishing the menu');
          m.published = {
            // The storefront is a view of its own: a photo the drafts wait for may lag there too.
            categories: new Map([...m.categories].map(([id, c]) => [id, { ...c, ...lagging(c) }])),
            dishes: new Map([...m.dishes].map(([id, d]) => [id, { ...d, ...lagging(d), extras: { ...d.extras } }])),
          };
          await checkStorefront(m, tc);
        },
      });
      // Publications come three times as often as other commands: faults of a re-publication need two of them.
      steps.push(publish, publish, publish, fc.constant({ label: 'readStorefront()', run: checkStorefront }));
    }
    return steps;
  },
};

/** The storefront (read through the control API) is the model's last publication. */
async function checkStorefront(m: MenuModel, tc: TestContext): Promise<void> {
  const menu = await tc.setup('the published menu', () => tc.control.publishedMenu(tc.fixtures.orgId));
  if (!m.published) {
    tc.check(menu === undefined, 'a storefront menu exists although nothing was published');
    return;
  }
  tc.check(menu !== undefined, 'the storefront has no menu after a publication');
  const shown = [...m.published.dishes].filter(([, d]) => !d.hidden);
  sameIds(
    tc,
    menu!.dishes.map((d) => d.id as number),
    shown.map(([id]) => id),
    'the storefront dishes',
  );
  for (const dish of menu!.dishes) checkDish(tc, dish, m.published.dishes.get(dish.id as number)!, 'the storefront');
  sameIds(
    tc,
    menu!.categories.map((c) => c.id as number),
    m.published.categories.keys(),
    'the storefront categories',
  );
  for (const category of menu!.categories)
    checkCategory(tc, category, m.published.categories.get(category.id as number)!, undefined, 'the storefront');
}

/** For a published copy: the storefront has not shown a photo uploaded in this sequence yet, and may lag like any view. */
function lagging(record: { photoShownIn?: Set<string> }): { photoShownIn?: Set<string> } {
  return record.photoShownIn ? { photoShownIn: new Set() } : {};
}

/** `PUT …/photo` of a draft category or dish the sequence may change (multipart, attribute `file`). */
function photoStep(t: TestContext, kind: 'category' | 'dish'): fc.Arbitrary<Step<MenuModel>> {
  const records = (m: MenuModel): Map<number, { photo: boolean; photoShownIn?: Set<string> }> =>
    kind === 'dish' ? m.dishes : m.categories;
  const ours = (m: MenuModel): Set<number> => (kind === 'dish' ? m.ours : m.oursCategories);
  const collection = kind === 'dish' ? 'draft_dishes' : 'draft_categories';
  return fc.nat().map((n) => ({
    label: `upload${kind === 'dish' ? 'Dish' : 'Category'}Photo(pick ${n})`,
    writes: true,
    applies: (m) => editable(t, records(m), ours(m)).length > 0,
    async run(m, tc) {
      const id = pick(editable(tc, records(m), ours(m)), n)!;
      const response = await (
        await tc.as('staffMember')
      ).request({ method: 'PUT', path: `/api/${collection}/${id}/photo`, body: photoForm() });
      tc.status(response, '2xx', `uploading a photo of ${kind} ${id}`);
      // A new photo: each view may lag until it has shown this one (checkPhoto).
      Object.assign(records(m).get(id)!, { photo: true, photoShownIn: new Set<string>() });
    },
  }));
}

/** Categories a sequence may delete: editable ones whose dishes it may delete too (the delete takes them along). */
function deletableCategories(t: TestContext, m: MenuModel): number[] {
  const dishes = new Set(editable(t, m.dishes, m.ours));
  return editable(t, m.categories, m.oursCategories).filter((id) =>
    [...m.dishes].every(([dishId, dish]) => dish.categoryId !== id || dishes.has(dishId)),
  );
}

/** The menu machine as a test: drafts, publication and the storefront against a model. */
export const menuMachineTest = defineTest({
  id: 'stateful.menu',
  title:
    'States and transitions row 4 (model-based): random sequences of draft category and dish changes, publications and reads agree with a model',
  clauses: [
    'States and transitions: row 4',
    'Endpoints > Draft dishes: POST /api/draft_dishes/',
    'Endpoints > Draft dishes: GET /api/draft_dishes/:id',
    'Endpoints > Draft dishes: GET /api/draft_dishes',
    'Endpoints > Draft dishes: PUT /api/draft_dishes/:id',
    'Endpoints > Draft dishes: DELETE /api/draft_dishes/:id',
    'Endpoints > Organizations: POST /api/organizations/:id/publish',
    'Endpoints > Draft categories: DELETE /api/draft_categories/:id',
    'Endpoints > Draft categories: PUT /api/draft_categories/:id',
    'Endpoints > Draft categories: GET /api/draft_categories/:id',
    'Endpoints > Draft categories: PUT /api/draft_categories/:id/photo',
    'Endpoints > Draft dishes: PUT /api/draft_dishes/:id/photo',
    'Resources > DraftCategory: draft_dish_ids',
    'Resources > DraftDish: is_hidden',
  ],
  profile: 'spec',
  decisions: [opPointer('/api/draft_categories', 'post'), opPointer('/api/draft_dishes/{id}', 'put', '/responses/200')],
  kind: 'stateful',
  needs: ['mutations'],
  operations: [
    'createDraftCategory',
    'updateDraftCategory',
    'deleteDraftCategory',
    'listDraftCategories',
    'getDraftCategory',
    'uploadDraftCategoryPhoto',
    'uploadDraftDishPhoto',
    'createDraftDish',
    'getDraftDish',
    'listDraftDishes',
    'updateDraftDish',
    'deleteDraftDish',
    'publishMenu',
  ],
  run: (t) => runMachine(t, menuMachine),
});
