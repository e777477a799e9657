import type { DefaultOptions, MainCall, MainCore } from '../transport/core.js';
import type { MainQuery } from '../transport/operations.js';
import type { RequestOptions } from '../transport/options.js';

/** Filters of `GET /api/couriers`. */
export type CourierFilters = MainQuery<'GET /api/couriers'>;

/**
 * Couriers (read-only), to find the id of a courier to assign to an order.
 * @example
 * const { couriers } = await api.couriers.list({ organization_id: 1 });
 */
export class CouriersResource {
  readonly #core: MainCore;

  constructor(core: MainCore) {
    this.#core = core;
  }

  /** Lists the couriers the caller can access, optionally of one organization. */
  list<O extends RequestOptions = DefaultOptions>(
    filters?: CourierFilters,
    options?: O,
  ): MainCall<O, 'GET /api/couriers'> {
    const core = this.#core;
    return core.invoke('GET /api/couriers', { params: { query: filters } }, options);
  }

  /** Reads one courier (with its last known position). */
  get<O extends RequestOptions = DefaultOptions>(id: number, options?: O): MainCall<O, 'GET /api/couriers/{id}'> {
    const core = this.#core;
    return core.invoke('GET /api/couriers/{id}', { params: { path: { id } } }, options);
  }
}
