import type { components } from '@restoapi/openapi';
import { created, noContent, ok, type HandlerMap } from '../engine/handler.js';
import { forbidden, notFound, unprocessable, type FieldProblem } from '../engine/http-error.js';
import type { MockRuntime } from '../engine/runtime.js';
import { organizationRows } from '../model/access.js';
import { Money } from '../model/money.js';
import { notEditableProblems } from '../model/editability.js';
import { seesOrganization, seesRestaurant, type Actor } from '../session/actor.js';
import { parseZoneArea, type ZoneAreaResult } from './polygon-area.js';
import { isValidTimeZone, timetableErrors } from './timetable.js';
import { indexZone, unindexZone, type DeliveryZone } from './zone-lookup.js';

type S = components['schemas'];
type Timetable = S['Timetable'];
type TimetableInput = S['TimetableInput'];
type ZoneCreate = S['DeliveryZoneCreate'];
type ZoneUpdate = S['DeliveryZoneUpdate'];

/**
 * Whether the account may see a zone: a dispatcher every zone, a staff member the zones of the
 * restaurants it handles (all of its organization for an administrator), a courier its organization's.
 */
export function seesZone(actor: Actor, zone: DeliveryZone): boolean {
  if (actor.type === 'staff_member') return seesRestaurant(actor, zone.restaurant_id);
  return seesOrganization(actor, zone.organization_id);
}

function visibleZone(runtime: MockRuntime, actor: Actor, id: number): DeliveryZone {
  const zone = runtime.state.deliveryZones.get(id);
  if (!zone || !seesZone(actor, zone)) throw notFound('Delivery zone', id);
  return zone;
}

function requireZoneEditor(actor: Actor): void {
  if (actor.type !== 'staff_member') {
    throw forbidden(
      `A ${actor.type.replace('_', ' ')} account may only read delivery zones; staff members of the organization edit them.`,
    );
  }
}

/** Checks the restaurant a zone is (re)assigned to: a restaurant of the zone's organization that the caller handles. */
function restaurantProblems(
  runtime: MockRuntime,
  actor: Actor,
  organizationId: number,
  restaurantId: number,
): FieldProblem[] {
  const restaurant = runtime.state.restaurants.get(restaurantId);
  if (!restaurant || restaurant.organization_id !== organizationId) {
    return [
      {
        pointer: '/restaurant_id',
        code: 'invalid_value',
        detail: `Restaurant ${restaurantId} is not a restaurant of organization ${organizationId}.`,
      },
    ];
  }
  if (!seesRestaurant(actor, restaurantId)) {
    return [
      {
        pointer: '/restaurant_id',
        code: 'invalid_value',
        detail: `Restaurant ${restaurantId} is not one of the restaurants this account manages.`,
      },
    ];
  }
  return [];
}

function areaProblems(area: string | null | undefined): { problems: FieldProblem[]; parsed?: ZoneAreaResult } {
  if (area === undefined || area === null) return { problems: [] };
  const parsed = parseZoneArea(area);
  if (parsed.ok) return { problems: [], parsed };
  return {
    problems: [
      { pointer: '/area', code: 'invalid_geometry', detail: `The area must be a simple polygon: ${parsed.reason}.` },
    ],
  };
}

function timezoneProblems(timezone: string | undefined): FieldProblem[] {
  if (timezone === undefined || isValidTimeZone(timezone)) return [];
  return [
    {
      pointer: '/timezone',
      code: 'invalid_value',
      detail: `"${timezone}" is not an IANA time zone name such as "Europe/Berlin".`,
    },
  ];
}

// Money is a JSON number in the document without `multipleOf` (binary floats), so cents are checked here.
function moneyProblems(
  body: Partial<Record<'price' | 'free_delivery_price' | 'minimal_order_price', number | null>>,
): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const field of ['price', 'free_delivery_price', 'minimal_order_price'] as const) {
    const value = body[field];
    if (value === undefined || value === null) continue;
    if (!Money.parse(value))
      problems.push({
        pointer: `/${field}`,
        code: 'invalid_value',
        detail: `${field} must be an amount with at most two decimals, got ${value}.`,
      });
  }
  return problems;
}

