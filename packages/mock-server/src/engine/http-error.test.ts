import { createApiDescription } from '@restoapi/openapi';
import { expect, test, vi } from 'vitest';
import { HttpError, assertDocumentedResponse } from './http-error.js';

const api = createApiDescription();

function driftOf(operationId: string, status: number, body: unknown): string {
  try {
    assertDocumentedResponse(api, operationId, status, body);
  } catch (error) {
    expect(error).toBeInstanceOf(HttpError);
    expect((error as HttpError).status).toBe(500);
    return (error as HttpError).errors[0]!.detail ?? '';
  }
  return 'no drift';
}

test('a drifting answer is a 500 response_drift that tells stated problems from decided ones', () => {
  vi.spyOn(console, 'error').mockImplementation(() => {});
  const detail = driftOf('getMenuImport', 200, {
    status: 'idle',
    job_id: 'abc',
    job_status: 'finished',
    job_message: null,
  });
  expect(detail).toContain('[decided: /components/schemas/ImportJobStatus]');
  expect(detail).toMatch(/job_percent.*\[decided: \/components\/schemas\/ImportJobState\]/);
  expect(driftOf('getRestaurant', 200, { restaurant: {} })).toMatch(/restaurants.*\[stated\]/);
  const restaurant = { id: 11, name: 'Kreuzberg', phone: '+49 30 1', address: 'Oranienstr. 45', organization_id: 1 };
  expect(driftOf('getRestaurant', 200, { restaurants: [restaurant] })).toBe('no drift');
  vi.restoreAllMocks();
});
