import { expect, test } from 'vitest';
import { createMock } from '../index.js';
import { jobState, progressOf, startJob } from './import-jobs.js';
import './client-import.js';

test('job progress is the elapsed share of the duration, capped below 100 until the job is done', async () => {
  const mock = createMock({ config: { importDurationMs: 3000 } });
  const { runtime } = mock;
  await runtime.clock.set(new Date('2026-11-20T10:00:00Z'), true);
  const job = startJob(runtime, 1, 'clients', {
    clients: [{ external_id: 'a' }, { external_id: 'b' }, { external_id: 'c' }],
  });
  expect(progressOf(runtime, job)).toMatchObject({ job_status: 'queued', job_percent: 0 });
  await runtime.clock.advance(2000);
  expect(progressOf(runtime, job)).toEqual({
    job_status: 'working',
    job_percent: 66.7,
    job_message: 'Importing clients (2 of 3)',
  });
  await runtime.clock.advance(1000);
  expect(jobState(runtime, job)).toMatchObject({ status: 'idle', job_status: 'done', job_percent: 100 });
  expect(job.finished_at).toBe('2026-11-20T10:00:03.000Z');
  // The payload is dropped once applied.
  expect(job.payload).toBeNull();
  mock.close();
});

test('a job whose organization vanished fails and changes nothing', async () => {
  const mock = createMock({ config: { importDurationMs: 0 } });
  const before = mock.runtime.state.clients.size;
  const job = startJob(mock.runtime, 99, 'clients', { clients: [{ external_id: 'a' }] });
  expect(job.job_status).toBe('failed');
  expect(job.job_message).toContain('Organization 99 no longer exists');
  expect(mock.runtime.state.clients.size).toBe(before);
  mock.close();
});
