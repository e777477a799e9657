/**
 * The spec shows neither the default nor the maximum of `per_page` (Limits). A correct service may list orders
 * 3 at a time and refuse more with 400: under `spec` no test may ask it for a bigger page (issue 36).
 */
import { expect, test } from 'vitest';
import type { Handle } from '../mutants/mutants.js';
import { runAgainst } from '../mutants/run-mutant.js';

const MAXIMUM = 3;

/** The mock listing orders at most {@link MAXIMUM} a page, by default too, refusing a larger `per_page`. */
const smallPages =
  (handle: Handle): Handle =>
  async (request) => {
    const url = new URL(request.url);
    if (request.method !== 'GET' || !/^\/(api\/)?orders\/?$/.test(url.pathname)) return handle(request);
    const perPage = url.searchParams.get('per_page');
    if (perPage !== null && Number(perPage) > MAXIMUM)
      return Response.json(
        {
          errors: [
            {
              status: '400',
              code: 'invalid',
              title: `per_page is at most ${MAXIMUM}`,
              source: { parameter: 'per_page' },
            },
          ],
        },
        { status: 400 },
      );
    if (perPage === null) url.searchParams.set('per_page', String(MAXIMUM));
    return handle(new Request(url, request));
  };

test(`a service listing at most ${MAXIMUM} orders a page, refusing more, passes the order list tests under spec`, async () => {
  const selection = { operations: ['listOrders'] };
  const result = await runAgainst(
    { id: 'small-pages', description: `at most ${MAXIMUM} orders a page`, selection, wrap: smallPages },
    { selection, profile: 'spec', seed: 23, stateful: { runs: 1 } },
  );
  expect(result.summary.total).toBeGreaterThan(5);
  expect(result.results.filter((r) => r.status !== 'passed').map((r) => `${r.id}: ${r.status} ${r.failure}`)).toEqual(
    [],
  );
}, 120_000);
