import type { components } from '../generated/main.js';
import type { ImportJob } from '../imports/import-job.js';
import { parseRetryAfter } from '../resilience/retry-policy.js';
import { RestoApiError, type ApiErrorObject, type RestoApiErrorInit } from './restoapi-error.js';

// The base class lives in its own module, and ImportJobError in another, so that the import job (which throws
// ImportJobError) and ConflictError (which carries an ImportJob) do not import each other.
export { RestoApiError, type ApiErrorObject, type RestoApiErrorInit } from './restoapi-error.js';
export { ImportJobError, ImportJobTimeoutError } from './import-job-error.js';

/**
 * The body of the import `busy` answer (409): the running job plus the error objects. The id's type and the job
 * statuses beyond `queued`/`working` are the service's (not shown by the spec).
 */
export type ImportBusyBody = Omit<components['schemas']['ImportJobBusy'], 'job_id' | 'job_status'> & {
  job_id: string | number;
  job_status: 'queued' | 'working' | (string & {}) | null;
};
/** The 5xx statuses HTTP registers (any other 5xx is also an {@link InternalServerError} at run time). */
export type ServerErrorStatus = 500 | 501 | 502 | 503 | 504 | 505 | 506 | 507 | 508 | 510 | 511;

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
 * Whether an answer's body is the import `busy` object: `status: "busy"` with the running job's id. The spec
 * shows the body but not the HTTP status, so the SDK knows it by its body, whatever its status.
 */
export function isImportBusyBody(body: unknown): body is ImportBusyBody {
  if (!body || typeof body !== 'object') return false;
  const busy = body as Partial<ImportBusyBody>;
  return busy.status === 'busy' && (typeof busy.job_id === 'string' || typeof busy.job_id === 'number');
}

/**
 * 409: the request clashes with the current state (an illegal transition, or an import already running). An
 * import's `busy` answer is a `ConflictError` whatever its status (the spec leaves it open): `S` is then the
 * status the service gave (a 200, a 423…).
 * @example
 * catch (e) { if (e instanceof ConflictError && e.busy) console.log('running job', e.busy.job_id, e.busy.job_percent) }
 */
export class ConflictError<S extends number = 409> extends RestoApiError<S> {
  override name = 'ConflictError';
  /** The running import when the answer is the import `busy` object; `undefined` for other conflicts. */
  readonly busy: ImportBusyBody | undefined;
  /** A handle on the running import job, set when the conflict came from an `imports` method. */
  job: ImportJob | undefined;

  constructor(init: RestoApiErrorInit<S>) {
    super(init);
    this.busy = isImportBusyBody(init.body) ? init.body : undefined;
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
