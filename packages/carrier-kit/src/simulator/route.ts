import type { CarrierOrder } from '../carrier-api/carrier-api.js';
import { distanceMeters, type LatLon } from '../geo/haversine.js';

/** A route as a polyline, with the position at any distance along it. */
export interface Route {
  /** The points of the route, start and end included. */
  readonly points: readonly LatLon[];
  /** Length in metres. */
  readonly lengthM: number;
  /** The position `metres` along the route (clamped to its ends). */
  at(metres: number): LatLon;
}

/**
 * A route from `from` to `to` along straight segments through optional waypoints; positions are
 * interpolated linearly within each segment (accurate enough for a city delivery).
 * @example
 * const route = straightRoute({ lat: 52.5029, lon: 13.4114 }, { lat: 52.4975, lon: 13.431 });
 * route.at(route.lengthM / 2); // half way
 */
export function straightRoute(from: LatLon, to: LatLon, waypoints: readonly LatLon[] = []): Route {
  const points = [from, ...waypoints, to];
  const lengths = points.slice(1).map((point, i) => distanceMeters(points[i]!, point));
  const lengthM = lengths.reduce((sum, length) => sum + length, 0);
  return {
    points,
    lengthM,
    at(metres) {
      let left = Math.max(0, Math.min(metres, lengthM));
      for (let i = 0; i < lengths.length; i++) {
        const length = lengths[i]!;
        if (left <= length || i === lengths.length - 1) {
          const t = length === 0 ? 1 : Math.min(1, left / length);
          const a = points[i]!;
          const b = points[i + 1]!;
          return { lat: a.lat + (b.lat - a.lat) * t, lon: a.lon + (b.lon - a.lon) * t };
        }
        left -= length;
      }
      return to;
    },
  };
}

/** Approximate coordinates of the demo world's restaurants, by the address the carrier view shows. */
export const DEMO_RESTAURANT_LOCATIONS: Readonly<Record<string, LatLon>> = {
  'Oranienstraße 45, 10969 Berlin': { lat: 52.5029, lon: 13.4114 },
  'Kastanienallee 12, 10435 Berlin': { lat: 52.5368, lon: 13.4076 },
  'Torstraße 101, 10119 Berlin': { lat: 52.5297, lon: 13.4031 },
  'Simon-Dach-Straße 20, 10245 Berlin': { lat: 52.5106, lon: 13.4574 },
};

/**
 * Where the courier picks the order up. The carrier view gives the restaurant's address but no
 * coordinates, so known addresses come from `locations` (the demo world by default) and any other
 * restaurant is placed 1.5–2.5 km from the destination, in a direction fixed by the order id.
 */
export function restaurantLocation(
  order: CarrierOrder,
  locations: Readonly<Record<string, LatLon>> = DEMO_RESTAURANT_LOCATIONS,
): LatLon {
  const known = locations[order.restaurant.address];
  if (known) return known;
  const angle = ((order.id * 137.508) % 360) * (Math.PI / 180);
  const distance = 1500 + (order.id % 11) * 100;
  const dLat = (distance * Math.cos(angle)) / 111_320;
  const dLon = (distance * Math.sin(angle)) / (111_320 * Math.cos((order.destination.lat * Math.PI) / 180));
  return { lat: order.destination.lat + dLat, lon: order.destination.lon + dLon };
}
