import { expect, test } from 'vitest';
import { MAX_AREA_POSITIONS, formatPoint, parsePoint, parseZoneArea } from './polygon-area.js';

const KREUZBERG =
  'POLYGON((13.3850 52.4870, 13.4420 52.4860, 13.4480 52.5030, 13.4120 52.5080, 13.3830 52.5010, 13.3850 52.4870))';

function reasonOf(wkt: string): string {
  const result = parseZoneArea(wkt);
  if (result.ok) throw new Error(`expected ${wkt} to be refused`);
  return result.reason;
}

test('the Kreuzberg zone parses into a GeoJSON polygon with its bounding box', () => {
  const result = parseZoneArea(KREUZBERG);
  expect(result).toEqual({
    ok: true,
    polygon: {
      type: 'Polygon',
      coordinates: [
        [
          [13.385, 52.487],
          [13.442, 52.486],
          [13.448, 52.503],
          [13.412, 52.508],
          [13.383, 52.501],
          [13.385, 52.487],
        ],
      ],
    },
    bbox: [13.383, 52.486, 13.448, 52.508],
  });
});

test('keywords are case-insensitive and surrounding whitespace is ignored', () => {
  expect(parseZoneArea('  polygon ((0 0, 1 0, 1 1, 0 0))\n').ok).toBe(true);
});

test('clockwise and counter-clockwise rings are both accepted', () => {
  expect(parseZoneArea('POLYGON((0 0, 1 0, 1 1, 0 1, 0 0))').ok).toBe(true);
  expect(parseZoneArea('POLYGON((0 0, 0 1, 1 1, 1 0, 0 0))').ok).toBe(true);
});

test('collinear consecutive points along a straight edge are fine', () => {
  expect(parseZoneArea('POLYGON((0 0, 1 0, 2 0, 2 2, 0 2, 0 0))').ok).toBe(true);
});