/** ISO weekday (1 = Monday … 7 = Sunday) of a `YYYY-MM-DD` date. */
function isoWeekdayOf(date: string): number {
  const day = new Date(`${date}T00:00:00Z`).getUTCDay();
  return day === 0 ? 7 : day;
}

/**
 * Validates a `timetables` list and gives every entry its id: entries carrying the id of one of the
 * zone's current entries keep it (update only), new entries get fresh ids. Pointers are absolute.
 */
function buildTimetables(
  runtime: MockRuntime,
  entries: readonly TimetableInput[],
  currentIds: ReadonlySet<number>,
): { problems: FieldProblem[]; timetables: Timetable[] } {
  const problems: FieldProblem[] = [];
  const normalised = entries.map((entry) => ({
    ...entry,
    date: entry.date ?? null,
    is_working: entry.is_working ?? true,
  }));
  for (const problem of timetableErrors(normalised)) {
    problems.push({ pointer: `/timetables${problem.pointer}`, code: 'invalid_value', detail: problem.detail });
  }
  const kept = new Set<number>();
  normalised.forEach((entry, index) => {
    if (entry.date && isoWeekdayOf(entry.date) !== entry.day) {
      problems.push({
        pointer: `/timetables/${index}/day`,
        code: 'invalid_value',
        detail: `day must be the ISO weekday of date ${entry.date} (${isoWeekdayOf(entry.date)}), got ${entry.day}.`,
      });
    }
    if (entry.id === undefined) return;
    if (!currentIds.has(entry.id)) {
      problems.push({
        pointer: `/timetables/${index}/id`,
        code: 'not_editable',
        detail:
          currentIds.size === 0
            ? 'A new timetable entry gets its id from the service; leave id out.'
            : `${entry.id} is not the id of one of this zone's timetable entries; leave id out for a new entry.`,
      });
    } else if (kept.has(entry.id)) {
      problems.push({
        pointer: `/timetables/${index}/id`,
        code: 'invalid_value',
        detail: `Timetable entry ${entry.id} is sent twice.`,
      });
    } else {
      kept.add(entry.id);
    }
  });
  if (problems.length > 0) return { problems, timetables: [] };
  // Entry ids are unique across zones, like every record id, so take them past the largest in use.
  let nextId = 1;
  for (const zone of runtime.state.deliveryZones.all())
    for (const entry of zone.timetables) nextId = Math.max(nextId, entry.id + 1);
  const timetables = normalised.map((entry) => ({
    id: entry.id ?? nextId++,
    day: entry.day,
    open_at: entry.open_at,
    close_at: entry.close_at,
    date: entry.date,
    is_working: entry.is_working,
  }));
  return { problems, timetables };
}

/** The stored (and returned) zone, with its fields always in the document's order. */
function zoneRecord(zone: DeliveryZone): DeliveryZone {
  return {
    id: zone.id,
    name: zone.name,
    delivery_time: zone.delivery_time,
    price: zone.price,
    timezone: zone.timezone,
    free_delivery_count: zone.free_delivery_count,
    free_delivery_price: zone.free_delivery_price,
    minimal_order_price: zone.minimal_order_price,
    area: zone.area,
    restaurant_id: zone.restaurant_id,
    organization_id: zone.organization_id,
    timetables: zone.timetables,
  };
}

