/**
 * Type helpers that read an operation's types out of the generated `paths`,
 * keyed by `METHOD path` (e.g. `'GET /api/orders/{id}'`). Nothing here restates an API type.
 */
import type { ErrorForStatus } from '../errors/error-from-response.js';
import type { paths as MainPaths } from '../generated/main.js';

type Method = 'get' | 'put' | 'post' | 'delete';
type Defined<T> = [NonNullable<T>] extends [never] ? false : true;

/** Every `METHOD path` of a paths type, e.g. `'PUT /api/orders/{id}/status'`. */
export type OperationKey<Paths> = {
  [P in keyof Paths & string]: {
    [M in keyof Paths[P] & Method]: Defined<Paths[P][M]> extends true ? `${Uppercase<M>} ${P}` : never;
  }[keyof Paths[P] & Method];
}[keyof Paths & string];

/** The generated operation type behind a `METHOD path` key. */
export type OperationOf<Paths, K extends string> = K extends `${infer M} ${infer P}`
  ? P extends keyof Paths
    ? Lowercase<M> extends keyof Paths[P]
      ? NonNullable<Paths[P][Lowercase<M>]>
      : never
    : never
  : never;

type SuccessStatus = 200 | 201 | 202 | 203 | 204 | 206;
type Responses<Op> = Op extends { responses: infer R } ? R : never;

/** The JSON body of an operation's success answer (`undefined` for 204). */
export type SuccessBody<Op> = {
  [S in keyof Responses<Op> & SuccessStatus]: Responses<Op>[S] extends { content: { 'application/json': infer J } }
    ? J
    : undefined;
}[keyof Responses<Op> & SuccessStatus];

/** The union of error classes for the statuses an operation documents (narrow it with `error.status`). */
export type OperationError<Op> = { [S in keyof Responses<Op>]: ErrorForStatus<S> }[keyof Responses<Op>];

/** The JSON request body of an operation. */
export type RequestBody<Op> = Op extends { requestBody?: infer B }
  ? NonNullable<B> extends { content: { 'application/json': infer J } }
    ? J
    : never
  : never;

/** The query parameters of an operation. */
export type QueryParams<Op> = Op extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** A main-API operation by `METHOD path`. */
export type MainOp<K extends OperationKey<MainPaths>> = OperationOf<MainPaths, K>;
/** The success body of a main-API operation. */
export type MainData<K extends OperationKey<MainPaths>> = SuccessBody<MainOp<K>>;
/** The JSON request body of a main-API operation. */
export type MainBody<K extends OperationKey<MainPaths>> = RequestBody<MainOp<K>>;
/** The query parameters of a main-API operation. */
export type MainQuery<K extends OperationKey<MainPaths>> = QueryParams<MainOp<K>>;
/** The error union of a main-API operation. */
export type MainError<K extends OperationKey<MainPaths>> = OperationError<MainOp<K>>;

/** Makes the keys `K` of `T` optional: fields the service fills with a documented default when they are left out. */
export type WithDefaults<T, K extends keyof T> = Omit<T, K> & Partial<Pick<T, K>>;
