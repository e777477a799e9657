import { ImportJobError, ImportJobTimeoutError, type ImportJobState } from '../errors/import-job-error.js';
import { sleep as defaultSleep, type Sleep } from '../resilience/abort.js';

export type { ImportJobState } from '../errors/import-job-error.js';
/** The job kinds that run asynchronously. */
export type ImportKind = 'menu' | 'clients';

/** How long {@link ImportJob.wait} waits by default before it gives up with {@link ImportJobTimeoutError}: 10 minutes. */
export const DEFAULT_IMPORT_TIMEOUT_MS = 600_000;

/** The job statuses the spec names for a job that has not ended; any other one means the job is over. */
const RUNNING = new Set(['queued', 'working']);
/** Names of an ended job that never mean success, whatever its progress says. */
const FAILURE = /fail|error|cancel|abort|reject/i;

/** Options of {@link ImportJob.wait}. */
export interface ImportWaitOptions {
  /** Called with each state read while the job is ours (`job_percent` from 0 to 100); a returned promise is awaited before the next read. */
  onProgress?: (state: ImportJobState) => unknown;
  /** Stops waiting (the promise rejects with the signal's reason); the job itself keeps running. */
  signal?: AbortSignal;
  /** Pause between two reads, in ms (default 1 000). */
  intervalMs?: number;
  /**
   * Longest wait in ms (default 600 000, ten minutes); then `wait()` rejects with {@link ImportJobTimeoutError},
   * which carries the last state read. The job itself keeps running.
   */
  timeoutMs?: number;
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
  /** The job's id (opaque), as text also when the service sends a number. */
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
   * Polls the state every `intervalMs` until the job is no longer running (its `job_status` is neither `queued` nor
   * `working`, the names the spec gives a running job) and reports each state to `onProgress`. An ended job
   * succeeded when its `job_percent` is 100 and its status does not name a failure (`failed`, `error`,
   * `cancelled`…): `wait()` resolves with that state; else it rejects with {@link ImportJobError} (`reason:
   * 'failed'`). After `timeoutMs` (default ten minutes) it rejects with {@link ImportJobTimeoutError}.
   */
  async wait(options: ImportWaitOptions = {}): Promise<ImportJobState> {
    const intervalMs = options.intervalMs ?? 1_000;
    const timeoutMs = options.timeoutMs ?? DEFAULT_IMPORT_TIMEOUT_MS;
    const operation = `GET /api/organizations/{id}/import/${this.kind}`;
    const timedOut = new Error(`waited ${timeoutMs} ms for import job ${this.id}`);
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(timedOut), timeoutMs);
    // The deadline must not keep a Node process alive on its own (browsers' timers have no unref).
    (timer as { unref?: () => void }).unref?.();
    const signal = options.signal ? AbortSignal.any([options.signal, deadline.signal]) : deadline.signal;
    let last: ImportJobState | undefined;
    try {
      for (;;) {
        signal.throwIfAborted();
        const state = await this.#read({ signal });
        last = state;
        // The spec leaves the id's type open: a service may send a number for the job known as "42".
        if (state.job_id === null || String(state.job_id) !== this.id) {
          throw new ImportJobError({
            status: undefined,
            operation,
            reason: 'superseded',
            state,
            message: `Import job ${this.id} is no longer the organization's current ${this.kind} import (now ${state.job_id ?? 'none'}); its outcome is unknown.`,
          });
        }
        await options.onProgress?.(state);
        if (state.job_status === null || !RUNNING.has(state.job_status)) return this.#outcome(state, operation);
        await this.#sleep(intervalMs, signal);
      }
    } catch (error) {
      if (error !== timedOut) throw error;
      throw new ImportJobTimeoutError({
        status: undefined,
        operation,
        jobId: this.id,
        timeoutMs,
        state: last,
        message: `Import job ${this.id} still ${last?.job_status ?? 'unread'} (${last?.job_percent ?? '?'} %) after ${timeoutMs} ms; it keeps running on the service.`,
      });
    } finally {
      clearTimeout(timer);
    }
  }

  /** The state of an ended job when it succeeded; else its {@link ImportJobError}. */
  #outcome(state: ImportJobState, operation: string): ImportJobState {
    const status = state.job_status ?? 'no status';
    if (!FAILURE.test(status) && state.job_percent !== null && state.job_percent >= 100) return state;
    throw new ImportJobError({
      status: undefined,
      operation,
      reason: 'failed',
      state,
      message: `Import job ${this.id} ended as ${status} at ${state.job_percent ?? '?'} %: ${state.job_message ?? 'no reason given'}`,
    });
  }
}
