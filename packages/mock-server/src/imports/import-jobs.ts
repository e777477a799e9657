import type { components } from '@restoapi/openapi';
import { HttpError, errorObject } from '../engine/http-error.js';
import type { MockRuntime } from '../engine/runtime.js';
import type { ImportJobRecord } from '../state/mock-state.js';

type S = components['schemas'];

/** The two job-based imports; each kind has its own "one at a time" slot per organization. */
export type ImportKind = ImportJobRecord['kind'];

/**
 * Applies a job's validated payload to the state, all or nothing. Returns the
 * result message, or throws an `Error` whose message says why nothing was changed.
 */
export type ImportApplier = (runtime: MockRuntime, job: ImportJobRecord) => string;

/** What a kind of import needs to run as a job. */
export interface ImportKindSpec {
  apply: ImportApplier;
  /** Number of records in the payload, for progress messages. */
  count: (payload: unknown) => number;
  /** Plural noun for progress messages: `dishes`, `clients`. */
  noun: string;
  /** Name in messages: `menu import`, `client import`. */
  title: string;
}

const KINDS = new Map<ImportKind, ImportKindSpec>();

/** Registers how a kind of import runs (called by the menu and client import modules). */
export function registerImportKind(kind: ImportKind, spec: ImportKindSpec): void {
  KINDS.set(kind, spec);
}

function specOf(kind: ImportKind): ImportKindSpec {
  const spec = KINDS.get(kind);
  if (!spec) throw new Error(`no import of kind ${kind} is registered`);
  return spec;
}

/**
 * The opaque `job_id` of a job (decided: 24 hexadecimal characters). Derived
 * from the record id so it survives a state export and import unchanged.
 */
export function jobIdOf(job: ImportJobRecord): string {
  return job.id.toString(16).padStart(24, '0');
}

function isRunning(job: ImportJobRecord): boolean {
  return job.job_status === 'queued' || job.job_status === 'working';
}

/** The organization's latest job of a kind. */
export function lastJob(runtime: MockRuntime, organizationId: number, kind: ImportKind): ImportJobRecord | undefined {
  let last: ImportJobRecord | undefined;
  for (const job of runtime.state.importJobs.all()) {
    if (job.organization_id === organizationId && job.kind === kind && (!last || job.id > last.id)) last = job;
  }
  return last;
}

interface Progress {
  job_status: S['ImportJobStatus'];
  job_message: string | null;
  job_percent: number;
}

const round1 = (value: number): number => Math.round(value * 10) / 10;

/**
 * A job's progress, derived from the virtual clock: `job_percent` is the
 * elapsed share of the job's duration, so tests move it with `clock.advance`.
 * `queued` until the clock moves past the start, `working` (below 100) until
 * the completion task has run.
 */
export function progressOf(runtime: MockRuntime, job: ImportJobRecord): Progress {
  const started = Date.parse(job.created_at);
  const duration = Math.max(0, Date.parse(job.finishes_at) - started);
  const share = (at: number): number =>
    duration === 0 ? 100 : Math.min(100, Math.max(0, ((at - started) / duration) * 100));
  if (job.job_status === 'done') return { job_status: 'done', job_message: job.job_message, job_percent: 100 };
  if (job.job_status === 'failed') {
    return {
      job_status: 'failed',
      job_message: job.job_message,
      job_percent: round1(share(Date.parse(job.finished_at ?? job.finishes_at))),
    };
  }
  const elapsed = runtime.clock.nowMs() - started;
  if (elapsed <= 0) return { job_status: 'queued', job_message: job.job_message, job_percent: 0 };
  // Capped below 100 while running: 100 means the job is done.
  const percent = Math.min(99.9, round1(share(runtime.clock.nowMs())));
  const spec = specOf(job.kind);
  const total = spec.count(job.payload);
  const processed = Math.min(total, Math.floor((percent / 100) * total));
  return {
    job_status: 'working',
    job_message: `Importing ${spec.noun} (${processed} of ${total})`,
    job_percent: percent,
  };
}

