import { wktToGeoJSON } from '@terraformer/wkt';
import { kinks } from '@turf/kinks';
import type { Polygon, Position } from 'geojson';

/** Bounding box of an area: `[minLon, minLat, maxLon, maxLat]`. */
export type BBox = [minLon: number, minLat: number, maxLon: number, maxLat: number];

/** Outcome of {@link parseZoneArea}: the validated polygon, or why the area was refused. */
export type ZoneAreaResult = { ok: true; polygon: Polygon; bbox: BBox } | { ok: false; reason: string };

/** Outcome of {@link parsePoint}. */
export type PointResult = { ok: true; lon: number; lat: number } | { ok: false; reason: string };

/**
 * Most positions a zone ring may have. Self-intersection checks compare every pair of edges, so an
 * unbounded ring would let one request burn seconds of CPU; hand-drawn delivery zones stay far below this.
 */
export const MAX_AREA_POSITIONS = 2000;

const EXPECTED_SHAPE =
  'expected POLYGON((lon lat, lon lat, lon lat, lon lat)) with the first point repeated at the end';

/**
 * Validates a delivery-zone area given as WKT: a single `POLYGON` ring (no holes, no multi-part
 * geometry), explicitly closed, at least 3 distinct points, lon/lat in range, no zero-length edges,
 * a non-zero surface and no self-intersection or self-touching. Either winding order is accepted.
 */
export function parseZoneArea(wkt: string): ZoneAreaResult {
  const parsed = parseWkt(wkt);
  if (!parsed.ok) return parsed;
  const geometry = parsed.geometry;

  if (
    geometry.type === 'MultiPolygon' ||
    geometry.type === 'GeometryCollection' ||
    geometry.type === 'MultiPoint' ||
    geometry.type === 'MultiLineString'
  ) {
    return refuse(`area is multi-part (${wktName(geometry.type)}): a delivery zone must be a single POLYGON`);
  }
  if (geometry.type !== 'Polygon') {
    return refuse(`area must be a POLYGON, got ${wktName(geometry.type)}`);
  }
  if (hasExtraDimensions(geometry)) {
    return refuse('area must be 2-D: each point is "lon lat", without Z or M values');
  }
  const rings = geometry.coordinates;
  if (rings.length === 0) return refuse('area is POLYGON EMPTY: a delivery zone needs at least 3 distinct points');
  if (rings.length > 1) {
    return refuse(
      `area is multi-part: it has ${rings.length} rings, but a delivery zone must be a single ring without holes`,
    );
  }
  const ring = rings[0] as Position[];
  if (ring.length > MAX_AREA_POSITIONS) {
    return refuse(`area has ${ring.length} points, more than the ${MAX_AREA_POSITIONS} allowed`);
  }
  for (let i = 0; i < ring.length; i++) {
    const position = ring[i] as Position;
    if (position.length !== 2) return refuse('area must be 2-D: each point is "lon lat", without Z or M values');
    const [lon, lat] = position as [number, number];
    if (!isLongitude(lon) || !isLatitude(lat)) {
      return refuse(
        `point ${i + 1} (${fmt(position)}) is out of range: longitude must be within -180..180 and latitude within -90..90`,
      );
    }
  }
  const first = ring[0] as Position;
  const last = ring[ring.length - 1] as Position;
  // Check closure before counting: an unclosed triangle should hear about closure, not about point counts.
  if (ring.length >= 2 && !samePoint(first, last)) {
    return refuse(`area is not a closed ring: the first point (${fmt(first)}) differs from the last (${fmt(last)})`);
  }
  if (ring.length < 4) {
    return refuse(
      `area has ${ring.length} point(s) but needs at least 4: 3 distinct points plus the first point repeated at the end`,
    );
  }
  for (let i = 0; i + 1 < ring.length; i++) {
    if (samePoint(ring[i] as Position, ring[i + 1] as Position)) {
      return refuse(
        `points ${i + 1} and ${i + 2} are both (${fmt(ring[i] as Position)}): an edge must not have zero length`,
      );
    }
  }
  const crossing = kinks(geometry).features[0];
  if (crossing) {
    return refuse(`area intersects itself at (${fmt(crossing.geometry.coordinates)}): it must be a simple polygon`);
  }
  if (signedArea(ring) === 0) {
    return refuse('area encloses no surface: its points lie on a single line');
  }
  const overlap = findCollinearOverlap(ring);
  if (overlap) {
    return refuse(
      `area runs back over itself along the edge from (${fmt(overlap[0])}) to (${fmt(overlap[1])}): it must be a simple polygon`,
    );
  }
  return {
    ok: true,
    polygon: { type: 'Polygon', coordinates: [ring.map((p) => [p[0] as number, p[1] as number])] },
    bbox: bboxOf(ring),
  };
}

/** Parses a WKT `POINT(lon lat)`, checking that both coordinates are in range. */
export function parsePoint(wkt: string): PointResult {
  const parsed = parseWkt(wkt, 'POINT(lon lat)');
  if (!parsed.ok) return parsed;
  const geometry = parsed.geometry;
  if (geometry.type !== 'Point') return refuse(`expected a POINT, got ${wktName(geometry.type)}`);
  if (geometry.coordinates.length === 0) return refuse('POINT EMPTY has no coordinates: expected POINT(lon lat)');
  if (geometry.coordinates.length !== 2 || hasExtraDimensions(geometry)) {
    return refuse('point must be 2-D: POINT(lon lat), without Z or M values');
  }
  const [lon, lat] = geometry.coordinates as [number, number];
  if (!isLongitude(lon) || !isLatitude(lat)) {
    return refuse(
      `point (${lon} ${lat}) is out of range: longitude must be within -180..180 and latitude within -90..90`,
    );
  }
  return { ok: true, lon, lat };
}

