import type { components } from '@restoapi/openapi';
import type { HeaderReader } from '../engine/engine-request.js';
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
export function readToken(request: { headers: HeaderReader }, url: URL): string | undefined {
  const header = request.headers.get('authorization');
  if (header) {
    const match = /^Token\s+token="?([^",\s]+)"?\s*$/i.exec(header.trim());
    return match?.[1];
  }
  return url.searchParams.get('token') ?? undefined;
}

/** Resolves the caller's session, or throws the documented 401. */
export function authenticate(runtime: MockRuntime, request: { headers: HeaderReader }, url: URL): Actor {
  const token = readToken(request, url);
  if (!token) throw unauthenticated();
  // Every authenticated request looks its session up: through the token index, not a scan of all sessions.
  const session = runtime.state.sessions.findWhere('token', token);
  const now = runtime.clock.nowMs();
  if (!session || session.ended_at || lastUsedMs(session) + runtime.config.tokenTtlMs < now) {
    throw unauthenticated();
  }
  const apiUser = runtime.state.apiUsers.get(session.api_user_id);
  if (!apiUser) throw unauthenticated();
  // `runtime.nowIso()`, spelled out so that the instant written is known without parsing it back.
  const usedMs = runtime.clock.nowMs();
  session.last_used_at = isoOf(usedMs);
  LAST_USED.set(session, { text: session.last_used_at, ms: usedMs });
  return actorFor(runtime, apiUser, session);
}

/** The last instant formatted, with its text: requests come many to a millisecond. */
let lastIso = { ms: Number.NaN, text: '' };

/** `new Date(ms).toISOString()`, formatted once per millisecond. */
function isoOf(ms: number): string {
  if (lastIso.ms !== ms) lastIso = { ms, text: new Date(ms).toISOString() };
  return lastIso.text;
}

/**
 * The instant of each session's `last_used_at`, with the text it belongs to: every request writes the
 * field and the next one reads it, and parsing it back costs more than the rest of the lookup.
 */
const LAST_USED = new WeakMap<SessionRecord, { text: string; ms: number }>();

function lastUsedMs(session: SessionRecord): number {
  const known = LAST_USED.get(session);
  return known !== undefined && known.text === session.last_used_at ? known.ms : Date.parse(session.last_used_at);
}

/** Builds the scope of an API user's account. */
export function actorFor(runtime: MockRuntime, apiUser: ApiUserRecord, session: SessionRecord): Actor {
  const { type, id } = apiUser.account;
  const { state } = runtime;
  if (type === 'dispatcher') return { type, apiUser, session, organizationIds: 'all', restaurantIds: 'all' };
  if (type === 'staff_member') {
    const staffMember = state.staffMembers.get(id);
    if (!staffMember) throw unauthenticated();
    const orgRestaurants = state.restaurants
      .filter((r) => r.organization_id === staffMember.organization_id)
      .map((r) => r.id);
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
    throw forbidden(
      `A ${actor.type.replace('_', ' ')} account may not change ${what.toLowerCase()}s; only staff members of the organization may.`,
    );
  }
}
