import type { DefaultOptions, MainCall, MainCore } from '../transport/core.js';
import type { MainBody, MainData, MainQuery } from '../transport/operations.js';
import type { RequestOptions } from '../transport/options.js';
import { readBack, type ReadBackOptions, type RecordResult } from './read-back.js';

/** Filters of `GET /api/restaurants`. */
export type RestaurantFilters = MainQuery<'GET /api/restaurants'>;
/** The editable fields of a restaurant (`PUT /api/restaurants/{id}` without its root key). */
export type RestaurantUpdateFields = MainBody<'PUT /api/restaurants/{id}'>['restaurant'];

/** What `update` resolves to for call options `O` on a client with read-back `R` (`{ restaurants: [restaurant] }`). */
export type RestaurantChange<R extends boolean, O> = RecordResult<MainData<'GET /api/restaurants/{id}'>, R, O>;

/**
 * Restaurants (branches of an organization).
 * @example
 * const { restaurants } = await api.restaurants.list({ organization_id: 1 });
 */
export class RestaurantsResource<R extends boolean = true> {
  readonly #core: MainCore;
  readonly #readBack: boolean;

  constructor(core: MainCore, readBack = true) {
    this.#core = core;
    this.#readBack = readBack;
  }

  /** Lists the restaurants the caller can access, optionally of one organization. */
  list<O extends RequestOptions = DefaultOptions>(
    filters?: RestaurantFilters,
    options?: O,
  ): MainCall<O, 'GET /api/restaurants'> {
    const core = this.#core;
    return core.invoke('GET /api/restaurants', { params: { query: filters } }, options);
  }

  /** Reads one restaurant (the answer is a one-element `restaurants` array, as the spec says). */
  get<O extends RequestOptions = DefaultOptions>(id: number, options?: O): MainCall<O, 'GET /api/restaurants/{id}'> {
    const core = this.#core;
    return core.invoke('GET /api/restaurants/{id}', { params: { path: { id } } }, options);
  }

  /**
   * Changes name, phone or address; resolves to the restaurant (read back with one GET when the answer holds none,
   * unless `readBack: false`).
   */
  update<O extends RequestOptions & ReadBackOptions = DefaultOptions>(
    id: number,
    fields: RestaurantUpdateFields,
    options?: O,
  ): MainCall<O, 'PUT /api/restaurants/{id}', RestaurantChange<R, O>> {
    const core = this.#core;
    return core.invoke(
      'PUT /api/restaurants/{id}',
      { params: { path: { id } }, body: { restaurant: fields } },
      options,
      { after: readBack('restaurants', this.#readBack, options, (o) => this.get(id, o)) },
    );
  }
}
