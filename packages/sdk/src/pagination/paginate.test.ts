import { describe, expect, test } from 'vitest';
import { paginate } from './paginate.js';

const pageOf = (page: number, pageCount: number, items: number[]) => ({ meta: { page, page_count: pageCount }, items });

describe('paginate', () => {
  test('walks to the last page, one request per page, lazily', async () => {
    const requested: number[] = [];
    const pages = paginate(
      async (n) => (requested.push(n), pageOf(n, 3, [n])),
      (p) => p.items,
    );
    expect(requested).toEqual([]);
    const seen: number[] = [];
    for await (const page of pages) seen.push(...page.items);
    expect(seen).toEqual([1, 2, 3]);
    expect(requested).toEqual([1, 2, 3]);
  });

  test('stops on an empty page and starts where asked', async () => {
    const requested: number[] = [];
    for await (const _ of paginate(
      async (n) => (requested.push(n), pageOf(n, 99, n < 4 ? [n] : [])),
      (p) => p.items,
      2,
    ))
      void _;
    expect(requested).toEqual([2, 3, 4]);
  });

  test('breaking out of the loop stops requesting', async () => {
    const requested: number[] = [];
    for await (const _ of paginate(
      async (n) => (requested.push(n), pageOf(n, 10, [n])),
      (p) => p.items,
    ))
      break;
    expect(requested).toEqual([1]);
  });
});
