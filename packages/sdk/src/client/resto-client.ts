import type { paths as MainPaths } from '../generated/main.js';
import type { RawMainClient } from '../raw/raw-client.js';
import { CouriersResource } from '../resources/couriers.js';
import { DeliveryZonesResource } from '../resources/delivery-zones.js';
import { DraftCategoriesResource } from '../resources/draft-categories.js';
import { DraftDishesResource } from '../resources/draft-dishes.js';
import { ImportsResource } from '../resources/imports.js';
import { OrdersResource } from '../resources/orders.js';
import { OrganizationsResource } from '../resources/organizations.js';
import { RestaurantsResource } from '../resources/restaurants.js';
import { SessionResource } from '../resources/session.js';
import type { ClientReadBack } from '../resources/read-back.js';
import { Core } from '../transport/core.js';
import type { PipelineOptions } from '../transport/options.js';
import { createPipeline } from '../transport/pipeline.js';
import { toTokenStore, type TokenOption } from '../transport/token.js';

/** Options of {@link createRestoClient}. */
export interface RestoClientOptions extends PipelineOptions {
  /** Base address of the service, e.g. `https://api.example.com`. */
  baseUrl: string;
  /** The session token, a function supplying it (read before each request), or a store to read and write it. */
  token?: TokenOption;
  /** Send the token as the `token` query parameter instead of `Authorization: Token token="…"`. */
  tokenIn?: 'header' | 'query';
}

/**
 * The main API client: resources grouped as the API is, every method typed from the generated types.
 * Use {@link createRestoClient} to make one.
 */
export class RestoClient<R extends boolean = true> {
  /** The raw typed openapi-fetch client (same token, retries and timeouts; `{ data, error }` results) for anything else. */
  readonly raw: RawMainClient;
  /** Sign in and out. */
  readonly session: SessionResource;
  /** Organizations and menu publication. */
  readonly organizations: OrganizationsResource<R>;
  /** Restaurants. */
  readonly restaurants: RestaurantsResource<R>;
  /** Couriers (read-only). */
  readonly couriers: CouriersResource;
  /** Menu draft categories. */
  readonly draftCategories: DraftCategoriesResource<R>;
  /** Menu draft dishes. */
  readonly draftDishes: DraftDishesResource<R>;
  /** Delivery zones. */
  readonly deliveryZones: DeliveryZonesResource<R>;
  /** Orders, with pagination helpers. */
  readonly orders: OrdersResource<R>;
  /** Menu, client and order imports. */
  readonly imports: ImportsResource;

  constructor(options: RestoClientOptions & ClientReadBack<R>) {
    const pipeline = createPipeline(options);
    const readBack = options.readBack ?? true;
    const store = toTokenStore(options.token);
    const core = new Core<MainPaths>({
      baseUrl: options.baseUrl.replace(/\/+$/, ''),
      headers: options.headers,
      token: () => store.get(),
      tokenIn: options.tokenIn,
      pipeline,
    });
    this.raw = core.raw;
    this.session = new SessionResource(core, store);
    this.organizations = new OrganizationsResource<R>(core, readBack);
    this.restaurants = new RestaurantsResource<R>(core, readBack);
    this.couriers = new CouriersResource(core);
    this.draftCategories = new DraftCategoriesResource<R>(core, readBack);
    this.draftDishes = new DraftDishesResource<R>(core, readBack);
    this.deliveryZones = new DeliveryZonesResource<R>(core, readBack);
    this.orders = new OrdersResource<R>(core, readBack);
    this.imports = new ImportsResource(core, options.sleep);
  }
}

/**
 * Creates the main API client.
 * @example
 * const api = createRestoClient({ baseUrl: 'https://api.example.com' });
 * await api.session.login('admin@pizza.demo', 'demo');
 * const { order } = await api.orders.get(5001);
 */
export function createRestoClient<R extends boolean = true>(
  options: RestoClientOptions & ClientReadBack<R>,
): RestoClient<R> {
  return new RestoClient<R>(options);
}
