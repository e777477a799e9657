// @terraformer/wkt ships no type declarations; this covers the two functions the zone code uses.
declare module '@terraformer/wkt' {
  import type { Geometry } from 'geojson';

  /** Geometry parsed from WKT; `properties.z`/`properties.m` flag `POLYGON Z`/`POLYGON M` input. */
  export type ParsedWktGeometry = Geometry & { properties?: { z?: boolean; m?: boolean } };

  /** Parses WKT into a GeoJSON geometry; throws an `Error` on malformed input. */
  export function wktToGeoJSON(wkt: string): ParsedWktGeometry;

  /** Serialises a GeoJSON geometry as WKT. */
  export function geojsonToWKT(geometry: Geometry): string;
}
