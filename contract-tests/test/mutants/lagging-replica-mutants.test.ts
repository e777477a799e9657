import { afterAll, expect, test } from 'vitest';
import { LAGGING_REPLICA_MUTANTS } from './lagging-replica-mutants.js';
import { fixedTestsPass, killTest, runAgainst } from './run-mutant.js';

const killed: string[] = [];
const survived: string[] = [];

/** The read command each mutant's shrunk sequence ends with: its failure example. */
const LAST_COMMAND: Record<string, RegExp> = {
  'organization-reads-lag-one-write': /^readOrganization\(\)$/,
  'restaurant-reads-lag-one-write': /^readRestaurants\(\)$/,
  'order-sideload-lags-restaurant-update': /^readOrders\(\)$/,
  'carrier-view-lags-restaurant-update': /^readCarrierView\(\)$/,
  'dish-by-id-lags-one-write': /^readDish\(pick \d+\)$/,
  'dish-category-filter-lags-one-write': /^listDishesOfCategory\(pick \d+\)$/,
  'dish-list-lags-one-write': /^listDishes\(\)$/,
  'category-list-lags-one-write': /^listCategories\(\)$/,
  'storefront-lags-one-write': /^readStorefront\(\)$/,
  'order-by-id-lags-one-write': /^readOrder\(order pick \d+\)$/,
  'courier-filter-lags-one-write': /^listOrdersOfCourier\(\)$/,
  'courier-list-lags-one-write': /^courierList\(\)$/,
  'order-list-pages-lag-one-write': /^listOrders\(.*every page\)$/,
  'carrier-view-lags-order-write': /^readCarrierView\(\)$/,
  'zone-by-id-lags-one-write': /^readZone\(pick \d+\)$/,
  'zone-list-lags-one-write': /^listZones\(\)$/,
  'menu-import-state-lags-its-job': /^readMenuImport\(\)$/,
  'imported-menu-lags-dish-update': /^listMenu\(\)$/,
  'client-filter-lags-one-write': /^listOrdersOfClient\(\w+\)$/,
  'client-import-state-lags-its-job': /^readClientImport\(\)$/,
  'logout-reaches-replica-late': /^use\(session \d+ from the newest, GET \/api\/\w+\)$/,
};

/**
 * Sequences per mutant: 40, like the stale-view family, but more where the read command is rare. `readDish` shares
 * one entry of the menu machine with `listDishesOfCategory`, and must pick the very dish a write changed.
 */
const RUNS: Record<string, number> = { 'dish-by-id-lags-one-write': 100 };

/** The label of the last command of a printed shrunk sequence. */
function lastCommand(failure: string): string | undefined {
  return [...failure.matchAll(/^ {2}\d+\. (.*)$/gm)].at(-1)?.[1];
}

test('the lagging-replica family: one fault per read command, each naming its killer', () => {
  expect(LAGGING_REPLICA_MUTANTS.map((m) => m.id)).toEqual(Object.keys(LAST_COMMAND));
  for (const mutant of LAGGING_REPLICA_MUTANTS) expect(mutant.killedBy, mutant.id).toMatch(/^stateful\.\w+$/);
});

// Two checks per mutant, both for every mutant in the full run. The kill (sequences of one machine, 1 to 15 s of
// CPU): in `npm test` for one mutant per machine. The proof that the fault is sequence-only, the whole fixed suite
// passing against it (about 5 s of CPU each): in `npm test` for the first of the family.
for (const mutant of LAGGING_REPLICA_MUTANTS) {
  killTest(LAGGING_REPLICA_MUTANTS, mutant)(
    `lagging-replica mutant ${mutant.id}: a read command of ${mutant.killedBy} kills it`,
    async () => {
      const stateful = await runAgainst(mutant, {
        selection: { ids: [mutant.killedBy!] },
        stateful: { runs: RUNS[mutant.id] ?? 40 },
      });
      const killer = stateful.results[0]!;
      (killer.status === 'failed' ? killed : survived).push(`${mutant.id} → ${killer.id}`);
      console.log(`${mutant.id} ${killer.status} by ${killer.id}:\n${killer.failure}`);
      expect(killer.status, `mutant ${mutant.id} survived ${mutant.killedBy}`).toBe('failed');
      expect(killer.failure).toMatch(/^a sequence of \d+ commands breaks the model/);
      // The read command is the last one: every write before it read the view back and saw it fresh.
      expect(lastCommand(killer.failure!)).toMatch(LAST_COMMAND[mutant.id]!);
      expect(killer.failure).toMatch(/replay exactly: --seed 3 --replay stateful\.\w+=(tour:[\d,]+|[\d:]+)/);
    },
    180_000,
  );
}

fixedTestsPass('lagging-replica', LAGGING_REPLICA_MUTANTS, 1, 180_000);

afterAll(() => {
  console.log(
    `lagging-replica mutants killed: ${killed.length}/${LAGGING_REPLICA_MUTANTS.length} (${killed.join('; ')})${survived.length ? `; survived: ${survived.join(', ')}` : ''}`,
  );
});
