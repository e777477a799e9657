import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';
import { createApiDescription, listDecisions, openapiDocument } from '@restoapi/openapi';
import { renderClauses } from '../scripts/extract-clauses.js';
import { CLAUSES, allTests, selectTests } from '../src/index.js';

const spec = readFileSync(new URL('../../../shared/seeds/000_1d0cb84b409498a3.txt', import.meta.url), 'utf8');

test('the clause catalogue is generated from the current spec (run npm run generate when this fails)', () => {
  expect(readFileSync(new URL('../src/generated/clauses.ts', import.meta.url), 'utf8')).toBe(renderClauses(spec));
});

test('clause ids follow the documented forms', () => {
  const ids = new Set(CLAUSES.map((c) => c.id));
  for (const id of [
    'Limits 1',
    'Errors 3',
    'Data format rules 8',
    'Endpoints > Orders: PUT /orders/:id/status',
    'States and transitions: row 5',
    'Resources > DraftDish: price',
    'Authentication 5: Courier',
    'Order import rules 4',
    'Menu import rules 3',
    'Events: order_created',
  ]) {
    expect(ids.has(id), id).toBe(true);
  }
  expect(CLAUSES.filter((c) => c.notShown).map((c) => c.id)).toEqual(['Authentication 7', 'Authentication 9']);
});

test('every test names existing clauses, a profile, its operations, and (full) existing x-decision pointers', () => {
  const clauses = new Set(CLAUSES.map((c) => c.id));
  const decisions = new Set(listDecisions(openapiDocument).map((d) => d.pointer));
  const operations = new Set(createApiDescription().operations.map((o) => o.operationId));
  for (const test of allTests()) {
    for (const clause of test.clauses)
      expect(clauses.has(clause), `${test.id} names unknown clause ${clause}`).toBe(true);
    for (const op of test.operations) expect(operations.has(op), `${test.id} names unknown operation ${op}`).toBe(true);
    if (test.profile === 'full') expect(test.decisions?.length, test.id).toBeGreaterThan(0);
    for (const pointer of test.decisions ?? [])
      expect(decisions.has(pointer), `${test.id} names unknown decision ${pointer}`).toBe(true);
  }
});

test('every testable clause is covered by a spec-profile test, and every operation has a conformance test', () => {
  const spec = selectTests('spec');
  const covered = new Set(spec.flatMap((t) => t.clauses));
  expect(CLAUSES.filter((c) => !c.notShown && !covered.has(c.id)).map((c) => c.id)).toEqual([]);
  const conformance = new Set(selectTests('spec', 'schema-only').flatMap((t) => t.operations));
  expect(
    createApiDescription()
      .operations.map((o) => o.operationId)
      .filter((id) => !conformance.has(id)),
  ).toEqual([]);
});

test('selections: schema-only is conformance only, spec excludes full tests, filters by id and clause', () => {
  expect(selectTests('full', 'schema-only').every((t) => t.kind === 'conformance')).toBe(true);
  expect(selectTests('spec').some((t) => t.profile === 'full')).toBe(false);
  expect(selectTests('full').some((t) => t.profile === 'full')).toBe(true);
  expect(selectTests('spec', { ids: ['session.*'] }).map((t) => t.id)).toContain('session.lifecycle');
  expect(selectTests('spec', { clauses: ['Limits 1'] }).map((t) => t.id)).toEqual(['imports.menu-one-at-a-time']);
});
