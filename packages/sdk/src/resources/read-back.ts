import type { RequestOptions } from '../transport/options.js';

/**
 * Options of a method whose useful result is a record the answer may lack: the spec shows no body for the answers
 * to PUT, confirm and status requests, so a correct service may answer `204`.
 */
export interface ReadBackOptions {
  /**
   * `true` (the client's default): when the answer holds no record, read it back with one GET of the record.
   * `false`: no extra request; the method resolves to `undefined` when the answer holds no record.
   */
  readBack?: boolean;
}

/**
 * The client-wide read-back setting, beside the client's options. It is kept out of the options interfaces so
 * that a client made from a typed options object keeps the default (`true`) in its types.
 */
export interface ClientReadBack<R extends boolean> {
  /**
   * Whether the methods that change a record (`orders.setStatus`, `confirm`, `update`, `draftDishes.update`,
   * `carrier.updateDelivery`…) read it back with one GET when the answer holds none (a `204`: the spec shows no
   * body for those answers). Default `true`; `false` makes them resolve to `undefined` then, and their types say
   * so. A call's `readBack` option overrides it.
   */
  readBack?: R;
}

type CallFlag<O> = O extends { readBack?: infer F } ? F : undefined;
type Resolve<F, R extends boolean> = F extends true ? true : F extends false ? false : R;

/** Whether a call with options `O` on a client whose read-back setting is `R` reads the record back. */
export type ReadBackOn<R extends boolean, O> = Resolve<CallFlag<NonNullable<O>>, R>;

/**
 * What a record method resolves to: the record's answer (the same shape as its GET), or also `undefined` when the
 * read-back may be off (`readBack: false` on the call or on the client).
 */
export type RecordResult<Rec, R extends boolean, O> = [ReadBackOn<R, O>] extends [true] ? Rec : Rec | undefined;

/** Whether a value is a JSON object (not an array, not `null`). */
export function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Whether an answer holds the record under `key` (an object, or an array for `restaurants`). */
export function holdsRecord(answer: unknown, key: string): boolean {
  if (!isObject(answer)) return false;
  const record = answer[key];
  return Array.isArray(record) ? record.length > 0 : isObject(record);
}

/** The options a read-back GET inherits from the call: its signal, deadline, retries and headers. */
export function readBackOptions(options: RequestOptions | undefined): Omit<RequestOptions, 'throwOnError'> {
  if (!options) return {};
  const inherited: Omit<RequestOptions, 'throwOnError'> = {};
  if (options.signal) inherited.signal = options.signal;
  if (options.timeoutMs !== undefined) inherited.timeoutMs = options.timeoutMs;
  if (options.maxRetries !== undefined) inherited.maxRetries = options.maxRetries;
  if (options.headers) inherited.headers = options.headers;
  return inherited;
}

/**
 * The `after` hook of a record method: the answer when it holds the record (`record`: its root key, or a test),
 * else the record read back by `read` (one GET, with the call's signal, deadline, retries and headers) when the
 * read-back is on (the call's `readBack`, else the client's), else `undefined`. Typed `never` so that it fits the
 * hook of any method; the method's declared result ({@link RecordResult}) is what the type tests check.
 */
export function readBack(
  record: string | ((answer: unknown) => boolean),
  clientDefault: boolean,
  options: (RequestOptions & ReadBackOptions) | undefined,
  read: (options: Omit<RequestOptions, 'throwOnError'>) => PromiseLike<unknown>,
): never {
  const holds = typeof record === 'string' ? (answer: unknown) => holdsRecord(answer, record) : record;
  const enabled = options?.readBack ?? clientDefault;
  return ((answer: unknown) =>
    holds(answer) ? answer : enabled ? read(readBackOptions(options)) : undefined) as never;
}
