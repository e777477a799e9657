/** A point on Earth in degrees. */
export interface LatLon {
  lat: number;
  lon: number;
}

/** Mean Earth radius in metres (IUGG). */
const EARTH_RADIUS_M = 6_371_008.8;

const rad = (degrees: number): number => (degrees * Math.PI) / 180;

/**
 * Great-circle distance between two points in metres (haversine formula).
 * @example
 * distanceMeters({ lat: 52.5003, lon: 13.419 }, { lat: 52.4975, lon: 13.431 }); // ≈ 870
 */
export function distanceMeters(a: LatLon, b: LatLon): number {
  const dLat = rad(b.lat - a.lat);
  const dLon = rad(b.lon - a.lon);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_M * Math.asin(Math.min(1, Math.sqrt(h)));
}
