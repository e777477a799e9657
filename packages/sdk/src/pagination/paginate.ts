/** The `meta` of a page-numbered collection (`page`, `page_count`). */
export interface PageMeta {
  /** This page's number (from 1). */
  page: number;
  /** Number of pages. */
  page_count: number;
}

/**
 * Walks a page-numbered collection from `firstPage`, one request per page, until the last page
 * (`meta.page >= meta.page_count`) or an empty page.
 * @example
 * for await (const page of paginate((n) => api.orders.list({ page: n }), (p) => p.orders)) console.log(page.meta.page);
 */
export async function* paginate<Page extends { meta: PageMeta }>(
  fetchPage: (page: number) => Promise<Page>,
  items: (page: Page) => readonly unknown[],
  firstPage = 1,
): AsyncGenerator<Page, void, undefined> {
  for (let number = firstPage; ; number++) {
    const page = await fetchPage(number);
    yield page;
    if (items(page).length === 0 || page.meta.page >= page.meta.page_count) return;
  }
}
