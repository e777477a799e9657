/** The outcome of a call that does not throw on HTTP errors. */
export type ApiResult<Data, Err> =
  { data: Data; error: undefined; response: Response } | { data: undefined; error: Err; response: Response };

/**
 * The promise every resource method returns: a native promise of the data that rejects with the typed error,
 * plus `.withResponse()` for `{ data, error, response }`.
 * @example
 * const { data, error, response } = await api.orders.get(5001).withResponse();
 * if (error?.status === 404) console.log('gone', error.requestId);
 */
export interface ApiPromise<Data, Err> extends Promise<Data> {
  /** Resolves to `{ data, error, response }`: HTTP error answers do not throw (connection errors, timeouts and aborts still do). */
  withResponse(): Promise<ApiResult<Data, Err>>;
}

/** What a call records while it runs, for `withResponse()`: the final answer and the typed error it threw for it. */
export interface CallRecord {
  response?: Response | undefined;
  error?: unknown;
}

/** `{ data, error, response }` of a call: its typed HTTP error becomes `error`, any other failure still rejects. */
export function resultOf<Data, Err>(data: Promise<Data>, record: CallRecord): Promise<ApiResult<Data, Err>> {
  return data.then(
    (value) => ({ data: value, error: undefined, response: record.response! }),
    (error: unknown) => {
      if (error === undefined || error !== record.error) throw error;
      return { data: undefined, error: error as Err, response: record.response! };
    },
  );
}

/** Where the promise keeps its call's record. */
const RECORD = Symbol('restoapi.callRecord');

type RecordedPromise = Promise<unknown> & { [RECORD]: CallRecord };

/** `withResponse()`, shared by every call's promise. */
function withResponse(this: RecordedPromise): Promise<ApiResult<unknown, unknown>> {
  return resultOf(this, this[RECORD]);
}

/**
 * Adds `withResponse()` to the call's own promise. It stays a native promise (not a subclass or a thenable),
 * because `await` takes a fast path only for those: a wrapper object cost each call several extra turns of
 * the microtask queue. The method is one shared function reading the record from the promise: a closure per
 * call over the promise tripled the garbage collector's work per call (measured with a `gc` PerformanceObserver).
 * Like any promise, a failed call nobody handles is reported as an unhandled rejection.
 */
export function toApiPromise<Data, Err>(data: Promise<Data>, record: CallRecord): ApiPromise<Data, Err> {
  const promise = data as unknown as RecordedPromise & { withResponse: typeof withResponse };
  promise[RECORD] = record;
  promise.withResponse = withResponse;
  return promise as unknown as ApiPromise<Data, Err>;
}
