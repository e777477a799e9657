/**
 * Issue 36's crash: an order import whose answer leaves out the orders that failed made `imports.orders-decided`
 * throw a TypeError. Every order import test must fail naming the result it expected, none throw.
 */
/* eslint-disable @typescript-eslint/no-explicit-any */
import { expect, test } from 'vitest';
import { transformJson } from '../mutants/mutants.js';
import { runAgainst } from '../mutants/run-mutant.js';
import { isCrash, isUncheckedRead } from './mangle.js';

/** The order import's answer keeps only the orders that were imported. */
const withoutFailures = transformJson(
  (request, url, status) =>
    request.method === 'POST' && /^\/api\/organizations\/\d+\/import\/orders$/.test(url.pathname) && status < 300,
  (body) => ({
    ...body,
    organization_import: (body.organization_import ?? []).filter((o: any) => o.status !== 'error'),
  }),
);

test('an order import answer without its failed orders: the import tests fail naming the missing result, none throws', async () => {
  const selection = { ids: ['imports.orders-*'] };
  const result = await runAgainst(
    {
      id: 'import-answer-without-failures',
      description: 'the failed orders left out',
      selection,
      wrap: withoutFailures,
    },
    { selection },
  );
  const failed = result.results.filter((r) => r.status === 'failed');
  expect(failed.map((r) => r.id)).toContain('imports.orders-decided');
  const decided = failed.find((r) => r.id === 'imports.orders-decided')!;
  expect(decided.failure).toMatch(/expected the failed order's error at organization_import\.0\.errors\.0/);
  for (const r of failed) {
    expect(isCrash(r.failure), `${r.id} crashed: ${r.failure}`).toBe(false);
    expect(isUncheckedRead(r.failure), `${r.id} read the answer unchecked: ${r.failure}`).toBe(false);
  }
}, 60_000);
