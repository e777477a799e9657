import { afterAll, expect, test } from 'vitest';
import { createMock } from '@restoapi/mock-server';
import { runContractSuite, type RunOptions } from '../../src/index.js';
import { IN_PROCESS_URL, MOCK_CONFIG, fetchOf } from '../helpers.js';
import { STATED_RULE_MUTANTS } from './stated-rule-mutants.js';
import type { Handle } from './mutants.js';

// Every stated rule the spec profile did not try before has a test and a mutant; `spec` must pass the correct
// mock on those tests and kill each mutant with its own test (about 2 s a mutant, in process).
const killed: string[] = [];

async function spec(wrap: (handle: Handle) => Handle, ids: string[]) {
  const mock = createMock();
  try {
    return await runContractSuite({
      baseUrl: IN_PROCESS_URL,
      fetch: fetchOf(wrap(mock.handle)),
      config: MOCK_CONFIG,
      profile: 'spec',
      selection: { ids } as RunOptions['selection'],
      seed: 3,
    });
  } finally {
    mock.close();
  }
}

test('the correct mock passes every stated-rule test under spec, none skipped', async () => {
  const result = await spec((h) => h, ['rules.*']);
  expect(
    result.results.map(
      (r) => `${r.id}: ${r.status}${r.failure ? ` ${r.failure}` : ''}${r.skipReason ? ` ${r.skipReason}` : ''}`,
    ),
  ).toEqual(result.results.map((r) => `${r.id}: passed`));
  expect(result.results).toHaveLength(STATED_RULE_MUTANTS.length);
}, 120_000);

for (const mutant of STATED_RULE_MUTANTS) {
  test(`stated-rule mutant ${mutant.id}: spec kills it with its own test`, async () => {
    const ids = (mutant.selection as { ids: string[] }).ids;
    const result = await spec(mutant.wrap, ids);
    const [own] = result.results;
    expect(own?.status, `${mutant.id} survived ${ids.join(', ')}`).toBe('failed');
    killed.push(`${mutant.id} → ${own!.id}`);
    console.log(`${mutant.id} killed by ${own!.id}: ${own!.failure?.split('\n')[0]}`);
  }, 120_000);
}

afterAll(() => {
  console.log(
    `stated-rule mutants killed under spec: ${killed.length}/${STATED_RULE_MUTANTS.length} (${killed.join('; ')})`,
  );
});
