import { describe, expect, test } from 'vitest';
import { ImportJobError } from '../errors/import-job-error.js';
import { ImportJob, type ImportJobState } from './import-job.js';

const state = (over: Partial<ImportJobState>): ImportJobState => ({
  status: 'busy',
  job_id: 'j1',
  job_status: 'working',
  job_message: null,
  job_percent: 50,
  ...over,
});
const noWait = async () => undefined;

function reader(...states: ImportJobState[]) {
  let reads = 0;
  return {
    read: async () => states[Math.min(reads++, states.length - 1)]!,
    reads: () => reads,
  };
}

describe('ImportJob.wait', () => {
  test('resolves when the job is done, reporting every state', async () => {
    const { read } = reader(
      state({ job_status: 'queued', job_percent: 0 }),
      state({}),
      state({ status: 'idle', job_status: 'done', job_percent: 100 }),
    );
    const seen: (number | null)[] = [];
    const done = await new ImportJob('menu', 1, 'j1', read, noWait).wait({
      onProgress: (s) => void seen.push(s.job_percent),
    });
    expect(done.job_status).toBe('done');
    expect(seen).toEqual([0, 50, 100]);
  });

  test('rejects with ImportJobError when the job failed', async () => {
    const { read } = reader(state({ status: 'idle', job_status: 'failed', job_message: 'Category "x" is unknown' }));
    const error = await new ImportJob('clients', 1, 'j1', read, noWait).wait().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportJobError);
    expect(error).toMatchObject({
      reason: 'failed',
      operation: 'GET /api/organizations/{id}/import/clients',
      message: 'Import job j1 ended as failed at 50 %: Category "x" is unknown',
    });
  });

  test('rejects as superseded when another job became current', async () => {
    const { read } = reader(state({ job_id: 'j2' }));
    const error = await new ImportJob('menu', 1, 'j1', read, noWait).wait().catch((e: unknown) => e);
    expect(error).toMatchObject({ reason: 'superseded', state: { job_id: 'j2' } });
  });

  test('sleeps intervalMs between reads', async () => {
    const pauses: number[] = [];
    const { read } = reader(state({}), state({}), state({ job_status: 'done', job_percent: 100 }));
    await new ImportJob('menu', 1, 'j1', read, async (ms) => void pauses.push(ms)).wait({ intervalMs: 250 });
    expect(pauses).toEqual([250, 250]);
  });

  test('any status but queued and working ends the wait; job_percent 100 without a failure name is success', async () => {
    const ended = async (over: Partial<ImportJobState>) =>
      new ImportJob('menu', 1, 'j1', reader(state({}), state({ status: 'idle', ...over })).read, noWait).wait().then(
        (s) => `resolved ${s.job_status}`,
        (e: ImportJobError) => `${e.reason} ${e.state.job_status}`,
      );
    expect(await ended({ job_status: 'finished', job_percent: 100 })).toBe('resolved finished');
    expect(await ended({ job_status: 'completed', job_percent: 100 })).toBe('resolved completed');
    expect(await ended({ job_status: 'finished', job_percent: 80 })).toBe('failed finished');
    expect(await ended({ job_status: 'error', job_percent: 100 })).toBe('failed error');
    expect(await ended({ job_status: 'cancelled', job_percent: 100 })).toBe('failed cancelled');
    expect(await ended({ job_status: null, job_percent: null })).toBe('failed null');
  });
});
