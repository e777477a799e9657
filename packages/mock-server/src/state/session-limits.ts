/**
 * The limits a shared mock needs so that one worker cannot fill the box's memory for everyone: records held by
 * a session (`maxRecords`) and imports running at once in it (`maxConcurrentImports`). Both are refused with
 * 429 (a quota on what the caller holds, as the session limit is) and an error naming the limit and its option.
 */
import { HttpError, errorObject } from '../engine/http-error.js';
import type { MockRuntime } from '../engine/runtime.js';
import { TABLE_NAMES } from './mock-state.js';

/** Rows of every table of the session together. */
export function recordCount(runtime: MockRuntime): number {
  let count = 0;
  for (const name of TABLE_NAMES) count += runtime.state[name].size;
  return count;
}

/** 429 naming the limit and the option that raises it. */
function limitReached(code: string, detail: string): HttpError {
  return new HttpError(429, [errorObject(429, code, 'Limit reached', detail)], { 'Retry-After': '60' });
}

/**
 * Refuses a request that would add `adding` records to a session already holding `maxRecords` (or more than fit).
 * Existing records stay readable, changeable and deletable: deleting frees room.
 */
export function assertRoomFor(runtime: MockRuntime, adding = 1): void {
  const limit = runtime.config.maxRecords;
  const held = recordCount(runtime);
  if (held + adding <= limit) return;
  throw limitReached(
    'record_limit_reached',
    `This session holds ${held} records and may hold at most maxRecords (${limit}; restoapi-mock --max-records); ` +
      `this request would add ${adding}. Delete records, reset the session (POST /__mock/reset) or use a new one.`,
  );
}

/** Imports of the session whose photos are being fetched, by runtime (they hold no job yet). */
const fetching = new WeakMap<MockRuntime, number>();

/** Imports of the session running now: jobs not yet finished by the virtual clock, and photo downloads under way. */
export function runningImports(runtime: MockRuntime): number {
  const now = runtime.clock.nowMs();
  const jobs = runtime.state.importJobs.filter(
    (job) => (job.job_status === 'queued' || job.job_status === 'working') && Date.parse(job.finishes_at) > now,
  ).length;
  return jobs + (fetching.get(runtime) ?? 0);
}

/** Refuses one more import while the session already runs `maxConcurrentImports`. */
export function assertImportSlot(runtime: MockRuntime): void {
  const limit = runtime.config.maxConcurrentImports;
  const running = runningImports(runtime);
  if (running < limit) return;
  throw limitReached(
    'import_limit_reached',
    `This session runs ${running} imports and may run at most maxConcurrentImports (${limit}; ` +
      'restoapi-mock --max-concurrent-imports) at once; retry when one is done.',
  );
}

/** Runs `work` (an import's photo downloads) in one of the session's import slots, refusing when none is free. */
export async function withImportSlot<T>(runtime: MockRuntime, work: () => Promise<T>): Promise<T> {
  assertImportSlot(runtime);
  fetching.set(runtime, (fetching.get(runtime) ?? 0) + 1);
  try {
    return await work();
  } finally {
    fetching.set(runtime, (fetching.get(runtime) ?? 1) - 1);
  }
}
