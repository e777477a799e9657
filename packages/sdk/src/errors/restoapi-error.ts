import type { components } from '../generated/main.js';

/** One error object of the API's error body (`source.pointer` names the field at fault). */
export type ApiErrorObject = components['schemas']['Error'];
/** What every error of the SDK knows about the request that failed. */
export interface RestoApiErrorInit<S extends number | undefined> {
  /** HTTP status, `undefined` without an answer. */
  status: S;
  /** `METHOD path` of the operation, e.g. `GET /api/orders/{id}`. */
  operation: string;
  /** The API's error objects. */
  errors?: ApiErrorObject[];
  /** Headers of the answer. */
  headers?: Headers;
  /** The parsed body of the answer. */
  body?: unknown;
  /** Message instead of the one built from the operation, status and error details. */
  message?: string;
  /** The underlying error. */
  cause?: unknown;
}

/**
 * Base class of every error the SDK raises: an HTTP error answer, a connection failure or a timeout.
 * @example
 * try { await api.orders.get(1) } catch (e) { if (e instanceof RestoApiError) console.log(e.status, e.requestId, e.operation) }
 */
export class RestoApiError<S extends number | undefined = number | undefined> extends Error {
  /** HTTP status of the answer; `undefined` when no answer arrived (connection error, timeout). */
  readonly status: S;
  /** The API's error objects (`errors` of the body); empty when the body had none. */
  readonly errors: ApiErrorObject[];
  /** The `X-Request-Id` of the answer, to quote in support tickets. */
  readonly requestId: string | undefined;
  /** `METHOD path` of the operation, e.g. `GET /api/orders/{id}`. */
  readonly operation: string;
  /** Headers of the answer (empty when none arrived). */
  readonly headers: Headers;
  /** The parsed body of the answer, as received. */
  readonly body: unknown;
  override name = 'RestoApiError';

  constructor(init: RestoApiErrorInit<S>) {
    super(init.message ?? describe(init), init.cause === undefined ? undefined : { cause: init.cause });
    this.status = init.status;
    this.errors = init.errors ?? [];
    this.headers = init.headers ?? new Headers();
    this.requestId = this.headers.get('x-request-id') ?? undefined;
    this.operation = init.operation;
    this.body = init.body;
  }
}

function describe(init: RestoApiErrorInit<number | undefined>): string {
  const details = (init.errors ?? []).map((e) => e.detail ?? e.title).join('; ');
  return `${init.operation} failed${init.status === undefined ? '' : ` with ${init.status}`}${details ? `: ${details}` : ''}`;
}
