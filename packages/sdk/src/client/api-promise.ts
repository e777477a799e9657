/** The outcome of a call that does not throw on HTTP errors. */
export type ApiResult<Data, Err> =
  { data: Data; error: undefined; response: Response } | { data: undefined; error: Err; response: Response };

/**
 * The promise every resource method returns: resolves to the data and throws a typed error,
 * or gives `{ data, error, response }` through `.withResponse()`.
 * @example
 * const { data, error, response } = await api.orders.get(5001).withResponse();
 * if (error?.status === 404) console.log('gone', error.requestId);
 */
export class ApiPromise<Data, Err> implements Promise<Data> {
  readonly #result: Promise<ApiResult<Data, Err>>;
  #data: Promise<Data> | undefined;

  /** Wraps a pending result; the request is already under way. */
  constructor(result: Promise<ApiResult<Data, Err>>) {
    this.#result = result;
  }

  /** Resolves to `{ data, error, response }`: HTTP error answers do not throw (connection errors, timeouts and aborts still do). */
  withResponse(): Promise<ApiResult<Data, Err>> {
    return this.#result;
  }

  #unwrap(): Promise<Data> {
    this.#data ??= this.#result.then((result) => {
      if (result.error !== undefined) throw result.error;
      return result.data as Data;
    });
    return this.#data;
  }

  /** Resolves to the data; rejects with the typed error. */
  then<A = Data, B = never>(
    onfulfilled?: ((value: Data) => A | PromiseLike<A>) | null,
    onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
  ): Promise<A | B> {
    return this.#unwrap().then(onfulfilled, onrejected);
  }

  /** Handles the typed error (or a connection error, timeout, abort). */
  catch<B = never>(onrejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<Data | B> {
    return this.#unwrap().catch(onrejected);
  }

  /** Runs when the call settles either way. */
  finally(onfinally?: (() => void) | null): Promise<Data> {
    return this.#unwrap().finally(onfinally);
  }

  /** `[object ApiPromise]`. */
  get [Symbol.toStringTag](): string {
    return 'ApiPromise';
  }
}
