import { Core, type Call, type DefaultOptions } from '../transport/core.js';
import type { OperationError, OperationKey, OperationOf, RequestBody, SuccessBody } from '../transport/operations.js';
import type { PipelineOptions, RequestOptions } from '../transport/options.js';
import { createPipeline } from '../transport/pipeline.js';
import type { components, paths as CarrierPaths } from '../generated/carrier.js';
import { carrierBaseUrl, type RawCarrierClient } from '../raw/raw-client.js';
import { readBack, type ClientReadBack, type ReadBackOptions, type RecordResult } from '../resources/read-back.js';

/** Options of {@link createCarrierClient}. */
export interface CarrierClientOptions extends PipelineOptions {
  /** Base address of the service (`{base_url}`); `/api-delivery` is appended unless already there. */
  baseUrl: string;
}

type CarrierCall<O, K extends OperationKey<CarrierPaths>> = Call<
  O,
  SuccessBody<OperationOf<CarrierPaths, K>>,
  OperationError<OperationOf<CarrierPaths, K>>
>;

/** The carrier's writable delivery block (send only what changed). */
export type DeliveryUpdate = RequestBody<OperationOf<CarrierPaths, 'PUT /orders/{secure_id}/delivery'>>;
/** A delivery status (`idle`, `courier_assigned`, `delivering`, `delivered`, `problem`). */
export type DeliveryStatus = components['schemas']['DeliveryStatus'];
/** An order in the carrier view. */
export type CarrierOrder = components['schemas']['CarrierOrder'];
/** What `updateDelivery` resolves to for call options `O` on a client with read-back `R` (`{ order }`). */
export type DeliveryChange<R extends boolean, O> = RecordResult<
  SuccessBody<OperationOf<CarrierPaths, 'GET /orders/{secure_id}'>>,
  R,
  O
>;

/**
 * The carrier API client: orders addressed by `secure_id` (from the callback), no session needed.
 * Same errors, retries and timeouts as the main client.
 */
export class CarrierClient<R extends boolean = true> {
  /** The raw typed openapi-fetch client of the carrier API, through the same pipeline. */
  readonly raw: RawCarrierClient;
  readonly #core: Core<CarrierPaths>;
  readonly #readBack: boolean;

  constructor(options: CarrierClientOptions & ClientReadBack<R>) {
    this.#readBack = options.readBack ?? true;
    this.#core = new Core<CarrierPaths>({
      baseUrl: carrierBaseUrl(options.baseUrl),
      headers: options.headers,
      pipeline: createPipeline(options),
    });
    this.raw = this.#core.raw;
  }

  /** Loads the order in the carrier view. */
  getOrder<O extends RequestOptions = DefaultOptions>(
    secureId: string,
    options?: O,
  ): CarrierCall<O, 'GET /orders/{secure_id}'> {
    const core = this.#core;
    return core.invoke('GET /orders/{secure_id}', { params: { path: { secure_id: secureId } } }, options);
  }

  /**
   * Updates the delivery block (status, message, courier, position) and resolves to `{ order }`: the answer's when
   * it holds the order, else read back with one GET (the spec shows no answer body; `readBack: false` skips the GET
   * and resolves to `undefined` then). Repeating a status is a no-op, so it is retried like any PUT.
   * @example
   * await carrier.updateDelivery(secureId, { status: 'delivering', lat: 52.4975, lon: 13.431 });
   */
  updateDelivery<O extends RequestOptions & ReadBackOptions = DefaultOptions>(
    secureId: string,
    patch: DeliveryUpdate,
    options?: O,
  ): Call<O, DeliveryChange<R, O>, OperationError<OperationOf<CarrierPaths, 'PUT /orders/{secure_id}/delivery'>>> {
    const core = this.#core;
    return core.invoke(
      'PUT /orders/{secure_id}/delivery',
      { params: { path: { secure_id: secureId } }, body: patch },
      options,
      { after: readBack('order', this.#readBack, options, (o) => this.getOrder(secureId, o)) },
    );
  }
}

/**
 * Creates the carrier API client.
 * @example
 * const carrier = createCarrierClient({ baseUrl: 'https://api.example.com' });
 * const { order } = await carrier.getOrder(secureId);
 * await carrier.updateDelivery(secureId, { status: 'courier_assigned', courier_name: 'Max' });
 */
export function createCarrierClient<R extends boolean = true>(
  options: CarrierClientOptions & ClientReadBack<R>,
): CarrierClient<R> {
  return new CarrierClient<R>(options);
}
