import { expect, test } from 'vitest';
import { distanceMeters } from './haversine.js';

test('measures great-circle distances in metres', () => {
  expect(distanceMeters({ lat: 52.5, lon: 13.4 }, { lat: 52.5, lon: 13.4 })).toBe(0);
  // One degree of latitude is about 111.2 km.
  expect(distanceMeters({ lat: 52, lon: 13.4 }, { lat: 53, lon: 13.4 })).toBeCloseTo(111_195, -2);
  // Kreuzberg restaurant to Wiener Straße 18.
  const d = distanceMeters({ lat: 52.5003, lon: 13.419 }, { lat: 52.4975, lon: 13.431 });
  expect(d).toBeGreaterThan(800);
  expect(d).toBeLessThan(900);
});
