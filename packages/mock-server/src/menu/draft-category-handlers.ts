import type { components } from '@restoapi/openapi';
import { created, noContent, ok, type HandlerMap } from '../engine/handler.js';
import { forbidden, notFound, unprocessable } from '../engine/http-error.js';
import { organizationRows } from '../model/access.js';
import { categoryRecord } from '../model/dish.js';
import { notEditableProblems, sameJson } from '../model/editability.js';
import { requireStaffOf, seesOrganization, type Actor } from '../session/actor.js';
import type { DraftCategoryRecord, MockStateTables } from '../state/mock-state.js';
import { categoryView, compareCategories } from './menu-views.js';
import { categoryPhoto, readPhotoUpload, releasePhoto, storePhoto } from './photos.js';

type S = components['schemas'];

/** The category, or 404 when missing or outside the caller's scope. */
function visibleCategory(state: MockStateTables, actor: Actor, id: number): DraftCategoryRecord {
  const category = state.draftCategories.get(id);
  if (!category || !seesOrganization(actor, category.organization_id)) throw notFound('Draft category', id);
  return category;
}

/** The category for a write: 404 out of scope, 403 for dispatchers and couriers (they do not edit menus). */
function categoryForStaff(state: MockStateTables, actor: Actor, id: number): DraftCategoryRecord {
  const category = visibleCategory(state, actor, id);
  requireStaffOf(actor, category.organization_id, 'Draft category', id);
  return category;
}

/** Deletes a category with its dishes (and the photos only the drafts showed). */
export function deleteCategoryWithDishes(
  state: MockStateTables,
  category: DraftCategoryRecord,
  release: (photo: { original: string } | null) => void,
): void {
  for (const dish of state.draftDishes.filter((d) => d.draft_category_id === category.id)) {
    state.draftDishes.delete(dish.id);
    release(dish.photo);
  }
  state.draftCategories.delete(category.id);
  release(category.photo);
}

/** `/api/draft_categories…` (Endpoints > Draft categories). Drafts reach the storefront only on publication. */
export const draftCategoryHandlers: HandlerMap = {
  listDraftCategories({ runtime, actor, query }) {
    const { state } = runtime;
    const categories = organizationRows(state.draftCategories, actor, query.organization_id)
      .sort(compareCategories)
      .map((c) => categoryView(state, c));
    return ok({ draft_categories: categories, meta: { count: categories.length, total: categories.length } });
  },

  getDraftCategory({ runtime, actor, params }) {
    return ok({ draft_category: categoryView(runtime.state, visibleCategory(runtime.state, actor, params.id)) });
  },

  createDraftCategory({ runtime, actor, body }) {
    const { state } = runtime;
    const sent = body.draft_category;
    if (actor.type !== 'staff_member') {
      throw forbidden(
        `A ${actor.type.replace('_', ' ')} account may not create draft categories; only staff members of the organization may.`,
      );
    }
    // The organization is a body field, so a foreign one is an invalid value (422), not a missing resource.
    if (!state.organizations.has(sent.organization_id) || !seesOrganization(actor, sent.organization_id)) {
      throw unprocessable([
        {
          pointer: '/draft_category/organization_id',
          code: 'invalid_value',
          detail: `Organization ${sent.organization_id} does not exist or is not yours.`,
        },
      ]);
    }
    const siblings = state.draftCategories.where('organization_id', sent.organization_id);
    // Decided default: after the last category of the organization.
    const menuOrder = sent.menu_order ?? Math.max(0, ...siblings.map((c) => c.menu_order)) + 1;
    const category = state.draftCategories.insert(
      categoryRecord({ name: sent.name, menu_order: menuOrder, organization_id: sent.organization_id }),
    );
    return created({ draft_category: categoryView(state, category) }, `/api/draft_categories/${category.id}`);
  },

  updateDraftCategory({ runtime, actor, params, body }) {
    const { state } = runtime;
    const category = categoryForStaff(state, actor, params.id);
    const sent = body.draft_category as Partial<S['DraftCategory']>;
    const view = categoryView(state, category);
    const problems = notEditableProblems(
      '/draft_category',
      sent,
      view,
      ['id', 'organization_id', 'photo', 'draft_dish_ids'],
      (field, a, b) =>
        // The dish ids are a set; any order of the same ids is the stored value.
        field === 'draft_dish_ids' && Array.isArray(a) && Array.isArray(b)
          ? sameJson(
              [...(a as number[])].sort((x, y) => x - y),
              [...(b as number[])].sort((x, y) => x - y),
            )
          : sameJson(a, b),
    );
    if (problems.length > 0) throw unprocessable(problems);
    const next: DraftCategoryRecord = { ...category };
    if (sent.name !== undefined) next.name = sent.name;
    if (sent.menu_order !== undefined) next.menu_order = sent.menu_order;
    state.draftCategories.put(next);
    return ok({ draft_category: categoryView(state, next) });
  },

  deleteDraftCategory({ runtime, actor, params }) {
    const category = categoryForStaff(runtime.state, actor, params.id);
    // The published menu is a snapshot: the storefront keeps the category until the next publication.
    deleteCategoryWithDishes(runtime.state, category, (photo) => releasePhoto(runtime, photo));
    return noContent();
  },

  async uploadDraftCategoryPhoto({ runtime, actor, params, form }) {
    const category = categoryForStaff(runtime.state, actor, params.id);
    const upload = await readPhotoUpload(runtime, form);
    // Re-read after the await: the category may have been deleted meanwhile.
    const current = runtime.state.draftCategories.get(category.id);
    if (!current) throw notFound('Draft category', params.id);
    const photo = storePhoto(runtime, 'draft_category', current.id, upload);
    const previous = current.photo;
    const next: DraftCategoryRecord = { ...current, photo: categoryPhoto(runtime, photo.id) };
    runtime.state.draftCategories.put(next);
    releasePhoto(runtime, previous);
    return ok({ draft_category: categoryView(runtime.state, next) });
  },
};