test('malformed WKT is refused with the expected shape, not a parser trace', () => {
  expect(reasonOf('POLYGON((0 0, 1 0, 1 1, 0 0)')).toMatch(
    /^value is not well-formed WKT: expected POLYGON\(\(lon lat/,
  );
  expect(reasonOf('garbage')).toMatch(/not well-formed WKT/);
  expect(reasonOf('POLYGON((0 0, 1 0, 1 1, 0 0)),')).toMatch(/not well-formed WKT/);
  expect(reasonOf('')).toMatch(/^value is empty/);
  expect(reasonOf('SRID=4326;POLYGON((0 0, 1 0, 1 1, 0 0))')).toMatch(/not well-formed WKT/);
});

test('multi-part geometries and rings with holes are refused as multi-part', () => {
  expect(reasonOf('MULTIPOLYGON(((0 0, 1 0, 1 1, 0 0)))')).toBe(
    'area is multi-part (MULTIPOLYGON): a delivery zone must be a single POLYGON',
  );
  expect(reasonOf('GEOMETRYCOLLECTION(POLYGON((0 0, 1 0, 1 1, 0 0)))')).toMatch(/multi-part \(GEOMETRYCOLLECTION\)/);
  expect(reasonOf('POLYGON((0 0, 4 0, 4 4, 0 4, 0 0), (1 1, 2 1, 2 2, 1 1))')).toBe(
    'area is multi-part: it has 2 rings, but a delivery zone must be a single ring without holes',
  );
});

test('other geometry types are refused by name', () => {
  expect(reasonOf('POINT(13.4 52.5)')).toBe('area must be a POLYGON, got POINT');
  expect(reasonOf('LINESTRING(0 0, 1 1)')).toBe('area must be a POLYGON, got LINESTRING');
  expect(reasonOf('POLYGON EMPTY')).toMatch(/POLYGON EMPTY/);
});

test('an unclosed ring is refused, not silently closed', () => {
  expect(reasonOf('POLYGON((13.38 52.48, 13.44 52.48, 13.44 52.50, 13.39 52.49))')).toBe(
    'area is not a closed ring: the first point (13.38 52.48) differs from the last (13.39 52.49)',
  );
});

test('a ring needs three distinct points plus the closing one', () => {
  expect(reasonOf('POLYGON((0 0, 1 1, 0 0))')).toMatch(/has 3 point\(s\) but needs at least 4/);
  expect(reasonOf('POLYGON((0 0))')).toMatch(/has 1 point\(s\) but needs at least 4/);
});

test('repeated consecutive points are refused because they make a zero-length edge', () => {
  expect(reasonOf('POLYGON((0 0, 1 0, 1 0, 1 1, 0 0))')).toBe(
    'points 2 and 3 are both (1 0): an edge must not have zero length',
  );
});

test('coordinates outside longitude/latitude ranges are refused, naming the point', () => {
  expect(reasonOf('POLYGON((0 0, 200 0, 1 1, 0 0))')).toBe(
    'point 2 (200 0) is out of range: longitude must be within -180..180 and latitude within -90..90',
  );
  // Latitude first is the classic mistake: 52.5 13.4 is fine, but 13.4 95 is not.
  expect(reasonOf('POLYGON((13.4 52.5, 13.5 95, 13.6 52.5, 13.4 52.5))')).toMatch(
    /^point 2 \(13.5 95\) is out of range/,
  );
});

test('3-D and measured coordinates are refused', () => {
  expect(reasonOf('POLYGON Z((0 0 1, 1 0 1, 1 1 1, 0 0 1))')).toMatch(/must be 2-D/);
  expect(reasonOf('POLYGON((0 0 1, 1 0 1, 1 1 1, 0 0 1))')).toMatch(/must be 2-D/);
});

test('a ring whose points all lie on one line encloses no surface', () => {
  expect(reasonOf('POLYGON((0 0, 1 0, 2 0, 0 0))')).toBe('area encloses no surface: its points lie on a single line');
});

test('a bow-tie ring is refused with the crossing point', () => {
  expect(reasonOf('POLYGON((0 0, 2 2, 2 0, 0 2, 0 0))')).toBe(
    'area intersects itself at (1 1): it must be a simple polygon',
  );
});

test('a ring that touches itself at a vertex is refused', () => {
  // Two triangles joined at (1 1): connected, but not a simple polygon.
  expect(reasonOf('POLYGON((0 0, 2 0, 1 1, 2 2, 0 2, 1 1, 0 0))')).toMatch(/intersects itself at \(1 1\)/);
});

test('a spike that doubles back along its own edge is refused', () => {
  expect(reasonOf('POLYGON((0 0, 2 0, 1 0, 1 1, 0 0))')).toBe(
    'area intersects itself at (1 0): it must be a simple polygon',
  );
  // A zig-zag along one line touches no other edge, so only the collinear-overlap check sees it.
  expect(reasonOf('POLYGON((0 2, 0 0, 2 0, 1 0, 3 0, 0 2))')).toBe(
    'area runs back over itself along the edge from (2 0) to (1 0): it must be a simple polygon',
  );
});

test('two non-adjacent collinear edges that overlap are refused', () => {
  // The ring walks along y=0 from 0 to 3, then later back along y=0 from 2 to 1.
  expect(parseZoneArea('POLYGON((0 0, 3 0, 3 -1, 2 -1, 2 0, 1 0, 1 -2, 0 -2, 0 0))').ok).toBe(false);
});

test(`rings longer than ${MAX_AREA_POSITIONS} points are refused`, () => {
  const points: string[] = [];
  const n = MAX_AREA_POSITIONS;
  for (let i = 0; i < n; i++) {
    const angle = (2 * Math.PI * i) / n;
    points.push(`${(Math.cos(angle) * 0.1).toFixed(6)} ${(Math.sin(angle) * 0.1).toFixed(6)}`);
  }
  points.push(points[0] as string);
  expect(reasonOf(`POLYGON((${points.join(', ')}))`)).toBe(`area has ${n + 1} points, more than the ${n} allowed`);
});

test('parsePoint reads lon then lat and checks ranges', () => {
  expect(parsePoint('POINT(13.4310 52.4975)')).toEqual({ ok: true, lon: 13.431, lat: 52.4975 });
  expect(parsePoint('point (1 2)')).toEqual({ ok: true, lon: 1, lat: 2 });
  expect(parsePoint('POINT(52.5 113.4)')).toEqual({
    ok: false,
    reason: 'point (52.5 113.4) is out of range: longitude must be within -180..180 and latitude within -90..90',
  });
  expect(parsePoint('POINT EMPTY')).toMatchObject({ ok: false, reason: expect.stringMatching(/POINT EMPTY/) });
  expect(parsePoint('POINT Z(1 2 3)')).toMatchObject({ ok: false, reason: expect.stringMatching(/2-D/) });
  expect(parsePoint(KREUZBERG)).toEqual({ ok: false, reason: 'expected a POINT, got POLYGON' });
  expect(parsePoint('13.4 52.5')).toEqual({ ok: false, reason: 'value is not well-formed WKT: POINT(lon lat)' });
});

test('formatPoint writes lon then lat, optionally with fixed decimals, never with exponents', () => {
  expect(formatPoint(13.431, 52.4975)).toBe('POINT(13.431 52.4975)');
  expect(formatPoint(13.431, 52.4975, 4)).toBe('POINT(13.4310 52.4975)');
  expect(formatPoint(1e-7, -0)).toBe('POINT(0.0000001 0)');
  expect(formatPoint(-0.00001, 0, 2)).toBe('POINT(0.00 0.00)');
  expect(() => formatPoint(181, 0)).toThrow(RangeError);
  expect(() => formatPoint(0, Number.NaN)).toThrow(RangeError);
});

test('formatPoint output parses back to the same coordinates', () => {
  const wkt = formatPoint(-73.985428, 40.748817);
  expect(parsePoint(wkt)).toEqual({ ok: true, lon: -73.985428, lat: 40.748817 });
});
