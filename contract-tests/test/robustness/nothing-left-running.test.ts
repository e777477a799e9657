import { expect, test } from 'vitest';
import { createMock } from '@restoapi/mock-server';
import { runContractSuite } from '../../src/index.js';
import { IN_PROCESS_URL, MOCK_CONFIG } from '../helpers.js';

/** A deployed service: no control API, no reset between tests, so what a test starts outlives it unless waited for. */
const DEPLOYED = {
  ...MOCK_CONFIG,
  capabilities: { ...MOCK_CONFIG.capabilities, controlApi: false, resetBetweenTests: false },
};

// An import the schema test of importMenu left running replaced the menu under a later test on a service without
// resets: schema.updateDraftDish listed a dish, the import deleted it, and the update answered 404 (a `spec` failure
// of a correct service, now and then, by timing). Each test that starts an import waits for its job.
test.each([
  ['importMenu', 'menu'],
  ['importClients', 'clients'],
] as const)(
  'the schema test of %s ends with its import job finished, on a service without resets',
  async (operation, kind) => {
    const mock = createMock({ config: { importDurationMs: 1500 } });
    try {
      const result = await runContractSuite({
        baseUrl: IN_PROCESS_URL,
        fetch: mock.fetch,
        config: DEPLOYED,
        profile: 'spec',
        seed: 1,
        selection: { ids: [`schema.${operation}`] },
      });
      expect(result.results.map((r) => `${r.id}: ${r.status}`)).toEqual([`schema.${operation}: passed`]);
      const session = await mock.fetch(
        new Request(`${IN_PROCESS_URL}/api/session?login=admin@pizza.demo&password=demo`, { method: 'POST' }),
      );
      const token = ((await session.json()) as { meta: { token: string } }).meta.token;
      const organization = MOCK_CONFIG.organization.id;
      const state = await mock.fetch(
        new Request(`${IN_PROCESS_URL}/api/organizations/${organization}/import/${kind}`, {
          headers: { authorization: `Token token="${token}"` },
        }),
      );
      expect(((await state.json()) as { status: string }).status).toBe('idle');
    } finally {
      mock.close();
    }
  },
  60_000,
);
