import type { Role } from '../../config.js';
import type { TestContext } from '../../runner/context.js';
import type { Rec } from '../../runner/fixtures.js';

/** The page size the full profile asks for: the document's decided maximum of `per_page`. */
const DECIDED_MAX_PER_PAGE = 100;
/** The decision on the default and maximum of `per_page`. */
const PER_PAGE = '/paths/~1api~1orders/get/parameters/1';
/** Enough pages for any sequence's orders at the smallest page size a service might choose. */
const MAX_PAGES = 200;

/**
 * Every order of `GET /api/orders` with `query`, page by page until `meta.page_count` (Data format rules 3).
 * The spec does not state the default or maximum of `per_page`, so under `spec` the service's own page size
 * is used unless `perPage` is given; under `full` the decided maximum is asked for. Checks that pages do not
 * overlap.
 * @example const listed = await allOrderPages(t, 'staffMember', { courier_id: 3 });
 */
export async function allOrderPages(t: TestContext, role: Role, query: Rec, perPage?: number): Promise<Rec[]> {
  const client = await t.as(role);
  const size = perPage ?? (t.full ? DECIDED_MAX_PER_PAGE : undefined);
  const sized = size === undefined ? query : { ...query, per_page: size };
  const orders: Rec[] = [];
  for (let page = 1; page <= MAX_PAGES; page += 1) {
    const response = await client.get('/api/orders', { ...sized, page });
    t.status(response, 200, `listing orders ${JSON.stringify({ ...sized, page })}`);
    const rows = t.list<Rec>(response.body, ['orders'], 'the list of orders');
    const answered = response.body?.meta?.per_page;
    // The maximum of per_page is decided: a service with a lower one may clamp the page (or refuse it).
    if (page === 1 && size !== undefined && typeof answered === 'number')
      t.decided(PER_PAGE, answered >= size, `per_page=${size} answered ${answered} orders per page`, response);
    for (const row of rows)
      t.check(!orders.some((o) => o.id === row.id), `order ${row.id} is on two pages of ${JSON.stringify(sized)}`);
    orders.push(...rows);
    if (rows.length === 0 || page >= Number(response.body?.meta?.page_count ?? page)) break;
  }
  return orders;
}
