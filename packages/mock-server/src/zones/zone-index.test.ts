import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import { expect, test } from 'vitest';
import { parseZoneArea } from './polygon-area.js';
import { ZoneIndex, type IndexedZone } from './zone-index.js';

function zone(id: number, wkt: string): IndexedZone {
  const area = parseZoneArea(wkt);
  if (!area.ok) throw new Error(area.reason);
  return { id, polygon: area.polygon, bbox: area.bbox };
}

const BERLIN = [
  zone(
    101,
    'POLYGON((13.3850 52.4870, 13.4420 52.4860, 13.4480 52.5030, 13.4120 52.5080, 13.3830 52.5010, 13.3850 52.4870))',
  ),
  zone(
    102,
    'POLYGON((13.3980 52.5290, 13.4450 52.5280, 13.4500 52.5480, 13.4100 52.5520, 13.3960 52.5410, 13.3980 52.5290))',
  ),
  zone(201, 'POLYGON((13.3700 52.5150, 13.4150 52.5140, 13.4180 52.5330, 13.3750 52.5340, 13.3700 52.5150))'),
  zone(202, 'POLYGON((13.4300 52.5020, 13.4800 52.5000, 13.4820 52.5200, 13.4330 52.5220, 13.4300 52.5020))'),
];

/** A diamond inscribed in grid cell (col,row): the cell's corners are in its bbox but outside the zone. */
function diamond(id: number, col: number, row: number, cell: number): IndexedZone {
  const cx = col * cell + cell / 2;
  const cy = row * cell + cell / 2;
  const r = cell / 2;
  return zone(id, `POLYGON((${cx - r} ${cy}, ${cx} ${cy - r}, ${cx + r} ${cy}, ${cx} ${cy + r}, ${cx - r} ${cy}))`);
}

test('the example order address in Wiener Straße falls in the Kreuzberg zone only', () => {
  const index = new ZoneIndex(BERLIN);
  expect(index.find(13.431, 52.4975)).toEqual([101]);
  expect(index.find(13.4, 52.54)).toEqual([102]);
});

test('a point outside every zone, or not a number, finds nothing', () => {
  const index = new ZoneIndex(BERLIN);
  expect(index.find(13.2, 52.4)).toEqual([]);
  expect(index.find(Number.NaN, 52.5)).toEqual([]);
  expect(new ZoneIndex().find(13.4, 52.5)).toEqual([]);
});

test('a point inside the bounding box but outside the polygon is not matched', () => {
  const index = new ZoneIndex([diamond(1, 0, 0, 1)]);
  expect(index.find(0.5, 0.5)).toEqual([1]);
  expect(index.find(0.05, 0.05)).toEqual([]);
});

test('overlapping zones are all returned, sorted by id', () => {
  const index = new ZoneIndex([
    zone(30, 'POLYGON((0 0, 2 0, 2 2, 0 2, 0 0))'),
    zone(10, 'POLYGON((1 1, 3 1, 3 3, 1 3, 1 1))'),
    zone(20, 'POLYGON((0.5 0.5, 1.5 0.5, 1.5 1.5, 0.5 1.5, 0.5 0.5))'),
  ]);
  expect(index.find(1.2, 1.2)).toEqual([10, 20, 30]);
  expect(index.find(2.5, 2.5)).toEqual([10]);
});

test('a point on a shared border belongs to both neighbouring zones', () => {
  const index = new ZoneIndex([
    zone(1, 'POLYGON((0 0, 1 0, 1 1, 0 1, 0 0))'),
    zone(2, 'POLYGON((1 0, 2 0, 2 1, 1 1, 1 0))'),
  ]);
  expect(index.find(1, 0.5)).toEqual([1, 2]);
});

test('add, update and remove are seen by the next lookup', () => {
  const index = new ZoneIndex([zone(1, 'POLYGON((0 0, 1 0, 1 1, 0 1, 0 0))')]);
  expect(index.find(0.5, 0.5)).toEqual([1]);

  index.add(zone(2, 'POLYGON((0 0, 4 0, 4 4, 0 4, 0 0))'));
  expect(index.find(0.5, 0.5)).toEqual([1, 2]);
  expect(index.find(3, 3)).toEqual([2]);

  index.update(zone(1, 'POLYGON((2 2, 3.5 2, 3.5 3.5, 2 3.5, 2 2))'));
  expect(index.find(0.5, 0.5)).toEqual([2]);
  expect(index.find(3, 3)).toEqual([1, 2]);

  expect(index.remove(2)).toBe(true);
  expect(index.remove(2)).toBe(false);
  expect(index.find(0.5, 0.5)).toEqual([]);
  expect(index.find(3, 3)).toEqual([1]);
  expect(index.size).toBe(1);

  expect(index.remove(1)).toBe(true);
  expect(index.find(3, 3)).toEqual([]);
});

test('adding a known id or updating an unknown one throws', () => {
  const index = new ZoneIndex([zone(1, 'POLYGON((0 0, 1 0, 1 1, 0 0))')]);
  expect(() => index.add(zone(1, 'POLYGON((0 0, 1 0, 1 1, 0 0))'))).toThrow('zone 1 is already indexed');
  expect(() => index.update(zone(9, 'POLYGON((0 0, 1 0, 1 1, 0 0))'))).toThrow('zone 9 is not indexed');
  expect(() => new ZoneIndex([BERLIN[0] as IndexedZone, BERLIN[0] as IndexedZone])).toThrow(/already indexed/);
  expect(index.has(1)).toBe(true);
  expect(index.has(9)).toBe(false);
});

test('10,000 lookups over 100 zones agree with a brute-force scan', () => {
  const cell = 0.01;
  const zones: IndexedZone[] = [];
  for (let row = 0; row < 10; row++) {
    for (let col = 0; col < 10; col++) zones.push(diamond(row * 10 + col + 1, col, row, cell));
  }
  const index = new ZoneIndex(zones);
  let matched = 0;
  for (let y = 0; y < 100; y++) {
    for (let x = 0; x < 100; x++) {
      // Offset by half a step so no sample lands exactly on a diamond's border.
      const lon = (x + 0.5) * (cell / 10);
      const lat = (y + 0.5) * (cell / 10);
      const expected = zones.filter((z) => booleanPointInPolygon([lon, lat], z.polygon)).map((z) => z.id);
      const found = index.find(lon, lat);
      expect(found).toEqual(expected);
      matched += found.length;
    }
  }
  // Diamonds cover half of each cell, so about half of the samples hit a zone.
  expect(matched).toBeGreaterThan(4000);
  expect(matched).toBeLessThan(6000);
});
