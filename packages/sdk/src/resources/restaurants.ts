import type { DefaultOptions, MainCall, MainCore } from '../transport/core.js';
import type { MainBody, MainQuery } from '../transport/operations.js';
import type { RequestOptions } from '../transport/options.js';

/** Filters of `GET /api/restaurants`. */
export type RestaurantFilters = MainQuery<'GET /api/restaurants'>;
/** The editable fields of a restaurant (`PUT /api/restaurants/{id}` without its root key). */
export type RestaurantUpdateFields = MainBody<'PUT /api/restaurants/{id}'>['restaurant'];

/**
 * Restaurants (branches of an organization).
 * @example
 * const { restaurants } = await api.restaurants.list({ organization_id: 1 });
 */
export class RestaurantsResource {
  readonly #core: MainCore;

  constructor(core: MainCore) {
    this.#core = core;
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

  /** Changes name, phone or address. */
  update<O extends RequestOptions = DefaultOptions>(
    id: number,
    fields: RestaurantUpdateFields,
    options?: O,
  ): MainCall<O, 'PUT /api/restaurants/{id}'> {
    const core = this.#core;
    return core.invoke(
      'PUT /api/restaurants/{id}',
      { params: { path: { id } }, body: { restaurant: fields } },
      options,
    );
  }
}
