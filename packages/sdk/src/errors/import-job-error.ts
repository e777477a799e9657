import type { components } from '../generated/main.js';
import { RestoApiError, type RestoApiErrorInit } from './restoapi-error.js';

type DocumentedState = components['schemas']['ImportJobState'];

/**
 * The state of an organization's import (`GET …/import/menu` or `…/import/clients`), typed as the spec states it:
 * `job_status` is `queued` or `working` while the job runs and any other name once it ended (the spec names no
 * other value), `job_percent` the progress from 0 to 100.
 */
export type ImportJobState = Omit<DocumentedState, 'status' | 'job_id' | 'job_status'> & {
  /** The running or last job (`null`: none); its type is not shown by the spec, so a number is possible. */
  job_id: string | number | null;
  /** `busy` while a job runs; other values are the service's. */
  status: 'busy' | (string & {});
  /** `queued` or `working` while the job runs; what a finished job is called is the service's choice. */
  job_status: 'queued' | 'working' | (string & {}) | null;
};

/** An import job ended without success, or stopped being the organization's current job while it was awaited. */
export class ImportJobError extends RestoApiError<undefined> {
  override name = 'ImportJobError';
  /** `failed`: the job ended without success (see `state.job_message`); `superseded`: another job replaced it, its outcome is unknown. */
  readonly reason: 'failed' | 'superseded';
  /** The last state read. */
  readonly state: ImportJobState;

  constructor(init: RestoApiErrorInit<undefined> & { reason: 'failed' | 'superseded'; state: ImportJobState }) {
    super(init);
    this.reason = init.reason;
    this.state = init.state;
  }
}

/** `wait()` on an import job reached its deadline while the job was still running (the job itself goes on). */
export class ImportJobTimeoutError extends RestoApiError<undefined> {
  override name = 'ImportJobTimeoutError';
  /** The job waited for. */
  readonly jobId: string;
  /** The deadline that passed, in ms. */
  readonly timeoutMs: number;
  /** The last state read, or `undefined` when no read finished in time. */
  readonly state: ImportJobState | undefined;

  constructor(
    init: RestoApiErrorInit<undefined> & { jobId: string; timeoutMs: number; state: ImportJobState | undefined },
  ) {
    super(init);
    this.jobId = init.jobId;
    this.timeoutMs = init.timeoutMs;
    this.state = init.state;
  }
}
