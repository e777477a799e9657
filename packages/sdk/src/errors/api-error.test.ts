import { expect, test } from 'vitest';
import { ConflictError, isImportBusyBody } from './api-error.js';

test('the import busy body is known by status "busy" and a job id of either type', () => {
  expect(isImportBusyBody({ status: 'busy', job_id: 'a1', job_status: 'working', job_percent: 40 })).toBe(true);
  expect(isImportBusyBody({ status: 'busy', job_id: 17 })).toBe(true);
  expect(isImportBusyBody({ status: 'busy' })).toBe(false);
  expect(isImportBusyBody({ status: 'queued', job_id: 'a1' })).toBe(false);
  expect(isImportBusyBody({ status: 'busy', job_id: null })).toBe(false);
  expect(isImportBusyBody('busy')).toBe(false);
  expect(isImportBusyBody(undefined)).toBe(false);
});

test('a ConflictError keeps the status the service gave, and busy only for the busy body', () => {
  const operation = 'POST /api/organizations/{id}/import/menu';
  const busy = new ConflictError<number>({ status: 200, operation, body: { status: 'busy', job_id: 7 } });
  expect([busy.status, busy.busy?.job_id, busy.message]).toEqual([200, 7, `${operation} failed with 200`]);
  const transition = new ConflictError({ status: 409, operation: 'PUT /api/orders/{id}/status', body: { errors: [] } });
  expect(transition.busy).toBeUndefined();
});
