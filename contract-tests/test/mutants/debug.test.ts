import { test } from 'vitest';
import { createMock } from '@restoapi/mock-server';
import { runContractSuite } from '../../src/index.js';
import { IN_PROCESS_URL, MOCK_CONFIG, fetchOf } from '../helpers.js';
import { SEQUENCE_MUTANTS } from './mutants.js';

test('debug', async () => {
  for (const id of ['deleted-dish-back-after-create', 'token-dies-after-second-use']) {
    const mutant = SEQUENCE_MUTANTS.find((m) => m.id === id)!;
    const mock = createMock();
    const r = await runContractSuite({
      baseUrl: IN_PROCESS_URL,
      fetch: fetchOf(mutant.wrap(mock.handle)),
      config: MOCK_CONFIG,
      profile: 'full',
      selection: { ids: [id.startsWith('token') ? 'stateful.sessions' : 'stateful.menu'] },
      seed: 3,
    });
    console.log(
      id,
      r.results
        .map((x) => `${x.id} ${x.status} ${x.requests}\n${x.failure}\n${(x.reproducers ?? []).join('\n')}`)
        .join('\n'),
    );
  }
}, 60000);
