import type { components } from '@restoapi/openapi';
import type { MockRuntime } from '../engine/runtime.js';
import { parseZoneArea, type ZoneAreaResult } from './polygon-area.js';
import { isZoneOpen } from './timetable.js';
import { ZoneIndex } from './zone-index.js';

export { isZoneOpen } from './timetable.js';

/** A delivery zone as stored and returned by the API. */
export type DeliveryZone = components['schemas']['DeliveryZone'];

interface IndexCache {
  index: ZoneIndex;
  /** The area text each zone id was indexed with (also for zones whose area could not be indexed). */
  areas: Map<number, string | null>;
}

// Keyed by the zones table, not the runtime: `loadState` swaps the tables, and a new table must never
// be answered from the index of the old one. The WeakMap lets a dropped state take its index with it.
const caches = new WeakMap<object, IndexCache>();

function cacheFor(runtime: MockRuntime): IndexCache {
  const table = runtime.state.deliveryZones;
  let cache = caches.get(table);
  if (!cache) {
    cache = { index: new ZoneIndex(), areas: new Map() };
    caches.set(table, cache);
  }
  return cache;
}

function place(cache: IndexCache, id: number, area: string | null, parsed?: ZoneAreaResult): void {
  cache.areas.set(id, area);
  const result = area === null ? undefined : (parsed ?? parseZoneArea(area));
  if (result?.ok) {
    const entry = { id, polygon: result.polygon, bbox: result.bbox };
    if (cache.index.has(id)) cache.index.update(entry);
    else cache.index.add(entry);
  } else {
    // A zone without an area (or with one the seed got wrong) covers no address.
    cache.index.remove(id);
  }
}

/**
 * The instance's spatial index of zone areas, brought up to date with the zones table first. Only areas
 * whose text changed since the last call are parsed again, so a call costs one pass over the zones (a
 * few hundred at most) and handlers, seeds or the control API may change zones without telling the index.
 */
export function zoneIndexFor(runtime: MockRuntime): ZoneIndex {
  const cache = cacheFor(runtime);
  const seen = new Set<number>();
  for (const zone of runtime.state.deliveryZones.all()) {
    seen.add(zone.id);
    const area = zone.area ?? null;
    if (!cache.areas.has(zone.id) || cache.areas.get(zone.id) !== area) place(cache, zone.id, area);
  }
  for (const id of [...cache.areas.keys()]) {
    if (!seen.has(id)) {
      cache.areas.delete(id);
      cache.index.remove(id);
    }
  }
  return cache.index;
}

/** Tells the index about a zone just written, reusing the area the handler already parsed. */
export function indexZone(runtime: MockRuntime, zone: DeliveryZone, parsed?: ZoneAreaResult): void {
  place(cacheFor(runtime), zone.id, zone.area ?? null, parsed);
}

/** Drops a deleted zone from the index. */
export function unindexZone(runtime: MockRuntime, zoneId: number): void {
  const cache = cacheFor(runtime);
  cache.areas.delete(zoneId);
  cache.index.remove(zoneId);
}

/**
 * Every zone whose area contains the point (`lon`, `lat`), ascending by id, limited to one organization
 * unless `organizationId` is null. A point on a border belongs to both neighbouring zones.
 */
export function findZonesForPoint(
  runtime: MockRuntime,
  organizationId: number | null,
  lon: number,
  lat: number,
): DeliveryZone[] {
  const zones: DeliveryZone[] = [];
  for (const id of zoneIndexFor(runtime).find(lon, lat)) {
    const zone = runtime.state.deliveryZones.get(id);
    if (zone && (organizationId === null || zone.organization_id === organizationId)) zones.push(zone);
  }
  return zones;
}

/**
 * The zone an order at (`lon`, `lat`) goes to: the zone containing the point, within one organization
 * unless `organizationId` is null; `undefined` when no zone covers it. Where zones overlap, the one with
 * the lowest id wins, so the same address always reaches the same restaurant.
 */
export function findZoneForPoint(
  runtime: MockRuntime,
  organizationId: number | null,
  lon: number,
  lat: number,
): DeliveryZone | undefined {
  return findZonesForPoint(runtime, organizationId, lon, lat)[0];
}

/**
 * Whether a zone takes orders at `at` by its timetable, read in its own time zone (an empty timetable is
 * always open). A zone whose stored timetable cannot be read counts as closed rather than failing the request.
 */
export function isDeliveryZoneOpen(zone: DeliveryZone, at: Date): boolean {
  try {
    return isZoneOpen(zone.timetables, zone.timezone, at);
  } catch {
    return false;
  }
}

/**
 * A point standing in for a zone when an order has no coordinates of its own: the centre of the zone's
 * bounding box (the zone's restaurant has no coordinates in the API). `undefined` for a zone without area.
 */
export function zoneCentre(zone: DeliveryZone): { lon: number; lat: number } | undefined {
  if (!zone.area) return undefined;
  const parsed = parseZoneArea(zone.area);
  if (!parsed.ok) return undefined;
  const [minLon, minLat, maxLon, maxLat] = parsed.bbox;
  // Rounded to 6 decimals (about 10 cm) so the WKT point stays short and free of float noise.
  const round = (value: number) => Math.round(value * 1e6) / 1e6;
  return { lon: round((minLon + maxLon) / 2), lat: round((minLat + maxLat) / 2) };
}
