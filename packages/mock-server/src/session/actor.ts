import type { components } from '@restoapi/openapi';
import type { HeaderReader } from '../engine/engine-request.js';
import { forbidden, notFound, unauthenticated } from '../engine/http-error.js';
import type { MockRuntime } from '../engine/runtime.js';
import type { Courier, StaffMember } from '../generated/fixture.js';
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

/** `Token token="…"`, the token in its first group. */
const TOKEN = /^Token\s+token="?([^",\s]+)"?\s*$/i;
/** The last Authorization header read and its token (see {@link readToken}). */
let lastHeader: { header: string; token: string | undefined } = { header: '', token: undefined };

/** Reads the token from `Authorization: Token token="…"` or the `token` query parameter (Authentication 3). */
export function readToken(request: { headers: HeaderReader }, url: URL): string | undefined {
  const header = request.headers.get('authorization');
  if (header) {
    // A client sends the same header on every request: the last one read is answered without matching it again.
    if (header !== lastHeader.header) lastHeader = { header, token: TOKEN.exec(header.trim())?.[1] };
    return lastHeader.token;
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
  const known = session && LAST_USED.get(session);
  if (!session || session.ended_at || lastUsedMs(session, known) + runtime.config.tokenTtlMs < now) {
    throw unauthenticated();
  }
  const apiUser = runtime.state.apiUsers.get(session.api_user_id);
  if (!apiUser) throw unauthenticated();
  // `runtime.nowIso()` of the instant just read, spelled out so that the instant written is known without
  // parsing it back; the remembered instant is updated in place (a new one per request was garbage).
  session.last_used_at = isoOf(now);
  if (known !== undefined) {
    known.text = session.last_used_at;
    known.ms = now;
  } else LAST_USED.set(session, { text: session.last_used_at, ms: now });
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

function lastUsedMs(session: SessionRecord, known: { text: string; ms: number } | undefined): number {
  return known !== undefined && known.text === session.last_used_at ? known.ms : Date.parse(session.last_used_at);
}

/** The scope of a staff member or courier account: what {@link actorFor} hands every request of it. */
interface Scope {
  organizationIds: ReadonlySet<number>;
  restaurantIds: ReadonlySet<number>;
}

/**
 * Scopes worked out, by the staff member or courier record they belong to, with the restaurants table and
 * revision they were read from: every request of a staff member used to scan all restaurants and build two
 * sets. A new record object (every write replaces it), another restaurants table (a state reset or load) or
 * a write to the restaurants makes the remembered scope stale, and it is worked out again.
 */
const SCOPES = new WeakMap<object, { restaurants: object; revision: number; scope: Scope }>();

function scopeOf<R extends object>(
  runtime: MockRuntime,
  record: R,
  organizationId: number,
  restaurantIdsOf: (runtime: MockRuntime, record: R) => readonly number[],
): Scope {
  const { restaurants } = runtime.state;
  const known = SCOPES.get(record);
  if (known !== undefined && known.restaurants === restaurants && known.revision === restaurants.revision)
    return known.scope;
  const scope: Scope = {
    organizationIds: new Set([organizationId]),
    restaurantIds: new Set(restaurantIdsOf(runtime, record)),
  };
  SCOPES.set(record, { restaurants, revision: restaurants.revision, scope });
  return scope;
}

function restaurantsOf(runtime: MockRuntime, organizationId: number): number[] {
  return runtime.state.restaurants.filter((r) => r.organization_id === organizationId).map((r) => r.id);
}

// Top-level, handed to `scopeOf`: a closure made on every request (to be called only when the scope is not
// remembered, which is rare) cost an allocation each time.
function staffRestaurants(runtime: MockRuntime, staffMember: StaffMember): readonly number[] {
  return staffMember.role === 'administrator'
    ? restaurantsOf(runtime, staffMember.organization_id)
    : staffMember.restaurant_ids;
}

function courierRestaurants(runtime: MockRuntime, courier: Courier): readonly number[] {
  return restaurantsOf(runtime, courier.organization_id);
}

/** Builds the scope of an API user's account. */
export function actorFor(runtime: MockRuntime, apiUser: ApiUserRecord, session: SessionRecord): Actor {
  const { type, id } = apiUser.account;
  const { state } = runtime;
  if (type === 'dispatcher') return { type, apiUser, session, organizationIds: 'all', restaurantIds: 'all' };
  if (type === 'staff_member') {
    const staffMember = state.staffMembers.get(id);
    if (!staffMember) throw unauthenticated();
    const { organizationIds, restaurantIds } = scopeOf(
      runtime,
      staffMember,
      staffMember.organization_id,
      staffRestaurants,
    );
    return { type, apiUser, session, staffMember, organizationIds, restaurantIds };
  }
  const courier = state.couriers.get(id);
  if (!courier) throw unauthenticated();
  const { organizationIds, restaurantIds } = scopeOf(runtime, courier, courier.organization_id, courierRestaurants);
  return { type, apiUser, session, courierId: courier.id, organizationIds, restaurantIds };
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
