import { afterAll, describe, expect, test } from 'vitest';
import { DEPARTURE_NAMES, DEPARTURES, createIndependentService } from '../../../scripts/testing/independent-service.js';
import { runContractSuite, type Selection } from '../../src/index.js';
import { MOCK_CONFIG } from '../helpers.js';

// Each departure of the independent service alone, under both profiles: spec passes it and names its decision,
// full fails it. A measurement outside `npm test` (about 4 minutes), which the independent-service test covers
// for all departures at once: RESTOAPI_EACH_DEPARTURE=1 npx vitest run contract-tests/test/independent/each-departure.test.ts
const EVERYTHING_BUT_STATEFUL: Selection = { kinds: ['conformance', 'behaviour', 'negative', 'decision'] };
const lines: string[] = [];

// Skipped otherwise, and the title says so: not even the full run (npm run test:all) runs it.
const TITLE = 'each departure alone (only with RESTOAPI_EACH_DEPARTURE=1: a measurement of about 4 minutes)';
describe.runIf(process.env.RESTOAPI_EACH_DEPARTURE)(TITLE, () => {
  for (const name of DEPARTURE_NAMES) {
    test(`${name}: spec passes with warnings naming ${DEPARTURES[name].decision}, full fails`, async () => {
      const counts: string[] = [];
      for (const profile of ['spec', 'full'] as const) {
        const service = createIndependentService({ departures: [name] });
        const result = await runContractSuite({
          baseUrl: 'http://independent.local',
          fetch: service.fetch,
          config: MOCK_CONFIG,
          profile,
          seed: 23,
          selection: EVERYTHING_BUT_STATEFUL,
        });
        await service.close();
        const warned = result.warningsByDecision.find((g) => g.decision === DEPARTURES[name].decision)?.count ?? 0;
        if (profile === 'spec') {
          expect(result.results.filter((r) => r.status === 'failed').map((r) => r.id)).toEqual([]);
          expect(warned).toBeGreaterThan(0);
          counts.push(`spec 0 failed of ${result.summary.total}, ${warned} warnings`);
        } else {
          expect(result.summary.failed).toBeGreaterThan(0);
          counts.push(`full ${result.summary.failed} failed of ${result.summary.total}`);
        }
      }
      lines.push(`${name}: ${counts.join('; ')}`);
    }, 300_000);
  }
});

afterAll(() => {
  if (lines.length) console.log(lines.join('\n'));
});