/** The answer of `GET …/import/{kind}` (`ImportJobState`): `busy` while queued or working, all `null` without a job. */
export function jobState(runtime: MockRuntime, job: ImportJobRecord | undefined): S['ImportJobState'] {
  if (!job) return { status: 'idle', job_id: null, job_status: null, job_message: null, job_percent: null };
  const progress = progressOf(runtime, job);
  return { status: isRunning(job) ? 'busy' : 'idle', job_id: jobIdOf(job), ...progress };
}

/**
 * Completes a job: applies its payload atomically and records `done`, or
 * `failed` with the reason when the applier refuses (nothing is changed then).
 * A job already finished, or replaced by a state import, is left alone.
 */
export function completeJob(runtime: MockRuntime, job: ImportJobRecord): void {
  const current = runtime.state.importJobs.get(job.id);
  if (!current || current !== job || !isRunning(current)) return;
  const spec = specOf(current.kind);
  const now = runtime.nowIso();
  try {
    current.job_message = spec.apply(runtime, current);
    current.job_status = 'done';
  } catch (error) {
    current.job_status = 'failed';
    current.job_message = `The ${spec.title} failed: ${(error as Error).message} Nothing was changed; fix the data and retry.`;
  }
  current.finished_at = now;
  // The validated payload is only needed while the job runs; keeping it would bloat the state file.
  current.payload = null;
}

/**
 * Completes every running job that is due by the virtual clock. Scheduled
 * tasks normally do this; calling it before reading or starting jobs also
 * covers jobs restored from a state file, whose tasks were never scheduled.
 */
export function settleDueJobs(runtime: MockRuntime, organizationId: number, kind: ImportKind): void {
  const now = runtime.clock.nowMs();
  for (const job of runtime.state.importJobs.filter(
    (j) => j.organization_id === organizationId && j.kind === kind && isRunning(j),
  )) {
    if (Date.parse(job.finishes_at) <= now) completeJob(runtime, job);
  }
}

/**
 * Refuses a second import of a kind while one runs in the organization
 * (Menu import rules 2, Limits 1): 409 with the spec's busy object, the running
 * job's data and the `errors` array of every error answer (decided).
 */
export function assertNotBusy(runtime: MockRuntime, organizationId: number, kind: ImportKind): void {
  const running = runtime.state.importJobs.find(
    (j) => j.organization_id === organizationId && j.kind === kind && isRunning(j),
  );
  if (!running) return;
  const progress = progressOf(runtime, running);
  const spec = specOf(kind);
  throw new HttpError(
    409,
    [
      errorObject(
        409,
        'import_busy',
        'An import is already running',
        `A ${spec.title} of organization ${organizationId} is in progress (${progress.job_percent} %); retry when it is done.`,
      ),
    ],
    {},
    { status: 'busy', job_id: jobIdOf(running), ...progress },
  );
}

/**
 * Queues a job and schedules its completion on the virtual clock after
 * `importDurationMs`. With a duration of 0 the import is applied at once, but
 * the caller still answers `202 queued`, as the import stays asynchronous by contract.
 */
export function startJob(
  runtime: MockRuntime,
  organizationId: number,
  kind: ImportKind,
  payload: unknown,
  options: ImportJobRecord['options'] = {},
): ImportJobRecord {
  const nowMs = runtime.clock.nowMs();
  const duration = Math.max(0, runtime.config.importDurationMs);
  const job = runtime.state.importJobs.insert({
    organization_id: organizationId,
    kind,
    job_status: 'queued',
    job_message: 'Waiting for a worker.',
    created_at: new Date(nowMs).toISOString(),
    finishes_at: new Date(nowMs + duration).toISOString(),
    finished_at: null,
    payload,
    options,
  });
  if (duration === 0) {
    completeJob(runtime, job);
  } else {
    runtime.clock.schedule(nowMs + duration, () => {
      completeJob(runtime, job);
      runtime.changed();
    });
  }
  return job;
}
