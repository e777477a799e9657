import type { MockRuntime } from '../engine/runtime.js';
import type { PublishedMenuRecord } from '../state/mock-state.js';
import { categoryView, compareCategories, dishComparator } from './menu-views.js';
import { collectUnusedPhotos } from './photos.js';

/**
 * Publishes an organization's drafts (States and transitions, "menu drafts"):
 * the storefront menu becomes a snapshot of the current draft categories and
 * dishes, hidden dishes included (they stay hidden through `is_hidden`), so
 * drafts deleted since the last publication leave the storefront only now.
 * The version grows by one on every publication, also of an unchanged menu.
 */
export function publishOrganizationMenu(runtime: MockRuntime, organizationId: number): PublishedMenuRecord {
  const { state } = runtime;
  const previous = state.publishedMenus.get(organizationId);
  const categories = state.draftCategories
    .filter((category) => category.organization_id === organizationId)
    .sort(compareCategories)
    .map((category) => categoryView(state, category));
  // A deep copy: later draft edits must not reach the published snapshot.
  const dishes = structuredClone(
    state.draftDishes.filter((dish) => dish.organization_id === organizationId).sort(dishComparator(state)),
  );
  const menu: PublishedMenuRecord = {
    id: organizationId,
    organization_id: organizationId,
    version: (previous?.version ?? 0) + 1,
    published_at: runtime.nowIso(),
    categories,
    dishes,
  };
  state.publishedMenus.put(menu);
  collectUnusedPhotos(runtime);
  return menu;
}