/** `/api/delivery_zones…`: list, read, create, update and delete delivery zones (Endpoints > Delivery zones). */
export const zoneHandlers: HandlerMap = {
  listDeliveryZones({ runtime, actor, query }) {
    const zones = organizationRows(runtime.state.deliveryZones, actor, query.organization_id)
      .filter((zone) => seesZone(actor, zone))
      .sort((a, b) => a.id - b.id);
    return ok({ delivery_zones: zones, meta: { count: zones.length, total: zones.length } });
  },

  getDeliveryZone({ runtime, actor, params }) {
    return ok(visibleZone(runtime, actor, params.id));
  },

  createDeliveryZone({ runtime, actor, body }) {
    requireZoneEditor(actor);
    const input = body as ZoneCreate;
    const problems: FieldProblem[] = [];
    const organization = runtime.state.organizations.get(input.organization_id);
    if (!organization || !seesOrganization(actor, input.organization_id)) {
      // Out of scope reads like missing, but on create it is a field of the body, hence 422 and not 404.
      problems.push({
        pointer: '/organization_id',
        code: 'invalid_value',
        detail: `Organization ${input.organization_id} does not exist or is not visible to this account.`,
      });
    } else {
      problems.push(...restaurantProblems(runtime, actor, input.organization_id, input.restaurant_id));
    }
    const area = areaProblems(input.area);
    problems.push(...area.problems, ...timezoneProblems(input.timezone), ...moneyProblems(input));
    const timetables = buildTimetables(runtime, input.timetables ?? [], new Set());
    problems.push(...timetables.problems);
    if (problems.length > 0) throw unprocessable(problems);

    const zone = runtime.state.deliveryZones.insert(
      zoneRecord({
        id: 0,
        name: input.name,
        delivery_time: input.delivery_time ?? 60,
        price: input.price ?? 0,
        timezone: input.timezone ?? 'UTC',
        free_delivery_count: input.free_delivery_count ?? null,
        free_delivery_price: input.free_delivery_price ?? null,
        minimal_order_price: input.minimal_order_price ?? null,
        area: input.area ?? null,
        restaurant_id: input.restaurant_id,
        organization_id: input.organization_id,
        timetables: timetables.timetables,
      }),
    );
    indexZone(runtime, zone, area.parsed);
    return created(zone, `/api/delivery_zones/${zone.id}`);
  },

  updateDeliveryZone({ runtime, actor, params, body }) {
    const zone = visibleZone(runtime, actor, params.id);
    requireZoneEditor(actor);
    const input = body as ZoneUpdate;
    const problems = notEditableProblems(
      '',
      input as Record<string, unknown>,
      zone as unknown as Record<string, unknown>,
      ['id', 'organization_id'],
    );
    if (input.restaurant_id !== undefined)
      problems.push(...restaurantProblems(runtime, actor, zone.organization_id, input.restaurant_id));
    const area = areaProblems(input.area);
    problems.push(...area.problems, ...timezoneProblems(input.timezone), ...moneyProblems(input));
    const timetables =
      input.timetables === undefined
        ? undefined
        : buildTimetables(runtime, input.timetables, new Set(zone.timetables.map((entry) => entry.id)));
    if (timetables) problems.push(...timetables.problems);
    if (problems.length > 0) throw unprocessable(problems);

    const updated = zoneRecord({
      ...zone,
      ...(input.name !== undefined ? { name: input.name } : {}),
      ...(input.delivery_time !== undefined ? { delivery_time: input.delivery_time } : {}),
      ...(input.price !== undefined ? { price: input.price } : {}),
      ...(input.timezone !== undefined ? { timezone: input.timezone } : {}),
      ...(input.free_delivery_count !== undefined ? { free_delivery_count: input.free_delivery_count } : {}),
      ...(input.free_delivery_price !== undefined ? { free_delivery_price: input.free_delivery_price } : {}),
      ...(input.minimal_order_price !== undefined ? { minimal_order_price: input.minimal_order_price } : {}),
      ...(input.area !== undefined ? { area: input.area } : {}),
      ...(input.restaurant_id !== undefined ? { restaurant_id: input.restaurant_id } : {}),
      ...(timetables ? { timetables: timetables.timetables } : {}),
    });
    runtime.state.deliveryZones.put(updated);
    indexZone(runtime, updated, area.parsed);
    return ok(updated);
  },

  deleteDeliveryZone({ runtime, actor, params }) {
    const zone = visibleZone(runtime, actor, params.id);
    requireZoneEditor(actor);
    // Orders placed in the zone keep their restaurant; only new orders stop reaching it.
    runtime.state.deliveryZones.delete(zone.id);
    unindexZone(runtime, zone.id);
    return noContent();
  },
};
