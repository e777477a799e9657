import { expect, test } from 'vitest';
import { carrierOrder } from '../../test/support/fake-carrier-api.js';
import { distanceMeters } from '../geo/haversine.js';
import { restaurantLocation, straightRoute } from './route.js';

test('interpolates positions along a straight route and through waypoints', () => {
  const from = { lat: 52.5, lon: 13.4 };
  const to = { lat: 52.51, lon: 13.4 };
  const route = straightRoute(from, to);
  expect(route.lengthM).toBeCloseTo(1112, -1);
  expect(route.at(0)).toEqual(from);
  expect(route.at(route.lengthM)).toEqual(to);
  expect(route.at(route.lengthM / 2).lat).toBeCloseTo(52.505, 6);
  expect(route.at(-5)).toEqual(from);
  const bent = straightRoute(from, to, [{ lat: 52.5, lon: 13.41 }]);
  expect(bent.lengthM).toBeGreaterThan(route.lengthM);
  expect(
    distanceMeters(bent.at(distanceMeters(from, { lat: 52.5, lon: 13.41 })), { lat: 52.5, lon: 13.41 }),
  ).toBeLessThan(1);
});

test('places known demo restaurants at their address and others near the destination', () => {
  expect(restaurantLocation(carrierOrder(5001))).toEqual({ lat: 52.5029, lon: 13.4114 });
  const elsewhere = carrierOrder(5002, {
    restaurant: { organization_name: 'X', name: 'Y', phone: '1', address: 'Somewhere 1' },
  });
  const point = restaurantLocation(elsewhere);
  const d = distanceMeters(point, elsewhere.destination);
  expect(d).toBeGreaterThan(1400);
  expect(d).toBeLessThan(2700);
  expect(restaurantLocation(elsewhere)).toEqual(point);
});
