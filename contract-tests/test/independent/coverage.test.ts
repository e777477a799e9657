import { expect, test } from 'vitest';
import { DEPARTURES, DEPARTURE_NAMES } from '../../../scripts/testing/independent-service.js';
import { MUTANTS, SEQUENCE_MUTANTS } from '../mutants/mutants.js';
import { SPEC_KILLED_MUTANTS, STATED_MUTANTS } from '../mutants/stated-mutants.js';
import {
  NO_DEPARTURE,
  checkableClauses,
  coverageReport,
  decisionMarkers,
  departuresByMarker,
  mutantsByClause,
} from './coverage.js';

// The figures issue 36 asks the suite to print: departures over decision markers, mutants over checkable
// clauses. Each departure and mutant is run by each-departure.test.ts, stated-mutants.test.ts and
// spec-mutants.test.ts; this test keeps their bookkeeping true and prints the coverage.
test('every departure departs from a real marker, every mutant breaks real clauses, and the coverage is printed', () => {
  const markers = new Set(decisionMarkers());
  expect([...departuresByMarker().keys()].filter((pointer) => !markers.has(pointer))).toEqual([]);
  expect(Object.keys(NO_DEPARTURE).filter((pointer) => !markers.has(pointer))).toEqual([]);
  // A marker with a departure needs no reason for having none.
  expect(Object.keys(NO_DEPARTURE).filter((pointer) => departuresByMarker().has(pointer))).toEqual([]);
  const clauses = new Set(checkableClauses());
  expect([...mutantsByClause().keys()].filter((clause) => !clauses.has(clause))).toEqual([]);
  const ids = new Set([...MUTANTS, ...SEQUENCE_MUTANTS].map((mutant) => mutant.id));
  expect(Object.keys(SPEC_KILLED_MUTANTS).filter((id) => !ids.has(id))).toEqual([]);
  expect(new Set(STATED_MUTANTS.map((mutant) => mutant.id)).size).toBe(STATED_MUTANTS.length);
  expect(DEPARTURE_NAMES.every((name) => DEPARTURES[name].decision.startsWith('/'))).toBe(true);
  const report = coverageReport();
  expect(report).toMatch(/^departures {2}\d+\/\d+ x-decision markers have a departure/);
  expect(report).toMatch(/\nmutants {5}\d+\/\d+ checkable clauses broken by a mutant that spec kills/);
  console.log(`coverage of issue 36:\n${report}`);
});
