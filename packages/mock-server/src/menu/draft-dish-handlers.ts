import type { components } from '@restoapi/openapi';
import { created, noContent, ok, type HandlerMap } from '../engine/handler.js';
import { forbidden, notFound, unprocessable, type FieldProblem } from '../engine/http-error.js';
import { organizationRows } from '../model/access.js';
import { newDish } from '../model/dish.js';
import { notEditableProblems } from '../model/editability.js';
import type { ConfiguratorGroup } from '../model/pricing.js';
import { requireStaffOf, seesOrganization, type Actor } from '../session/actor.js';
import type { DraftDishRecord, MockStateTables } from '../state/mock-state.js';
import type { Table } from '../state/table.js';
import { configuratorProblems, normalizePrice, normalizeWeight } from './menu-values.js';
import { dishComparator, dishView } from './menu-views.js';
import { dishPhoto, readPhotoUpload, releasePhoto, storePhoto } from './photos.js';

type S = components['schemas'];
type DishInput = Partial<Omit<S['DraftDish'], 'price' | 'weight'>> & {
  price?: number | string;
  weight?: number | string | null;
};

/** The largest `menu_order` computed last, per dishes table, valid while the table's revision is unchanged. */
const lastMenuOrder = new WeakMap<Table<DraftDishRecord>, { revision: number; categoryId: number; max: number }>();

/**
 * The largest `menu_order` in a category (0 when empty), through the category index. A run of creates in
 * one category (a script filling a menu) would rescan the category every time, so the answer is remembered
 * with the table's revision; {@link rememberMenuOrder} keeps it current across the create's own insert, and
 * any other write to the table makes it stale. `menu_order` is only written on copies that are `put`.
 */
function maxMenuOrder(dishes: Table<DraftDishRecord>, categoryId: number): number {
  const memo = lastMenuOrder.get(dishes);
  if (memo && memo.revision === dishes.revision && memo.categoryId === categoryId) return memo.max;
  // Math.max as before, so that a stored NaN still propagates the same way.
  let max = 0;
  for (const dish of dishes.where('draft_category_id', categoryId)) max = Math.max(max, dish.menu_order);
  return max;
}

/** Records that `dish` (just inserted) holds the largest `menu_order` of its category. */
function rememberMenuOrder(dishes: Table<DraftDishRecord>, dish: DraftDishRecord): void {
  lastMenuOrder.set(dishes, { revision: dishes.revision, categoryId: dish.draft_category_id, max: dish.menu_order });
}

/** The dish, or 404 when missing or outside the caller's scope. */
function visibleDish(state: MockStateTables, actor: Actor, id: number): DraftDishRecord {
  const dish = state.draftDishes.get(id);
  if (!dish || !seesOrganization(actor, dish.organization_id)) throw notFound('Draft dish', id);
  return dish;
}

/** The dish for a write: 404 out of scope, 403 for dispatchers and couriers (they do not edit menus). */
function dishForStaff(state: MockStateTables, actor: Actor, id: number): DraftDishRecord {
  const dish = visibleDish(state, actor, id);
  requireStaffOf(actor, dish.organization_id, 'Draft dish', id);
  return dish;
}

/**
 * Checks and normalises the value fields shared by create and update (price,
 * weight, options, external_id, draft_category_id) into `next`; returns the
 * problems, so every invalid field is reported at once.
 */
function applyDishFields(
  state: MockStateTables,
  sent: DishInput,
  next: DraftDishRecord,
  ownId: number | undefined,
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  if (sent.price !== undefined) {
    const price = normalizePrice(sent.price);
    if (price === undefined)
      problems.push({
        pointer: '/draft_dish/price',
        code: 'invalid_value',
        detail: 'price must be a non-negative amount with at most two decimals.',
      });
    else next.price = price;
  }
  if ('weight' in sent) {
    const weight = normalizeWeight(sent.weight);
    if (weight === undefined)
      problems.push({
        pointer: '/draft_dish/weight',
        code: 'invalid_value',
        detail: 'weight must be a non-negative number of grams with at most two decimals, or null.',
      });
    else next.weight = weight;
  }
  if ('options' in sent) {
    problems.push(...configuratorProblems(sent.options as ConfiguratorGroup[] | null, '/draft_dish/options'));
    next.options = sent.options ?? null;
  }
  if ('external_id' in sent) {
    const externalId = sent.external_id ?? null;
    // Unique within the organization (decided): the widget and the menu import identify a dish by it.
    const taken =
      externalId !== null &&
      // Through the column's index: a menu sync sends an external id with every dish, and a scan of every
      // dish per write grew with the menu.
      state.draftDishes
        .where('external_id', externalId)
        .find((d) => d.organization_id === next.organization_id && d.id !== ownId);
    if (taken)
      problems.push({
        pointer: '/draft_dish/external_id',
        code: 'invalid_value',
        detail: `external_id "${externalId}" is already used by dish ${taken.id} of the organization.`,
      });
    else next.external_id = externalId;
  }
  if (sent.draft_category_id !== undefined) {
    const category = state.draftCategories.get(sent.draft_category_id);
    if (!category || category.organization_id !== next.organization_id) {
      problems.push({
        pointer: '/draft_dish/draft_category_id',
        code: 'invalid_value',
        detail: `Draft category ${sent.draft_category_id} does not exist in organization ${next.organization_id}.`,
      });
    } else next.draft_category_id = category.id;
  }
  if (sent.name !== undefined) next.name = sent.name;
  if (sent.description !== undefined) next.description = sent.description;
  if (sent.ingredients !== undefined) next.ingredients = sent.ingredients;
  if (sent.menu_order !== undefined) next.menu_order = sent.menu_order;
  if (sent.is_hidden !== undefined) next.is_hidden = sent.is_hidden;
  if (sent.can_zoom !== undefined) next.can_zoom = sent.can_zoom;
  if (sent.is_next_day !== undefined) next.is_next_day = sent.is_next_day;
  return problems;
}

