import type { components } from '@restoapi/openapi';
import { ok, type HandlerMap } from '../engine/handler.js';
import { notFound, unprocessable } from '../engine/http-error.js';
import { publishOrganizationMenu } from '../menu/publish.js';
import { requireStaffOf, seesOrganization, type Actor } from '../session/actor.js';
import type { MockStateTables } from '../state/mock-state.js';
import { notEditableProblems } from '../model/editability.js';

type Organization = components['schemas']['Organization'];

/** Fields of an organization the spec marks as not editable (Resources and their fields > Organization). */
const NOT_EDITABLE = ['id', 'host', 'accept_cashless'] as const;

/** The organization, or the documented 404 when it is missing or outside the caller's scope. */
export function visibleOrganization(state: MockStateTables, actor: Actor, id: number): Organization {
  const organization = state.organizations.get(id);
  if (!organization || !seesOrganization(actor, id)) throw notFound('Organization', id);
  return organization;
}

/**
 * The organization for a write by a staff member of it: 404 when missing or out
 * of scope (checked first, so a dispatcher cannot probe ids), 403 for dispatchers and couriers.
 */
export function organizationForStaff(state: MockStateTables, actor: Actor, id: number): Organization {
  const organization = visibleOrganization(state, actor, id);
  requireStaffOf(actor, id, 'Organization', id);
  return organization;
}

/** `GET/PUT /api/organizations…` and `POST /api/organizations/{id}/publish` (Endpoints > Organizations). */
export const organizationHandlers: HandlerMap = {
  listOrganizations({ runtime, actor }) {
    const organizations = runtime.state.organizations
      .filter((org) => seesOrganization(actor, org.id))
      .sort((a, b) => a.id - b.id);
    return ok({ organizations, meta: { count: organizations.length, total: organizations.length } });
  },

  getOrganization({ runtime, actor, params }) {
    return ok({ organization: visibleOrganization(runtime.state, actor, params.id) });
  },

  updateOrganization({ runtime, actor, params, body }) {
    const organization = organizationForStaff(runtime.state, actor, params.id);
    const sent = body.organization as Partial<Organization>;
    const problems = notEditableProblems('/organization', sent, organization, NOT_EDITABLE);
    if (problems.length > 0) throw unprocessable(problems);
    const next: Organization = { ...organization };
    if (sent.name !== undefined) next.name = sent.name;
    // The sent object replaces the whole set of links (decided: no merge rule).
    if (sent.social_network !== undefined) next.social_network = { ...sent.social_network };
    if (sent.about !== undefined) next.about = sent.about;
    if (sent.phone !== undefined) next.phone = sent.phone;
    runtime.state.organizations.put(next);
    return ok({ organization: next });
  },

  publishMenu({ runtime, actor, params }) {
    organizationForStaff(runtime.state, actor, params.id);
    const menu = publishOrganizationMenu(runtime, params.id);
    return ok({
      menu: {
        organization_id: menu.organization_id,
        version: menu.version,
        published_at: menu.published_at,
        category_count: menu.categories.length,
        dish_count: menu.dishes.length,
      },
    });
  },
};
