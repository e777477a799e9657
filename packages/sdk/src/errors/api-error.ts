import type { components } from '../generated/main.js';
import type { ImportJob } from '../imports/import-job.js';
import { parseRetryAfter } from '../resilience/retry-policy.js';

/** One error object of the API's error body (`source.pointer` names the field at fault). */
export type ApiErrorObject = components['schemas']['Error'];
/** The body of the import `busy` answer (409): the running job plus the error objects. */
export type ImportBusyBody = components['schemas']['ImportJobBusy'];
/** The 5xx statuses HTTP registers (any other 5xx is also an {@link InternalServerError} at run time). */
export type ServerErrorStatus = 500 | 501 | 502 | 503 | 504 | 505 | 506 | 507 | 508 | 510 | 511;

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

/** 400: the request could not be read (malformed body, invalid parameter). */
export class BadRequestError extends RestoApiError<400> {
  override name = 'BadRequestError';
}

/** 401: no session, or the token is invalid, ended or expired. */
export class AuthenticationError extends RestoApiError<401> {
  override name = 'AuthenticationError';
}

/** 403: the record is visible but the account type may not do this. */
export class PermissionDeniedError extends RestoApiError<403> {
  override name = 'PermissionDeniedError';
}

/** 404: the record does not exist or is outside the caller's scope. */
export class NotFoundError extends RestoApiError<404> {
  override name = 'NotFoundError';
}

/**
 * 409: the request clashes with the current state (an illegal transition, or an import already running).
 * @example
 * catch (e) { if (e instanceof ConflictError && e.busy) console.log('running job', e.busy.job_id, e.busy.job_percent) }
 */
export class ConflictError extends RestoApiError<409> {
  override name = 'ConflictError';
  /** The running import when the answer is the import `busy` object; `undefined` for other conflicts. */
  readonly busy: ImportBusyBody | undefined;
  /** A handle on the running import job, set when the conflict came from an `imports` method. */
  job: ImportJob | undefined;

  constructor(init: RestoApiErrorInit<409>) {
    super(init);
    const body = init.body as Partial<ImportBusyBody> | undefined;
    this.busy =
      body && typeof body === 'object' && body.status === 'busy' && typeof body.job_id === 'string'
        ? (body as ImportBusyBody)
        : undefined;
    this.job = undefined;
  }
}

/**
 * 422: one or more fields are invalid; each error object names its field with `source.pointer`.
 * @example
 * catch (e) { if (e instanceof UnprocessableEntityError) for (const p of e.pointers) form.markInvalid(p) }
 */
export class UnprocessableEntityError extends RestoApiError<422> {
  override name = 'UnprocessableEntityError';
  /** The JSON pointers of the invalid fields (e.g. `/draft_dish/price`), in the order of the errors. */
  get pointers(): string[] {
    return this.errors.flatMap((e) => (e.source?.pointer === undefined ? [] : [e.source.pointer]));
  }

  /** The error objects that point at `pointer`. */
  errorsAt(pointer: string): ApiErrorObject[] {
    return this.errors.filter((e) => e.source?.pointer === pointer);
  }
}

/** 429: too many requests; `retryAfterMs` tells how long the service asked to wait. */
export class RateLimitError extends RestoApiError<429> {
  override name = 'RateLimitError';
  /** The `Retry-After` of the answer in milliseconds, when present. */
  get retryAfterMs(): number | undefined {
    return parseRetryAfter(this.headers.get('retry-after'));
  }
}

/** 5xx: the service failed; retried for idempotent requests before it surfaces. */
export class InternalServerError extends RestoApiError<ServerErrorStatus> {
  override name = 'InternalServerError';
}

/** No answer arrived: DNS, refused or reset connection, or a `fetch` that threw. */
export class ConnectionError extends RestoApiError<undefined> {
  override name = 'ConnectionError';
}

/** No complete answer arrived within `timeoutMs` (each attempt has its own timer). */
export class TimeoutError extends ConnectionError {
  override name = 'TimeoutError';
}

/** An import job ended in `failed`, or stopped being the organization's current job while it was awaited. */
export class ImportJobError extends RestoApiError<undefined> {
  override name = 'ImportJobError';
  /** `failed`: the job failed (see `state.job_message`); `superseded`: another job replaced it, its outcome is unknown. */
  readonly reason: 'failed' | 'superseded';
  /** The last state read. */
  readonly state: components['schemas']['ImportJobState'];

  constructor(
    init: RestoApiErrorInit<undefined> & {
      reason: 'failed' | 'superseded';
      state: components['schemas']['ImportJobState'];
    },
  ) {
    super(init);
    this.reason = init.reason;
    this.state = init.state;
  }
}
