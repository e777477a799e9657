import type { Role } from '../../config.js';
import { IncompleteSignal } from '../../runner/budget.js';
import type { TestContext } from '../../runner/context.js';
import type { Rec } from '../../runner/fixtures.js';
import { MAX_LIST_PAGES } from '../scopes.js';

/** The page size the full profile asks for: the document's decided maximum of `per_page`. */
const DECIDED_MAX_PER_PAGE = 100;
/** The decision on the default and maximum of `per_page`. */
const PER_PAGE = '/paths/~1api~1orders/get/parameters/1';

/**
 * Every order of `GET /api/orders` with `query`, page by page until `meta.page_count` (Data format rules 3),
 * for a query that selects the sequence's own orders (a client it created, Order import rules 3): at most
 * {@link MAX_LIST_PAGES} pages, so a service with 100,000 orders costs no more requests than the demo. A list
 * longer than that ends the test as incomplete (it proved too little), never as a failure. The spec does not
 * state the default or maximum of `per_page`, so under `spec` the service's own page size is used unless
 * `perPage` is given; under `full` the decided maximum is asked for. Checks that pages do not overlap.
 * @example const listed = await allOrderPages(t, 'staffMember', { client_id: [41] });
 */
export async function allOrderPages(t: TestContext, role: Role, query: Rec, perPage?: number): Promise<Rec[]> {
  const client = await t.as(role);
  const size = perPage ?? (t.full ? DECIDED_MAX_PER_PAGE : undefined);
  const sized = size === undefined ? query : { ...query, per_page: size };
  const orders: Rec[] = [];
  for (let page = 1; ; page += 1) {
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
    if (rows.length === 0 || page >= Number(response.body?.meta?.page_count ?? page)) return orders;
    if (page === MAX_LIST_PAGES)
      throw new IncompleteSignal(
        `the orders listed with ${JSON.stringify(sized)} run past ${MAX_LIST_PAGES} pages: a sequence reads only lists of its own few orders`,
      );
  }
}

/**
 * The first page of `GET /api/orders` with `query` (the service's own order and page size under `spec`): what a
 * sequence reads where no filter selects its own orders, the same one request however many orders the service holds.
 */
export async function firstOrderPage(t: TestContext, role: Role, query: Rec = {}): Promise<Rec[]> {
  const response = await (await t.as(role)).get('/api/orders', { ...query, ...t.listPage, page: 1 });
  t.status(response, 200, `listing the first page of orders ${JSON.stringify(query)}`);
  return t.list<Rec>(response.body, ['orders'], 'the list of orders');
}

/**
 * The order with this contact name among the first {@link MAX_LIST_PAGES} pages of the organization's orders (an
 * order a sequence just imported is among the newest under the decided default sort): undefined when the list
 * ended without it; a list that runs on past those pages without it ends the test as incomplete.
 */
export async function findOrderByContact(t: TestContext, contactName: string): Promise<Rec | undefined> {
  const client = await t.as('staffMember');
  for (let page = 1; page <= MAX_LIST_PAGES; page += 1) {
    const response = await client.get('/api/orders', { ...t.listPage, page });
    t.status(response, 200, 'listing orders to find an imported order');
    const rows = t.list<Rec>(response.body, ['orders'], 'the list of orders');
    const found = rows.find((o) => o.contact_name === contactName);
    if (found) return found;
    if (rows.length === 0 || page >= Number(response.body?.meta?.page_count ?? page)) return undefined;
  }
  throw new IncompleteSignal(
    `the order of ${contactName} is not on the first ${MAX_LIST_PAGES} pages of orders (the service lists others first)`,
  );
}
