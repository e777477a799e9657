import type { components } from '../generated/main.js';
import { RestoApiError, type RestoApiErrorInit } from './restoapi-error.js';

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
