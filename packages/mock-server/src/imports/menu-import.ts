import type { components } from '@restoapi/openapi';
import { tooLarge, type FieldProblem } from '../engine/http-error.js';
import type { MockRuntime } from '../engine/runtime.js';
import { configuratorProblems, normalizePrice, normalizeWeight } from '../menu/menu-values.js';
import { categoryPhoto, dishPhoto, releasePhoto } from '../menu/photos.js';
import { publishOrganizationMenu } from '../menu/publish.js';
import { categoryRecord, dishRecord } from '../model/dish.js';
import type { ConfiguratorGroup } from '../model/pricing.js';
import type { DraftCategoryRecord, ImportJobRecord, MockStateTables } from '../state/mock-state.js';
import { registerImportKind } from './import-jobs.js';
import { remotePhotoUrls } from './remote-photos.js';

type S = components['schemas'];
/** The menu import body (`MenuImport`); `config` members may be absent (their defaults are false). */
export type MenuImportBody = Omit<S['MenuImport'], 'config'> & { config?: Partial<S['MenuImportConfig']> };
type ImportDish = S['MenuImportDish'];

/**
 * 413 before anything else when the import holds more records than
 * `maxImportRecords` (decided: 10,000 dishes per request).
 */
export function assertMenuImportSize(runtime: MockRuntime, body: MenuImportBody): void {
  const limit = runtime.config.maxImportRecords;
  if (body.dishes.length > limit)
    throw tooLarge(`A menu import may hold at most ${limit} dishes; this one has ${body.dishes.length}.`, {
      pointer: '/dishes',
    });
  if ((body.categories?.length ?? 0) > limit) {
    throw tooLarge(`A menu import may hold at most ${limit} categories; this one has ${body.categories!.length}.`, {
      pointer: '/categories',
    });
  }
}

/**
 * The semantic checks of a menu import that JSON Schema cannot make, run at
 * submission so that a refused import is reported at once and changes nothing:
 * unique category names and external ids, `category_external_id` naming a
 * given category, unique dish external ids, prices and weights with at most
 * two decimals, whole `menu_order`s, availability only for the organization's
 * restaurants (once each), and configurators that follow the rules.
 */
export function menuImportProblems(
  state: MockStateTables,
  organizationId: number,
  body: MenuImportBody,
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  const categoryNames = new Map<string, number>();
  const categoryExternalIds = new Map<string, number>();
  (body.categories ?? []).forEach((category, i) => {
    const sameName = categoryNames.get(category.name);
    if (sameName !== undefined) {
      problems.push({
        pointer: `/categories/${i}/name`,
        code: 'invalid_value',
        detail: `Category name "${category.name}" is already used by /categories/${sameName}.`,
      });
    } else categoryNames.set(category.name, i);
    if (category.external_id !== undefined) {
      const sameId = categoryExternalIds.get(category.external_id);
      if (sameId !== undefined) {
        problems.push({
          pointer: `/categories/${i}/external_id`,
          code: 'invalid_value',
          detail: `Category external_id "${category.external_id}" is already used by /categories/${sameId}.`,
        });
      } else categoryExternalIds.set(category.external_id, i);
    }
  });

  const restaurants = new Set(state.restaurants.filter((r) => r.organization_id === organizationId).map((r) => r.id));
  const dishExternalIds = new Map<string, number>();
  body.dishes.forEach((dish, n) => {
    const at = `/dishes/${n}`;
    if (dish.category_external_id !== undefined && !categoryExternalIds.has(dish.category_external_id)) {
      problems.push({
        pointer: `${at}/category_external_id`,
        code: 'invalid_value',
        detail: `category_external_id "${dish.category_external_id}" names no category of \`categories\`.`,
      });
    }
    if (dish.external_id !== undefined) {
      const same = dishExternalIds.get(dish.external_id);
      if (same !== undefined)
        problems.push({
          pointer: `${at}/external_id`,
          code: 'invalid_value',
          detail: `external_id "${dish.external_id}" is already used by /dishes/${same}.`,
        });
      else dishExternalIds.set(dish.external_id, n);
    }
    if (normalizePrice(dish.price) === undefined) {
      problems.push({
        pointer: `${at}/price`,
        code: 'invalid_value',
        detail: 'price must be a non-negative amount with at most two decimals.',
      });
    }
    if (dish.weight !== undefined && normalizeWeight(dish.weight) === undefined) {
      problems.push({
        pointer: `${at}/weight`,
        code: 'invalid_value',
        detail: 'weight must be a non-negative number of grams with at most two decimals.',
      });
    }
    if (dish.menu_order !== undefined && !Number.isSafeInteger(dish.menu_order)) {
      // A draft dish's menu_order is an integer (DraftDish), so a fraction could not be stored.
      problems.push({
        pointer: `${at}/menu_order`,
        code: 'invalid_value',
        detail: 'menu_order of a dish must be a whole number.',
      });
    }
    const listed = new Set<number>();
    (dish.availability ?? []).forEach((entry, m) => {
      const pointer = `${at}/availability/${m}/restaurant_id`;
      if (!restaurants.has(entry.restaurant_id)) {
        problems.push({
          pointer,
          code: 'invalid_value',
          detail: `Restaurant ${entry.restaurant_id} is not a restaurant of organization ${organizationId}.`,
        });
      } else if (listed.has(entry.restaurant_id)) {
        problems.push({
          pointer,
          code: 'invalid_value',
          detail: `Restaurant ${entry.restaurant_id} is listed twice for this dish.`,
        });
      }
      listed.add(entry.restaurant_id);
    });
    problems.push(...configuratorProblems(dish.modifiers as ConfiguratorGroup[] | null | undefined, `${at}/modifiers`));
  });
  return problems;
}

