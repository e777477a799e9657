import createClient, { type Client } from 'openapi-fetch';
import type { RestoApiError } from '../errors/api-error.js';
import type { paths as MainPaths } from '../generated/main.js';
import { resultOf, toApiPromise, type ApiPromise, type ApiResult } from './api-promise.js';
import type { OperationError, OperationKey, OperationOf, SuccessBody } from './operations.js';
import type { RequestOptions } from './options.js';
import { readAnswer, type ResourceCall } from './read-answer.js';
import {
  createTransport,
  type OperationInit,
  type SendInit,
  type Transport,
  type TransportOptions,
} from './transport.js';

/** Per-call options without `throwOnError` (the default, throwing form). */
export type DefaultOptions = Omit<RequestOptions, 'throwOnError'>;

type ThrowOption<O> = 'throwOnError' extends keyof O ? O['throwOnError' & keyof O] : undefined;

/** What a method returns for call options `O`: an {@link ApiPromise}, or `{ data, error, response }` with `throwOnError: false`. */
export type Call<O, Data, Err> = [ThrowOption<NonNullable<O>>] extends [false]
  ? Promise<ApiResult<Data, Err>>
  : [ThrowOption<NonNullable<O>>] extends [true | undefined]
    ? ApiPromise<Data, Err>
    : ApiPromise<Data, Err> | Promise<ApiResult<Data, Err>>;

/** Optional post-processing of a call's outcome. */
export interface CallHooks<Data, T, Err> {
  /** Turns the success body into what the method returns (an import job handle, for instance). */
  map?: (data: Data, response: Response) => T | Promise<T>;
  /** Sees the typed error before it is thrown or returned. */
  onError?: (error: Err) => void | Promise<void>;
  /**
   * Recognises an answer that is an error by its body, whatever its status (an import's `busy` object); the
   * method's declared errors must then admit what it returns.
   */
  errorOf?: (body: unknown, response: Response) => RestoApiError | undefined;
  /**
   * Turns the success body into what the method returns once the call is over, outside its attempts and deadline
   * (a read-back GET, for instance); used instead of `map`. What it throws rejects the method.
   */
  after?: (data: Data) => T | Promise<T>;
}

/** What {@link createCore} needs: the transport's settings (the pipeline included). */
export type CoreOptions = TransportOptions;

/**
 * The engine shared by every resource: `invoke` sends an operation through the client's one transport and reads
 * its answer into data or a typed error; `raw` is openapi-fetch's client over the same transport.
 */
export class Core<Paths extends object> {
  /** The raw typed client (the same transport and pipeline, but openapi-fetch's `{ data, error }` results). */
  readonly raw: Client<Paths>;
  readonly #transport: Transport;

  constructor(options: CoreOptions) {
    this.#transport = createTransport(options);
    this.raw = createClient<Paths>({
      baseUrl: options.baseUrl,
      fetch: this.#transport.fetch,
      ...(options.headers ? { headers: options.headers } : {}),
    });
  }

  /**
   * Sends the operation `operation` (`METHOD path`, named once) with openapi-fetch's `init` (or a promise of it)
   * and the call options `options`.
   * @example
   * core.invoke('GET /api/orders/{id}', { params: { path: { id } } }, options);
   */
  invoke<K extends OperationKey<Paths>, O extends RequestOptions, T = SuccessBody<OperationOf<Paths, K>>>(
    operation: K,
    init: OperationInit<Paths, K> | Promise<OperationInit<Paths, K>>,
    options: O | undefined,
    hooks?: CallHooks<SuccessBody<OperationOf<Paths, K>>, T, OperationError<OperationOf<Paths, K>>>,
  ): Call<O, T, OperationError<OperationOf<Paths, K>>> {
    type Err = OperationError<OperationOf<Paths, K>>;
    // One record per call: the pipeline's settings, the reader's hooks, and what withResponse() needs.
    // `signal` is always set: the caller's signal comes from the call options, never from the request.
    const call: ResourceCall = {
      operation,
      signal: options?.signal,
      read: readAnswer,
      map: hooks?.map as ResourceCall['map'],
      onError: hooks?.onError as ResourceCall['onError'],
      errorOf: hooks?.errorOf as ResourceCall['errorOf'],
      response: undefined,
      error: undefined,
    };
    if (options) {
      if (options.timeoutMs !== undefined) call.timeoutMs = options.timeoutMs;
      if (options.maxRetries !== undefined) call.maxRetries = options.maxRetries;
      if (options.retry !== undefined) call.retry = options.retry;
    }
    // The transport never throws at the call: a method fails through its promise.
    let data = this.#transport.send(
      operation,
      init as SendInit | Promise<SendInit>,
      call,
      options?.headers,
    ) as Promise<T>;
    const after = hooks?.after;
    if (after) data = data.then((value) => after(value as never));
    return (options?.throwOnError === false ? resultOf<T, Err>(data, call) : toApiPromise<T, Err>(data, call)) as Call<
      O,
      T,
      Err
    >;
  }
}

/** The main API's engine. */
export type MainCore = Core<MainPaths>;

/** What a main-API method returns for the operation `K` and call options `O` (data `T`, by default the success body). */
export type MainCall<O, K extends OperationKey<MainPaths>, T = SuccessBody<OperationOf<MainPaths, K>>> = Call<
  O,
  T,
  OperationError<OperationOf<MainPaths, K>>
>;