/**
 * Formats a WKT point, longitude first. Without `fractionDigits` each number keeps its shortest exact
 * form (13.431); with it, a fixed number of decimals (`POINT(13.4310 52.4975)`). Never uses exponents,
 * which some WKT readers refuse. Throws a `RangeError` for coordinates out of range.
 */
export function formatPoint(lon: number, lat: number, fractionDigits?: number): string {
  if (!isLongitude(lon) || !isLatitude(lat)) {
    throw new RangeError(`coordinates out of range: longitude ${lon}, latitude ${lat}`);
  }
  return `POINT(${formatCoordinate(lon, fractionDigits)} ${formatCoordinate(lat, fractionDigits)})`;
}

type ParsedGeometry = ReturnType<typeof wktToGeoJSON>;

function parseWkt(
  wkt: string,
  expected = EXPECTED_SHAPE,
): { ok: true; geometry: ParsedGeometry } | { ok: false; reason: string } {
  if (typeof wkt !== 'string' || wkt.trim() === '') return refuse(`value is empty: ${expected}`);
  try {
    // WKT keywords are case-insensitive by the standard, the parser only knows upper case.
    return { ok: true, geometry: wktToGeoJSON(wkt.trim().toUpperCase()) };
  } catch {
    // The parser's own message is a multi-line jison trace, useless to an API client.
    return refuse(`value is not well-formed WKT: ${expected}`);
  }
}

function refuse(reason: string): { ok: false; reason: string } {
  return { ok: false, reason };
}

function wktName(type: string): string {
  return type.toUpperCase();
}

function hasExtraDimensions(geometry: ParsedGeometry): boolean {
  return Boolean(geometry.properties?.z || geometry.properties?.m);
}

function isLongitude(value: number): boolean {
  return Number.isFinite(value) && value >= -180 && value <= 180;
}

function isLatitude(value: number): boolean {
  return Number.isFinite(value) && value >= -90 && value <= 90;
}

function samePoint(a: Position, b: Position): boolean {
  return a[0] === b[0] && a[1] === b[1];
}

function fmt(position: Position): string {
  return `${position[0]} ${position[1]}`;
}

function formatCoordinate(value: number, fractionDigits: number | undefined): string {
  let text = fractionDigits === undefined ? String(value) : value.toFixed(fractionDigits);
  if (text.includes('e')) text = value.toFixed(20).replace(/\.?0+$/, '');
  return Number(text) === 0 ? text.replace(/^-/, '') : text;
}

function bboxOf(ring: Position[]): BBox {
  let minLon = Infinity;
  let minLat = Infinity;
  let maxLon = -Infinity;
  let maxLat = -Infinity;
  for (const [lon, lat] of ring as [number, number][]) {
    minLon = Math.min(minLon, lon);
    maxLon = Math.max(maxLon, lon);
    minLat = Math.min(minLat, lat);
    maxLat = Math.max(maxLat, lat);
  }
  return [minLon, minLat, maxLon, maxLat];
}

// Planar shoelace area in degrees²: only its sign and zero-ness matter here, not its size.
function signedArea(ring: Position[]): number {
  let sum = 0;
  for (let i = 0; i + 1 < ring.length; i++) {
    const [x1, y1] = ring[i] as [number, number];
    const [x2, y2] = ring[i + 1] as [number, number];
    sum += x1 * y2 - x2 * y1;
  }
  return sum / 2;
}

/**
 * @turf/kinks skips parallel edges, so a ring that doubles back on itself (a spike) or runs along one
 * of its own edges passes it. This catches collinear edges that share more than their common vertex.
 */
function findCollinearOverlap(ring: Position[]): [Position, Position] | undefined {
  const edges = ring.length - 1;
  for (let i = 0; i < edges; i++) {
    const a = ring[i] as [number, number];
    const b = ring[i + 1] as [number, number];
    for (let j = i + 1; j < edges; j++) {
      const c = ring[j] as [number, number];
      const d = ring[j + 1] as [number, number];
      if (cross(a, b, c) !== 0 || cross(a, b, d) !== 0) continue;
      const adjacent = j === i + 1 || (i === 0 && j === edges - 1);
      const dx = b[0] - a[0];
      const dy = b[1] - a[1];
      const length2 = dx * dx + dy * dy;
      const tc = ((c[0] - a[0]) * dx + (c[1] - a[1]) * dy) / length2;
      const td = ((d[0] - a[0]) * dx + (d[1] - a[1]) * dy) / length2;
      const overlap = Math.min(1, Math.max(tc, td)) - Math.max(0, Math.min(tc, td));
      // Adjacent edges always share one vertex (overlap 0); any other contact is a self-touch.
      if (adjacent ? overlap > 0 : overlap >= 0) return [c, d];
    }
  }
  return undefined;
}

function cross(o: [number, number], a: [number, number], b: [number, number]): number {
  return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]);
}
