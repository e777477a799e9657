import type { components } from '@restoapi/openapi';
import type { DraftCategoryRecord, DraftDishRecord, MockStateTables } from '../state/mock-state.js';

type S = components['schemas'];

/** Storefront order of categories: `menu_order`, then `id` (decided for `listDraftCategories`). */
export function compareCategories(a: DraftCategoryRecord, b: DraftCategoryRecord): number {
  return a.menu_order - b.menu_order || a.id - b.id;
}

/** Order of dishes inside one category: `menu_order`, then `id`. */
export function compareDishesInCategory(a: DraftDishRecord, b: DraftDishRecord): number {
  return a.menu_order - b.menu_order || a.id - b.id;
}

/**
 * Storefront order of dishes across categories (decided for `listDraftDishes`):
 * the category's `menu_order`, then category id, then the dish's `menu_order`, then id.
 */
export function dishComparator(state: MockStateTables): (a: DraftDishRecord, b: DraftDishRecord) => number {
  const position = (dish: DraftDishRecord): [number, number] => {
    const category = state.draftCategories.get(dish.draft_category_id);
    // A dish whose category vanished cannot normally exist; sort it last rather than fail.
    return category ? [category.menu_order, category.id] : [Number.POSITIVE_INFINITY, dish.draft_category_id];
  };
  return (a, b) => {
    const [orderA, idA] = position(a);
    const [orderB, idB] = position(b);
    return orderA - orderB || idA - idB || compareDishesInCategory(a, b);
  };
}

/** The ids of a category's dishes in storefront order: derived on every read, never stored. */
export function draftDishIdsOf(state: MockStateTables, categoryId: number): number[] {
  // Through the category index (the sort makes the index's order irrelevant).
  return state.draftDishes
    .where('draft_category_id', categoryId)
    .sort(compareDishesInCategory)
    .map((dish) => dish.id);
}

/** The API view of a draft category (import-only fields stay inside the mock). */
export function categoryView(state: MockStateTables, category: DraftCategoryRecord): S['DraftCategory'] {
  return {
    id: category.id,
    name: category.name,
    menu_order: category.menu_order,
    photo: category.photo ?? null,
    draft_dish_ids: draftDishIdsOf(state, category.id),
    organization_id: category.organization_id,
  };
}

/** The API view of a draft dish (availability and the remote photo URL stay inside the mock). */
export function dishView(dish: DraftDishRecord): S['DraftDish'] {
  return {
    id: dish.id,
    is_hidden: dish.is_hidden,
    name: dish.name,
    description: dish.description,
    menu_order: dish.menu_order,
    price: dish.price,
    photo: dish.photo ?? null,
    weight: dish.weight ?? null,
    ingredients: dish.ingredients,
    can_zoom: dish.can_zoom,
    is_next_day: dish.is_next_day,
    external_id: dish.external_id ?? null,
    options: dish.options ?? null,
    draft_category_id: dish.draft_category_id,
    organization_id: dish.organization_id,
  };
}
