import type { DefaultOptions, MainCall, MainCore } from '../transport/core.js';
import type { MainBody, MainData, MainQuery, WithDefaults } from '../transport/operations.js';
import type { RequestOptions } from '../transport/options.js';
import type { components } from '../generated/main.js';
import { isObject, readBack, type ReadBackOptions, type RecordResult } from './read-back.js';

/** Filters of `GET /api/delivery_zones`. */
export type DeliveryZoneFilters = MainQuery<'GET /api/delivery_zones'>;
/** A timetable entry to send; `is_working` defaults to `true`. */
export type TimetableEntryInput = WithDefaults<components['schemas']['TimetableInput'], 'is_working'>;
/**
 * A new zone (sent unwrapped). Only organization_id, restaurant_id and name are required: the generated type marks
 * the fields with documented defaults as required, so they are made optional here.
 */
export type DeliveryZoneCreateFields = WithDefaults<
  Omit<MainBody<'POST /api/delivery_zones'>, 'timetables'>,
  'delivery_time' | 'price' | 'timezone' | 'free_delivery_count' | 'free_delivery_price' | 'minimal_order_price'
> & { timetables?: TimetableEntryInput[] };
/** The editable fields of a zone (sent unwrapped; `timetables` replaces the whole list). */
export type DeliveryZoneUpdateFields = Omit<MainBody<'PUT /api/delivery_zones/{id}'>, 'timetables'> & {
  timetables?: TimetableEntryInput[];
};

/** What `update` resolves to for call options `O` on a client with read-back `R` (the zone itself). */
export type DeliveryZoneChange<R extends boolean, O> = RecordResult<MainData<'GET /api/delivery_zones/{id}'>, R, O>;

/**
 * Delivery zones: polygons around a restaurant with delivery time, price and opening hours.
 * @example
 * const zone = await api.deliveryZones.create({ organization_id: 1, restaurant_id: 11, name: 'Neukölln' });
 */
export class DeliveryZonesResource<R extends boolean = true> {
  readonly #core: MainCore;
  readonly #readBack: boolean;

  constructor(core: MainCore, readBack = true) {
    this.#core = core;
    this.#readBack = readBack;
  }

  /** Lists the zones the caller can access, optionally of one organization. */
  list<O extends RequestOptions = DefaultOptions>(
    filters?: DeliveryZoneFilters,
    options?: O,
  ): MainCall<O, 'GET /api/delivery_zones'> {
    const core = this.#core;
    return core.invoke('GET /api/delivery_zones', { params: { query: filters } }, options);
  }

  /** Reads one zone (the answer is the zone itself, no root key). */
  get<O extends RequestOptions = DefaultOptions>(id: number, options?: O): MainCall<O, 'GET /api/delivery_zones/{id}'> {
    const core = this.#core;
    return core.invoke('GET /api/delivery_zones/{id}', { params: { path: { id } } }, options);
  }

  /** Creates a zone; the area must be a simple WKT polygon (lon lat). */
  create<O extends RequestOptions = DefaultOptions>(
    zone: DeliveryZoneCreateFields,
    options?: O,
  ): MainCall<O, 'POST /api/delivery_zones'> {
    const core = this.#core;
    // The service fills the documented defaults; the cast only drops the generated type's "required" on them.
    return core.invoke('POST /api/delivery_zones', { body: zone as MainBody<'POST /api/delivery_zones'> }, options);
  }

  /**
   * Changes any field but id and organization_id; resolves to the zone (read back with one GET when the answer
   * holds none, unless `readBack: false`).
   */
  update<O extends RequestOptions & ReadBackOptions = DefaultOptions>(
    id: number,
    zone: DeliveryZoneUpdateFields,
    options?: O,
  ): MainCall<O, 'PUT /api/delivery_zones/{id}', DeliveryZoneChange<R, O>> {
    const core = this.#core;
    return core.invoke(
      'PUT /api/delivery_zones/{id}',
      { params: { path: { id } }, body: zone as MainBody<'PUT /api/delivery_zones/{id}'> },
      options,
      {
        after: readBack(
          (answer) => isObject(answer) && typeof answer.id === 'number',
          this.#readBack,
          options,
          (o) => this.get(id, o),
        ),
      },
    );
  }

  /** Deletes a zone (orders already placed keep their restaurant); resolves to `undefined` whatever the answer holds. */
  delete<O extends RequestOptions = DefaultOptions>(
    id: number,
    options?: O,
  ): MainCall<O, 'DELETE /api/delivery_zones/{id}', undefined> {
    const core = this.#core;
    return core.invoke('DELETE /api/delivery_zones/{id}', { params: { path: { id } } }, options, {
      after: () => undefined,
    });
  }
}
