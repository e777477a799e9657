/** Planar helpers for WKT polygons (lon lat), enough to find a point inside a zone. */

/** The outer ring of a WKT `POLYGON`, as [lon, lat] pairs; undefined when it cannot be read. */
export function parsePolygon(wkt: string): [number, number][] | undefined {
  const match = /^\s*POLYGON\s*\(\(\s*([^()]+?)\s*\)/i.exec(wkt);
  if (!match) return undefined;
  const points = match[1]!.split(',').map((pair) => pair.trim().split(/\s+/).map(Number) as [number, number]);
  return points.every((p) => p.length === 2 && p.every(Number.isFinite)) ? points : undefined;
}

/** Ray casting: whether a point lies inside a ring. */
export function contains(ring: [number, number][], lon: number, lat: number): boolean {
  let inside = false;
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i, i += 1) {
    const [xi, yi] = ring[i]!;
    const [xj, yj] = ring[j]!;
    if (yi > lat !== yj > lat && lon < ((xj - xi) * (lat - yi)) / (yj - yi) + xi) inside = !inside;
  }
  return inside;
}

/** A point inside a WKT polygon (the vertex centroid, else a grid search), rounded to 6 decimals. */
export function pointInside(wkt: string): { lat: number; lon: number } | undefined {
  const ring = parsePolygon(wkt);
  if (!ring || ring.length < 4) return undefined;
  const round = (n: number): number => Math.round(n * 1e6) / 1e6;
  const vertices = ring.slice(0, -1);
  const lon = vertices.reduce((s, p) => s + p[0], 0) / vertices.length;
  const lat = vertices.reduce((s, p) => s + p[1], 0) / vertices.length;
  if (contains(ring, round(lon), round(lat))) return { lat: round(lat), lon: round(lon) };
  const xs = ring.map((p) => p[0]);
  const ys = ring.map((p) => p[1]);
  const [minX, maxX, minY, maxY] = [Math.min(...xs), Math.max(...xs), Math.min(...ys), Math.max(...ys)];
  for (let i = 1; i < 20; i += 1) {
    for (let j = 1; j < 20; j += 1) {
      const x = round(minX + ((maxX - minX) * i) / 20);
      const y = round(minY + ((maxY - minY) * j) / 20);
      if (contains(ring, x, y)) return { lat: y, lon: x };
    }
  }
  return undefined;
}
