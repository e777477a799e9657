import { ImportJobError } from '../errors/import-job-error.js';
import type { components } from '../generated/main.js';
import { sleep as defaultSleep, type Sleep } from '../resilience/abort.js';

/** The state of an organization's import (`GET …/import/menu` or `…/import/clients`). */
export type ImportJobState = components['schemas']['ImportJobState'];
/** The job kinds that run asynchronously. */
export type ImportKind = 'menu' | 'clients';

/** Options of {@link ImportJob.wait}. */
export interface ImportWaitOptions {
  /** Called with each state read while the job is ours (`job_percent` from 0 to 100); a returned promise is awaited before the next read. */
  onProgress?: (state: ImportJobState) => unknown;
  /** Stops waiting (the promise rejects with the signal's reason); the job itself keeps running. */
  signal?: AbortSignal;
  /** Pause between two reads, in ms (default 1 000). */
  intervalMs?: number;
}

/** Reads the organization's import state (a resource method bound to the job's organization). */
export type ImportStateReader = (options: { signal?: AbortSignal }) => Promise<ImportJobState>;

/**
 * A handle on a queued import job: read its state or wait for it to finish.
 * @example
 * const job = await api.imports.menu(1, { dishes });
 * const done = await job.wait({ onProgress: (s) => console.log(`${s.job_percent}%`) });
 */
export class ImportJob {
  /** `menu` or `clients`. */
  readonly kind: ImportKind;
  /** The organization the job imports into. */
  readonly organizationId: number;
  /** The job's id (opaque). */
  readonly id: string;
  readonly #read: ImportStateReader;
  readonly #sleep: Sleep;

  constructor(
    kind: ImportKind,
    organizationId: number,
    id: string,
    read: ImportStateReader,
    sleep: Sleep = defaultSleep,
  ) {
    this.kind = kind;
    this.organizationId = organizationId;
    this.id = id;
    this.#read = read;
    this.#sleep = sleep;
  }

  /** Reads the organization's import state now. */
  state(options: { signal?: AbortSignal } = {}): Promise<ImportJobState> {
    return this.#read(options);
  }

  /**
   * Polls the state every `intervalMs` until the job is `done` (resolves with that state) or `failed`
   * (rejects with {@link ImportJobError}); reports each state to `onProgress`.
   */
  async wait(options: ImportWaitOptions = {}): Promise<ImportJobState> {
    const intervalMs = options.intervalMs ?? 1_000;
    const operation = `GET /api/organizations/{id}/import/${this.kind}`;
    for (;;) {
      options.signal?.throwIfAborted();
      const state = await this.#read(options.signal ? { signal: options.signal } : {});
      if (state.job_id !== this.id) {
        throw new ImportJobError({
          status: undefined,
          operation,
          reason: 'superseded',
          state,
          message: `Import job ${this.id} is no longer the organization's current ${this.kind} import (now ${state.job_id ?? 'none'}); its outcome is unknown.`,
        });
      }
      await options.onProgress?.(state);
      if (state.job_status === 'done') return state;
      if (state.job_status === 'failed') {
        throw new ImportJobError({
          status: undefined,
          operation,
          reason: 'failed',
          state,
          message: `Import job ${this.id} failed: ${state.job_message ?? 'no reason given'}`,
        });
      }
      await this.#sleep(intervalMs, options.signal);
    }
  }
}
