import { afterAll, expect, test } from 'vitest';
import { STALE_VIEW_MUTANTS } from './stale-view-mutants.js';
import { fixedTestsPassStacked, killTest, runAgainst } from './run-mutant.js';
import { FULL_RUN, fullRunOnly } from '../../../scripts/testing/test-mode.js';

const killed: string[] = [];
const survived: string[] = [];

/** The command of each mutant's shrunk sequence that makes the second write (the new commands' failure examples). */
const SHRUNK_TO: Record<string, RegExp> = {
  'organization-list-stale-after-second-update': /\n {2}\d+\. updateOrganization\(/,
  'restaurant-sideload-stale-after-second-update': /\n {2}\d+\. updateRestaurant\(/,
  'restaurant-filter-stale-after-second-update': /\n {2}\d+\. updateRestaurant\(/,
  'dish-category-filter-stale-after-second-update': /\n {2}\d+\. updateDish\(/,
  'category-dish-ids-stale-after-second-update': /\n {2}\d+\. updateDish\([^\n]*to category/,
  'zone-list-timetables-stale-after-second-update': /\n {2}\d+\. updateZone\([^\n]*(timetables|price)/,
  'courier-list-keeps-unassigned-order': /\n {2}\d+\. assignCourier\([^\n]*none\)/,
  'couriers-sideload-stale-after-second-update': /\n {2}\d+\. (assignCourier|updateOrder)\(/,
  'carrier-view-contact-stale-after-second-update': /\n {2}\d+\. updateOrder\(/,
  'receipt-stale-after-second-update': /\n {2}\d+\. updateOrder\(/,
  'dish-list-photo-stale-after-second-write': /\n {2}\d+\. uploadDishPhoto\(/,
  'order-list-confirmation-stale-after-second-write': /\n {2}\d+\. confirm\(/,
  'category-list-photo-stale-after-second-write': /\n {2}\d+\. uploadCategoryPhoto\(/,
  'courier-list-confirmation-stale-after-second-write': /\n {2}\d+\. confirm\([^\n]*as courier\)/,
  'client-filter-stale-after-new-order': /\n {2}\d+\. orderFor\(/,
  'dish-list-weight-stale-after-second-update': /\n {2}\d+\. updateDish\([^\n]*"weight"/,
  'dish-filter-options-stale-after-second-update': /\n {2}\d+\. updateDish\([^\n]*"options"/,
  'zone-list-area-stale-after-second-update': /\n {2}\d+\. updateZone\([^\n]*"area"/,
  'zone-terms-stale-by-id-after-second-update':
    /\n {2}\d+\. updateZone\([^\n]*"(timezone|free_delivery_count|free_delivery_price|minimal_order_price)"/,
  'organization-by-id-stale-after-second-update': /\n {2}\d+\. updateOrganization\(/,
  'restaurant-by-id-stale-after-second-update': /\n {2}\d+\. updateRestaurant\(/,
  'restaurant-list-stale-after-second-update': /\n {2}\d+\. updateRestaurant\(/,
  'receipt-restaurant-stale-after-second-update': /\n {2}\d+\. updateRestaurant\(/,
  'carrier-view-restaurant-stale-after-second-update': /\n {2}\d+\. updateRestaurant\(/,
  'dish-by-id-stale-after-second-update': /\n {2}\d+\. updateDish\(/,
  'storefront-dish-stale-after-second-publication': /\n {2}\d+\. publish\(\)/,
  'order-by-id-stale-after-second-update': /\n {2}\d+\. (updateOrder|assignCourier|reimport)\(/,
  'courier-filter-keeps-unassigned-order': /\n {2}\d+\. assignCourier\([^\n]*none\)/,
  'dish-list-price-stale-after-second-update': /\n {2}\d+\. updateDishPrice\(/,
};

/**
 * `npm test`: the default number of sequences at seed 3; the full run seeds 1 to 5, of which a kill by the tour (the
 * same at every seed) runs only the first.
 */
const SEEDS = FULL_RUN ? [1, 2, 3, 4, 5] : [3];

test('the stale-view family: each view of the stateful README has a fault, each a write that one view misses, each naming its killer', () => {
  expect(STALE_VIEW_MUTANTS.map((m) => m.id)).toEqual(Object.keys(SHRUNK_TO));
  for (const mutant of STALE_VIEW_MUTANTS) expect(mutant.killedBy, mutant.id).toMatch(/^stateful\.\w+$/);
});

fullRunOnly(
  'the fixed tests pass against every stale-view mutant: each fault shows only in a sequence',
  'every fixed test, through all the mutants',
)(
  // One run against all of them stacked: each only makes its view stale after a second write, and none repairs
  // another's view, so a fixed test that saw one fault would fail here too.
  () => fixedTestsPassStacked(STALE_VIEW_MUTANTS),
  600_000,
);

// In `npm test` one mutant per machine (the last the machine kills); the full run all of them.
for (const mutant of STALE_VIEW_MUTANTS) {
  killTest(STALE_VIEW_MUTANTS, mutant)(
    `stale-view mutant ${mutant.id}: ${mutant.killedBy} kills it within the default runs, at seeds ${SEEDS.join(', ')}`,
    async () => {
      for (const seed of SEEDS) {
        // The default number of sequences (20): the tour, run first on every run, reads each view after its writes.
        const stateful = await runAgainst(mutant, { selection: { ids: [mutant.killedBy!] }, seed });
        const killer = stateful.results[0]!;
        (killer.status === 'failed' ? killed : survived).push(`${mutant.id} → ${killer.id} (seed ${seed})`);
        expect(killer.status, `mutant ${mutant.id} survived ${mutant.killedBy} at seed ${seed}`).toBe('failed');
        expect(killer.failure).toMatch(/^a sequence of \d+ commands breaks the model/);
        expect(killer.failure).toMatch(SHRUNK_TO[mutant.id]!);
        expect(killer.failure).toMatch(
          new RegExp(`replay exactly: --seed ${seed} --replay stateful\\.\\w+=(tour:[\\d,]+|[\\d:]+)`),
        );
        if (seed === SEEDS[0]) console.log(`${mutant.id} killed by ${killer.id}:\n${killer.failure}`);
        // The tour is the same at every seed (machine.ts picks its commands with a seed of its own), so a kill by
        // the tour is this very kill at the other seeds: only a kill by a random sequence is tried at each seed.
        if (new RegExp(`--replay ${mutant.killedBy}=tour:`).test(killer.failure!)) {
          for (const other of SEEDS.filter((s) => s > seed))
            killed.push(`${mutant.id} → ${killer.id} (seed ${other}: the same tour)`);
          break;
        }
      }
    },
    600_000,
  );
}

afterAll(() => {
  console.log(
    `stale-view mutants killed: ${killed.length}/${STALE_VIEW_MUTANTS.length * SEEDS.length} (mutant, seed) pairs (${killed.join('; ')})${survived.length ? `; survived: ${survived.join(', ')}` : ''}`,
  );
});