/** `/api/draft_dishes…` (Endpoints > Draft dishes). Drafts reach the storefront only on publication. */
export const draftDishHandlers: HandlerMap = {
  listDraftDishes({ runtime, actor, query }) {
    const { state } = runtime;
    // Through an index: the category's dishes, or the dishes of the organizations asked for and visible.
    const candidates =
      query.draft_category_id === undefined
        ? organizationRows(state.draftDishes, actor, query.organization_id)
        : state.draftDishes.where('draft_category_id', query.draft_category_id);
    const dishes = candidates
      .filter(
        (d) =>
          seesOrganization(actor, d.organization_id) &&
          (query.organization_id === undefined || d.organization_id === query.organization_id),
      )
      .sort(dishComparator(state))
      .map(dishView);
    return ok({ draft_dishes: dishes, meta: { count: dishes.length, total: dishes.length } });
  },

  getDraftDish({ runtime, actor, params }) {
    return ok({ draft_dish: dishView(visibleDish(runtime.state, actor, params.id)) });
  },

  createDraftDish({ runtime, actor, body }) {
    const { state } = runtime;
    const sent = body.draft_dish as DishInput & {
      organization_id: number;
      draft_category_id: number;
      name: string;
      price: number | string;
    };
    if (actor.type !== 'staff_member') {
      throw forbidden(
        `A ${actor.type.replace('_', ' ')} account may not create draft dishes; only staff members of the organization may.`,
      );
    }
    // The organization is a body field, so a foreign one is an invalid value (422), not a missing resource.
    if (!state.organizations.has(sent.organization_id) || !seesOrganization(actor, sent.organization_id)) {
      throw unprocessable([
        {
          pointer: '/draft_dish/organization_id',
          code: 'invalid_value',
          detail: `Organization ${sent.organization_id} does not exist or is not yours.`,
        },
      ]);
    }
    // The decided defaults for every optional field (model/dish.ts); the sent fields are checked below.
    // Built once and stored as it is (what `insert` stores: the record's fields, then the next id), instead
    // of copied twice on the way; every field `applyDishFields` sets is already there, so the order holds.
    const next = newDish(sent.name, sent.draft_category_id, sent.organization_id) as DraftDishRecord;
    next.id = state.draftDishes.peekNextId();
    const problems = applyDishFields(state, sent, next, undefined);
    if (problems.length > 0) throw unprocessable(problems);
    // After the last dish of the category, so a new dish goes last.
    const last = sent.menu_order === undefined;
    if (last) next.menu_order = maxMenuOrder(state.draftDishes, next.draft_category_id) + 1;
    const dish = state.draftDishes.put(next);
    if (last) rememberMenuOrder(state.draftDishes, dish);
    return created({ draft_dish: dishView(dish) }, `/api/draft_dishes/${dish.id}`);
  },

  updateDraftDish({ runtime, actor, params, body }) {
    const { state } = runtime;
    const dish = dishForStaff(state, actor, params.id);
    const sent = body.draft_dish as DishInput;
    const problems = notEditableProblems('/draft_dish', sent, dishView(dish), ['id', 'organization_id', 'photo']);
    const next: DraftDishRecord = { ...dish };
    problems.push(...applyDishFields(state, sent, next, dish.id));
    if (problems.length > 0) throw unprocessable(problems);
    state.draftDishes.put(next);
    return ok({ draft_dish: dishView(next) });
  },

  deleteDraftDish({ runtime, actor, params }) {
    const dish = dishForStaff(runtime.state, actor, params.id);
    // The published menu is a snapshot: the storefront keeps the dish until the next publication.
    runtime.state.draftDishes.delete(dish.id);
    releasePhoto(runtime, dish.photo);
    return noContent();
  },

  async uploadDraftDishPhoto({ runtime, actor, params, form }) {
    dishForStaff(runtime.state, actor, params.id);
    const upload = await readPhotoUpload(runtime, form);
    // Re-read after the await: the dish may have been deleted meanwhile.
    const current = runtime.state.draftDishes.get(params.id);
    if (!current) throw notFound('Draft dish', params.id);
    const photo = storePhoto(runtime, 'draft_dish', current.id, upload);
    const previous = current.photo;
    const next: DraftDishRecord = { ...current, photo: dishPhoto(runtime, photo.id) };
    runtime.state.draftDishes.put(next);
    releasePhoto(runtime, previous);
    return ok({ draft_dish: dishView(next) });
  },
};