/** Where a dish of the import goes: the key of its planned category. */
function categoryKeyOf(dish: ImportDish): string {
  return dish.category_external_id !== undefined ? `ext:${dish.category_external_id}` : `name:${dish.category_name}`;
}

/** Availability in every restaurant of the organization: as listed, `available` elsewhere (the spec's default). */
function fullAvailability(
  state: MockStateTables,
  organizationId: number,
  listed: S['DishAvailability'][] | undefined,
): S['DishAvailability'][] {
  const given = new Map((listed ?? []).map((entry) => [entry.restaurant_id, entry.status]));
  return state.restaurants
    .filter((r) => r.organization_id === organizationId)
    .sort((a, b) => a.id - b.id)
    .map((r) => ({ restaurant_id: r.id, status: given.get(r.id) ?? 'available' }));
}

/**
 * Applies a validated menu import to the drafts (Menu import rules 1 and 3, as
 * decided for `config`): the import replaces the organization's whole draft
 * menu. Without `destroy_menu`, categories and dishes whose `external_id` is
 * known are updated in place and keep their ids (and what the import does not
 * carry: photo, `is_hidden`, ingredients…); everything else is created, and
 * drafts missing from the import are deleted. With `destroy_menu`, every draft
 * is deleted first and nothing keeps its id. The storefront changes only on
 * publication, which `publish_menu` does right away. All checks run before the
 * first change, so a failure leaves the drafts as they were.
 */
