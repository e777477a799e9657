import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { expect, test } from 'vitest';
import { createApiDescription, listDecisions, openapiDocument } from '@restoapi/openapi';
import { SPEC_ENV, renderClauses, specPathFromEnv } from '../scripts/extract-clauses.js';
import { CLAUSES, allTests, selectTests } from '../src/index.js';

// The written spec lives outside the repository: CI names it in RESTOAPI_SPEC, a fresh clone has none.
const specPath = specPathFromEnv();
const catalogue = new URL('../src/generated/clauses.ts', import.meta.url);
const extractor = fileURLToPath(new URL('../scripts/extract-clauses.ts', import.meta.url));

test.skipIf(!specPath)(
  specPath
    ? 'the clause catalogue is generated from the current spec (run npm run generate when this fails)'
    : `the clause catalogue matches the spec: SKIPPED, ${SPEC_ENV} is not set to the written specification's path`,
  () => {
    expect(readFileSync(catalogue, 'utf8')).toBe(renderClauses(readFileSync(specPath!, 'utf8')));
  },
);

test('without RESTOAPI_SPEC the generator keeps the committed catalogue and says the spec check was skipped', async () => {
  const before = readFileSync(catalogue, 'utf8');
  const env = { ...process.env, [SPEC_ENV]: '' };
  const run = await promisify(execFile)(process.execPath, ['--import', 'tsx', extractor], { env });
  expect(run.stdout).toMatch(/check against the spec SKIPPED \(RESTOAPI_SPEC is not set\)/);
  expect(readFileSync(catalogue, 'utf8')).toBe(before);
});

test('RESTOAPI_SPEC naming a missing file is an error that names the variable', async () => {
  const env = { ...process.env, [SPEC_ENV]: 'no/such/spec.txt' };
  const run = promisify(execFile)(process.execPath, ['--import', 'tsx', extractor], { env });
  await expect(run).rejects.toMatchObject({
    code: 1,
    stderr: expect.stringContaining('RESTOAPI_SPEC=no/such/spec.txt: no such file'),
  });
  expect(() => specPathFromEnv({ [SPEC_ENV]: 'no/such/spec.txt' })).toThrow(/RESTOAPI_SPEC=no\/such\/spec\.txt/);
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
