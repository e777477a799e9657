import type { Client } from 'openapi-fetch';
import { errorFromResponse } from '../errors/error-from-response.js';
import { ApiPromise, type ApiResult } from './api-promise.js';
import type { OperationError, OperationKey, OperationOf, SuccessBody } from './operations.js';
import type { paths as MainPaths } from '../generated/main.js';
import type { RequestOptions } from './options.js';
import { transportError, type CallSettings, type Pipeline } from './pipeline.js';
import type { Dispatch, LeanClient } from './transport.js';

/** Per-call options without `throwOnError` (the default, throwing form). */
export type DefaultOptions = Omit<RequestOptions, 'throwOnError'>;

type ThrowOption<O> = 'throwOnError' extends keyof O ? O['throwOnError' & keyof O] : undefined;

/** What a method returns for call options `O`: an {@link ApiPromise}, or `{ data, error, response }` with `throwOnError: false`. */
export type Call<O, Data, Err> = [ThrowOption<NonNullable<O>>] extends [false]
  ? Promise<ApiResult<Data, Err>>
  : [ThrowOption<NonNullable<O>>] extends [true | undefined]
    ? ApiPromise<Data, Err>
    : ApiPromise<Data, Err> | Promise<ApiResult<Data, Err>>;

/** What `invoke` adds to a resource method's call on {@link Core.http}: the route to the pipeline and the call's headers. */
export type SendInit = {
  dispatch: Dispatch;
  headers?: Record<string, string>;
};

/** What openapi-fetch resolves to. */
export interface RawOutcome {
  /** The parsed success body. */
  data?: unknown;
  /** The parsed error body. */
  error?: unknown;
  /** The answer. */
  response: Response;
}

/** Optional post-processing of a call's outcome. */
export interface CallHooks<Data, T, Err> {
  /** Turns the success body into what the method returns (an import job handle, for instance). */
  map?: (data: Data, response: Response) => T | Promise<T>;
  /** Sees the typed error before it is returned or thrown. */
  onError?: (error: Err) => void | Promise<void>;
}

/**
 * The engine shared by every resource: the lean typed transport (`http`, openapi-fetch's signatures without its
 * per-call `Request` building) plus `invoke`, which routes a call through the request pipeline and turns error
 * answers into typed errors. The raw openapi-fetch client stays available as `raw`.
 */
export class Core<Paths extends object> {
  /** The raw typed client (the same pipeline, but openapi-fetch's `{ data, error }` results). */
  readonly raw: Client<Paths>;
  /** The lean typed transport the resource methods call. */
  readonly http: LeanClient<Paths>;
  readonly #pipeline: Pipeline;

  constructor(raw: Client<Paths>, http: LeanClient<Paths>, pipeline: Pipeline) {
    this.raw = raw;
    this.http = http;
    this.#pipeline = pipeline;
  }

  /** Runs `send` (a call on {@link Core.http}) for the operation `operation` with the call options `options`. */
  invoke<K extends OperationKey<Paths>, O extends RequestOptions, T = SuccessBody<OperationOf<Paths, K>>>(
    operation: K,
    options: O | undefined,
    send: (init: SendInit) => Promise<RawOutcome>,
    hooks?: CallHooks<SuccessBody<OperationOf<Paths, K>>, T, OperationError<OperationOf<Paths, K>>>,
  ): Call<O, T, OperationError<OperationOf<Paths, K>>> {
    type Err = OperationError<OperationOf<Paths, K>>;
    // `signal` is always set: the caller's signal comes from the call options, never from the request.
    const settings: CallSettings = { operation, signal: options?.signal };
    if (options) {
      if (options.timeoutMs !== undefined) settings.timeoutMs = options.timeoutMs;
      if (options.maxRetries !== undefined) settings.maxRetries = options.maxRetries;
      if (options.retry !== undefined) settings.retry = options.retry;
    }
    // The answer's timer stays armed until the transport has read the body, so the timeout covers it too.
    let release: (() => void) | undefined;
    settings.hold = (r) => {
      release = r;
    };
    const init: SendInit = { dispatch: { pipeline: this.#pipeline, settings } };
    if (options?.headers) init.headers = options.headers;
    const map = hooks?.map;
    const onError = hooks?.onError;
    const result: Promise<ApiResult<T, Err>> = send(init).then(
      ({ data, error, response }): ApiResult<T, Err> | Promise<ApiResult<T, Err>> => {
        release?.();
        if (response.ok) {
          // Without a `map` hook the answer is ready at once (no extra promise on the common path).
          if (!map) return { data: data as T, error: undefined, response };
          return Promise.resolve(map(data as SuccessBody<OperationOf<Paths, K>>, response)).then((value) => ({
            data: value,
            error: undefined,
            response,
          }));
        }
        const typed = errorFromResponse(response, error, operation) as Err;
        const failed: ApiResult<T, Err> = { data: undefined, error: typed, response };
        if (!onError) return failed;
        return Promise.resolve(onError(typed)).then(() => failed);
      },
      (error: unknown) => {
        // Before an answer (the pipeline's own typed errors, a bad upload input…) the error stays as it is.
        if (release === undefined) throw error;
        release();
        // While reading the body: the caller's abort and a malformed JSON body stay as they are; the rest becomes a typed error.
        if (options?.signal?.aborted) throw options.signal.reason;
        if (error instanceof SyntaxError) throw error;
        throw transportError(error, operation);
      },
    );
    return (options?.throwOnError === false ? result : new ApiPromise(result)) as Call<O, T, Err>;
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
