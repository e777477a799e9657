import { booleanPointInPolygon } from '@turf/boolean-point-in-polygon';
import Flatbush from 'flatbush';
import type { Polygon } from 'geojson';
import type { BBox } from './polygon-area.js';

/** A zone as the index needs it: the output of `parseZoneArea` plus the zone id. */
export interface IndexedZone {
  id: number;
  polygon: Polygon;
  bbox: BBox;
}

/**
 * Finds the delivery zones containing a point. Bounding boxes go into a flatbush R-tree for candidate
 * search, then each candidate gets an exact point-in-polygon test. Flatbush is static, so changes only
 * mark the tree stale and the next `find` rebuilds it: a burst of edits costs one rebuild.
 */
export class ZoneIndex {
  readonly #zones = new Map<number, IndexedZone>();
  #tree: Flatbush | undefined;
  #treeZones: IndexedZone[] = [];
  #stale = true;

  /** Creates an index holding `zones`; ids must be unique. */
  constructor(zones: Iterable<IndexedZone> = []) {
    for (const zone of zones) this.add(zone);
  }

  /** Number of zones in the index. */
  get size(): number {
    return this.#zones.size;
  }

  /** Whether a zone with this id is indexed. */
  has(id: number): boolean {
    return this.#zones.has(id);
  }

  /** Adds a zone; throws if its id is already indexed (use `update` to replace). */
  add(zone: IndexedZone): void {
    if (this.#zones.has(zone.id)) throw new Error(`zone ${zone.id} is already indexed`);
    this.#zones.set(zone.id, zone);
    this.#stale = true;
  }

  /** Replaces the area of an indexed zone; throws if the id is unknown (use `add` for new zones). */
  update(zone: IndexedZone): void {
    if (!this.#zones.has(zone.id)) throw new Error(`zone ${zone.id} is not indexed`);
    this.#zones.set(zone.id, zone);
    this.#stale = true;
  }

  /** Removes a zone; returns whether it was indexed. */
  remove(id: number): boolean {
    const removed = this.#zones.delete(id);
    if (removed) this.#stale = true;
    return removed;
  }

  /**
   * Ids of the zones whose area contains the point, ascending. A point on a zone's border counts as
   * inside, so an address on a boundary street is served by both neighbouring zones.
   */
  find(lon: number, lat: number): number[] {
    if (!Number.isFinite(lon) || !Number.isFinite(lat)) return [];
    const tree = this.#currentTree();
    if (!tree) return [];
    const ids: number[] = [];
    for (const slot of tree.search(lon, lat, lon, lat)) {
      const zone = this.#treeZones[slot] as IndexedZone;
      if (booleanPointInPolygon([lon, lat], zone.polygon)) ids.push(zone.id);
    }
    return ids.sort((a, b) => a - b);
  }

  #currentTree(): Flatbush | undefined {
    if (this.#stale) {
      this.#treeZones = [...this.#zones.values()];
      // Flatbush refuses an empty index, and an empty one has nothing to find anyway.
      this.#tree = this.#treeZones.length === 0 ? undefined : new Flatbush(this.#treeZones.length);
      if (this.#tree) {
        for (const { bbox } of this.#treeZones) this.#tree.add(bbox[0], bbox[1], bbox[2], bbox[3]);
        this.#tree.finish();
      }
      this.#stale = false;
    }
    return this.#tree;
  }
}
