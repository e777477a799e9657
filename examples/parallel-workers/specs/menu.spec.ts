import { beforeEach, expect, test } from 'vitest';
import { untilWorkersOverlap, workerSession } from '../worker-session.js';

const worker = workerSession();

// Each worker starts every test from the demo world of its own session: no other worker is affected.
beforeEach(async () => {
  await worker.control.POST('/__mock/reset', { body: { seed: 'demo' } });
});

test('a worker adds draft categories and sees the demo ones plus its own, with the same ids in every worker', async () => {
  const anna = await worker.login('admin@pizza.demo');
  const ids: number[] = [];
  for (const name of ['Desserts', 'Salads']) {
    const { data } = await anna.POST('/api/draft_categories', {
      body: { draft_category: { name: `${name} of ${worker.name}`, organization_id: 1 } },
    });
    ids.push(data!.draft_category.id);
  }
  // Ids are counted per session: every worker gets the ids the demo world hands out next.
  expect(ids).toEqual([2003, 2004]);
  await untilWorkersOverlap(worker.control, 2);

  const { data } = await anna.GET('/api/draft_categories', { params: { query: { organization_id: 1 } } });
  expect(data!.draft_categories.map((category) => [category.id, category.name])).toEqual([
    [1001, 'Pizza'],
    [1002, 'Drinks'],
    [2003, `Desserts of ${worker.name}`],
    [2004, `Salads of ${worker.name}`],
  ]);
});
