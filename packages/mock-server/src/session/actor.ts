import type { components } from '@restoapi/sdk';
import { forbidden, notFound, unauthenticated } from '../engine/http-error.js';
import type { MockRuntime } from '../engine/runtime.js';
import type { ApiUserRecord, SessionRecord } from '../state/mock-state.js';

/** The three account types of the spec (Authentication 5). */
export type AccountType = components['schemas']['AccountType'];

/** The signed-in account and what it may see. */
export interface Actor {
  type: AccountType;
  apiUser: ApiUserRecord;
  session: SessionRecord;
  /** Organizations visible to the account; `'all'` for a dispatcher. */
  organizationIds: ReadonlySet<number> | 'all';
  /** Restaurants whose orders the account handles; `'all'` for a dispatcher. */
  restaurantIds: ReadonlySet<number> | 'all';
  staffMember?: components['schemas']['StaffMember'];
  /** The courier id, for a courier account. */
  courierId?: number;
}

/** Reads the token from `Authorization: Token token="…"` or the `token` query parameter (Authentication 3). */
export function readToken(request: Request, url: URL): string | undefined {
  const header = request.headers.get('authorization');
  if (header) {
    const match = /^Token\s+token="?([^",\s]+)"?\s*$/i.exec(header.trim());
    return match?.[1];
  }
  return url.searchParams.get('token') ?? undefined;
}

/** Resolves the caller's session, or throws the documented 401. */
export function authenticate(runtime: MockRuntime, request: Request, url: URL): Actor {
  const token = readToken(request, url);
  if (!token) throw unauthenticated();
  const session = runtime.state.sessions.find((s) => s.token === token);
  const now = runtime.clock.nowMs();
  if (!session || session.ended_at || Date.parse(session.last_used_at) + runtime.config.tokenTtlMs < now) {
    throw unauthenticated();
  }
  const apiUser = runtime.state.apiUsers.get(session.api_user_id);
  if (!apiUser) throw unauthenticated();
  session.last_used_at = runtime.nowIso();
  return actorFor(runtime, apiUser, session);
}

/** Builds the scope of an API user's account. */
export function actorFor(runtime: MockRuntime, apiUser: ApiUserRecord, session: SessionRecord): Actor {
  const { type, id } = apiUser.account;
  const { state } = runtime;
  if (type === 'dispatcher') return { type, apiUser, session, organizationIds: 'all', restaurantIds: 'all' };
  if (type === 'staff_member') {
    const staffMember = state.staffMembers.get(id);
    if (!staffMember) throw unauthenticated();
    const orgRestaurants = state.restaurants.filter((r) => r.organization_id === staffMember.organization_id).map((r) => r.id);
    const restaurantIds = staffMember.role === 'administrator' ? orgRestaurants : staffMember.restaurant_ids;
    return {
      type,
      apiUser,
      session,
      staffMember,
      organizationIds: new Set([staffMember.organization_id]),
      restaurantIds: new Set(restaurantIds),
    };
  }
  const courier = state.couriers.get(id);
  if (!courier) throw unauthenticated();
  const restaurants = state.restaurants.filter((r) => r.organization_id === courier.organization_id).map((r) => r.id);
  return {
    type,
    apiUser,
    session,
    courierId: courier.id,
    organizationIds: new Set([courier.organization_id]),
    restaurantIds: new Set(restaurants),
  };
}

/** Whether the account can see an organization's records. */
export function seesOrganization(actor: Actor, organizationId: number): boolean {
  return actor.organizationIds === 'all' || actor.organizationIds.has(organizationId);
}

/** Whether the account handles a restaurant. */
export function seesRestaurant(actor: Actor, restaurantId: number): boolean {
  return actor.restaurantIds === 'all' || actor.restaurantIds.has(restaurantId);
}

/**
 * Requires a staff member of the organization for a write (menus, zones, organization settings).
 * Out of scope is 404 (as if missing); a visible record and the wrong account type is 403.
 */
export function requireStaffOf(actor: Actor, organizationId: number, what: string, id: number | string): void {
  if (!seesOrganization(actor, organizationId)) throw notFound(what, id);
  if (actor.type !== 'staff_member') {
    throw forbidden(`A ${actor.type.replace('_', ' ')} account may not change ${what.toLowerCase()}s; only staff members of the organization may.`);
  }
}
