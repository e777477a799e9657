import { expect, test } from 'vitest';
import { clientImportProblems, isCalendarDate } from './client-import.js';

test('birthdates must be calendar dates', () => {
  expect(isCalendarDate('14/03/1991')).toBe(true);
  expect(isCalendarDate('29/02/2024')).toBe(true);
  expect(isCalendarDate('29/02/2023')).toBe(false);
  expect(isCalendarDate('31/04/1990')).toBe(false);
});

test('external ids must be unique within one import', () => {
  const problems = clientImportProblems({
    clients: [{ external_id: 'a' }, { external_id: 'b' }, { external_id: 'a' }],
  });
  expect(problems.map((p) => p.pointer)).toEqual(['/clients/2/external_id']);
});