export function applyMenuImport(runtime: MockRuntime, job: ImportJobRecord): string {
  const { state } = runtime;
  const organizationId = job.organization_id;
  const body = job.payload as MenuImportBody;
  if (!state.organizations.has(organizationId)) throw new Error(`Organization ${organizationId} no longer exists.`);
  // The state may have changed since submission (a restaurant removed…): check again before touching anything.
  const problem = menuImportProblems(state, organizationId, body)[0];
  if (problem) throw new Error(`${problem.pointer}: ${problem.detail}`);
  const destroy = body.config?.destroy_menu === true;
  // Photos fetched from remote_photo_url when the import was submitted (remote-photos.ts).
  const remotePhotos = job.options.remote_photos ?? {};
  const fetchedPhoto = (url: string | null | undefined): number | undefined => (url ? remotePhotos[url] : undefined);

  const oldCategories = state.draftCategories.filter((c) => c.organization_id === organizationId);
  const oldDishes = state.draftDishes.filter((d) => d.organization_id === organizationId);
  const categoryByExternalId = new Map(
    destroy ? [] : oldCategories.filter((c) => c.external_id).map((c) => [c.external_id!, c]),
  );
  const dishByExternalId = new Map(
    destroy ? [] : oldDishes.filter((d) => d.external_id).map((d) => [d.external_id!, d]),
  );

  // Plan the categories: the given ones in order, then those named only by dishes.
  type Planned = { key: string; record: Omit<DraftCategoryRecord, 'id'> & { id?: number } };
  const planned: Planned[] = [];
  const byName = new Map<string, Planned>();
  (body.categories ?? []).forEach((category, i) => {
    const kept = category.external_id !== undefined ? categoryByExternalId.get(category.external_id) : undefined;
    const entry: Planned = {
      key: category.external_id !== undefined ? `ext:${category.external_id}` : `given:${i}`,
      // A kept category keeps its id and photo unless a fetched one replaces it.
      record: {
        ...kept,
        ...categoryRecord({
          name: category.name,
          menu_order: category.menu_order ?? i + 1,
          organization_id: organizationId,
          external_id: category.external_id ?? null,
          remote_photo_url: category.remote_photo_url ?? null,
          photo:
            fetchedPhoto(category.remote_photo_url) !== undefined
              ? categoryPhoto(runtime, fetchedPhoto(category.remote_photo_url)!)
              : kept?.photo,
        }),
      },
    };
    planned.push(entry);
    byName.set(category.name, entry);
  });
  let nextOrder = Math.max(0, ...planned.map((p) => p.record.menu_order)) + 1;
  const keyOfDish = body.dishes.map((dish) => {
    if (dish.category_name === undefined) return categoryKeyOf(dish);
    const given = byName.get(dish.category_name);
    if (given) return given.key;
    // "A missing category is created automatically", once per name.
    const entry: Planned = {
      key: `name:${dish.category_name}`,
      record: categoryRecord({
        name: dish.category_name,
        menu_order: nextOrder++,
        organization_id: organizationId,
        external_id: null,
        remote_photo_url: null,
      }),
    };
    planned.push(entry);
    byName.set(dish.category_name, entry);
    return entry.key;
  });

  // From here on nothing can fail: replace the drafts.
  const keptCategoryIds = new Set(planned.map((p) => p.record.id).filter((id): id is number => id !== undefined));
  const keptDishIds = new Set(
    body.dishes
      .map((d) => (d.external_id !== undefined ? dishByExternalId.get(d.external_id)?.id : undefined))
      .filter((id): id is number => id !== undefined),
  );
  for (const dish of oldDishes) {
    if (keptDishIds.has(dish.id)) continue;
    state.draftDishes.delete(dish.id);
    releasePhoto(runtime, dish.photo);
  }
  for (const category of oldCategories) {
    if (keptCategoryIds.has(category.id)) continue;
    state.draftCategories.delete(category.id);
    releasePhoto(runtime, category.photo);
  }
  const categoryIds = new Map<string, number>();
  for (const entry of planned) {
    const { id, ...row } = entry.record;
    const stored = id !== undefined ? state.draftCategories.put({ ...row, id }) : state.draftCategories.insert(row);
    categoryIds.set(entry.key, stored.id);
  }

  const positions = new Map<number, number>();
  let kept = 0;
  body.dishes.forEach((dish, n) => {
    const categoryId = categoryIds.get(keyOfDish[n]!)!;
    const position = (positions.get(categoryId) ?? 0) + 1;
    positions.set(categoryId, position);
    const previous = dish.external_id !== undefined ? dishByExternalId.get(dish.external_id) : undefined;
    const fields = dishRecord({
      // Fields the import does not carry keep their value on a kept dish and take their defaults on a new one.
      is_hidden: previous?.is_hidden,
      ingredients: previous?.ingredients,
      can_zoom: previous?.can_zoom,
      is_next_day: previous?.is_next_day,
      photo:
        fetchedPhoto(dish.remote_photo_url) !== undefined
          ? dishPhoto(runtime, fetchedPhoto(dish.remote_photo_url)!)
          : previous?.photo,
      name: dish.name,
      description: dish.description ?? '',
      menu_order: dish.menu_order ?? position,
      price: normalizePrice(dish.price)!,
      weight: normalizeWeight(dish.weight) ?? null,
      external_id: dish.external_id ?? null,
      options: dish.modifiers ?? null,
      draft_category_id: categoryId,
      organization_id: organizationId,
      availability: fullAvailability(state, organizationId, dish.availability),
      remote_photo_url: dish.remote_photo_url ?? null,
    });
    const stored = previous ? state.draftDishes.put({ ...fields, id: previous.id }) : state.draftDishes.insert(fields);
    if (previous) kept++;
    adoptPhoto(runtime, fetchedPhoto(dish.remote_photo_url), 'draft_dish', stored.id);
  });
  for (const entry of planned) {
    adoptPhoto(runtime, fetchedPhoto(entry.record.remote_photo_url), 'draft_category', categoryIds.get(entry.key)!);
  }

  const publish = body.config?.publish_menu === true;
  if (publish) publishOrganizationMenu(runtime, organizationId);
  const keptText = destroy ? 'the previous menu was destroyed' : `${kept} dish(es) kept their ids`;
  const remote = remotePhotoUrls(body).length;
  const fetched = Object.keys(remotePhotos).length;
  const photos =
    remote > 0
      ? ` ${fetched} of ${remote} remote photo(s) fetched; ${remote - fetched === 0 ? 'every URL is' : 'the URLs that could not be fetched are'} recorded on the drafts.${refusedText(job.options.remote_photos_refused)}`
      : '';
  return `Imported ${planned.length} categories and ${body.dishes.length} dishes (${keptText}); ${publish ? 'menu published.' : 'publish the menu to put it on sale.'}${photos}`;
}

registerImportKind('menu', {
  apply: applyMenuImport,
  count: (payload) => (payload as MenuImportBody).dishes.length,
  noun: 'dishes',
  title: 'menu import',
});

/** How many reasons the job message lists; the rest are counted (the message must stay readable). */
const LISTED_REASONS = 5;

/** The reasons why remote photos were not fetched, for the job message: the first few, then a count. */
function refusedText(refused: Record<string, string> | undefined): string {
  const entries = Object.entries(refused ?? {});
  if (entries.length === 0) return '';
  const listed = entries.slice(0, LISTED_REASONS).map(([url, reason]) => `${url}: ${reason}`);
  const more = entries.length > LISTED_REASONS ? `; and ${entries.length - LISTED_REASONS} more` : '';
  return ` Not fetched: ${listed.join('; ')}${more}.`;
}

/** Gives a fetched remote photo to the draft that now shows it (the photo route serves it by owner). */
function adoptPhoto(
  runtime: MockRuntime,
  photoId: number | undefined,
  owner: 'draft_dish' | 'draft_category',
  ownerId: number,
): void {
  if (photoId === undefined) return;
  const photo = runtime.state.photos.get(photoId);
  if (photo) runtime.state.photos.put({ ...photo, owner, owner_id: ownerId });
}
