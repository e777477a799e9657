import { afterAll, expect, test } from 'vitest';
import { STALE_VIEW_MUTANTS } from './stale-view-mutants.js';
import { FIXED_KINDS, notPassed, runAgainst } from './run-mutant.js';

const killed: string[] = [];
const survived: string[] = [];

/** The command of each mutant's shrunk sequence that makes the second write (the new commands' failure examples). */
const SHRUNK_TO: Record<string, RegExp> = {
  'organization-list-stale-after-second-update': /\n {2}2\. updateOrganization\(/,
  'restaurant-sideload-stale-after-second-update': /\n {2}2\. updateRestaurant\(/,
  'restaurant-filter-stale-after-second-update': /\n {2}2\. updateRestaurant\(/,
  'dish-category-filter-stale-after-second-update': /\n {2}2\. updateDish\(/,
  'category-dish-ids-stale-after-second-update': /\n {2}2\. updateDish\([^\n]*to category/,
  'zone-list-timetables-stale-after-second-update': /\n {2}2\. updateZone\([^\n]*(timetables|price)/,
  'courier-list-keeps-unassigned-order': /\n {2}2\. assignCourier\([^\n]*none\)/,
  'couriers-sideload-stale-after-second-update': /\n {2}2\. (assignCourier|updateOrder)\(/,
  'carrier-view-contact-stale-after-second-update': /\n {2}2\. updateOrder\(/,
  'receipt-stale-after-second-update': /\n {2}2\. updateOrder\(/,
  'dish-list-photo-stale-after-second-write': /\n {2}2\. uploadDishPhoto\(/,
  'order-list-confirmation-stale-after-second-write': /\n {2}2\. confirm\(/,
  'category-list-photo-stale-after-second-write': /\n {2}2\. uploadCategoryPhoto\(/,
  'courier-list-confirmation-stale-after-second-write': /\n {2}2\. confirm\([^\n]*as courier\)/,
  'client-filter-stale-after-new-order': /\n {2}2\. orderFor\(/,
  'dish-list-weight-stale-after-second-update': /\n {2}2\. updateDish\([^\n]*"weight"/,
  'dish-filter-options-stale-after-second-update': /\n {2}2\. updateDish\([^\n]*"options"/,
  'zone-list-area-stale-after-second-update': /\n {2}2\. updateZone\([^\n]*"area"/,
  'zone-terms-stale-by-id-after-second-update':
    /\n {2}2\. updateZone\([^\n]*"(timezone|free_delivery_count|free_delivery_price|minimal_order_price)"/,
};

test('the stale-view family: nineteen faults, each a write that one view misses, each naming its killer', () => {
  expect(STALE_VIEW_MUTANTS.map((m) => m.id)).toEqual(Object.keys(SHRUNK_TO));
  for (const mutant of STALE_VIEW_MUTANTS) expect(mutant.killedBy, mutant.id).toMatch(/^stateful\.\w+$/);
});

for (const mutant of STALE_VIEW_MUTANTS) {
  test(`stale-view mutant ${mutant.id}: the fixed tests pass, ${mutant.killedBy} kills it`, async () => {
    const fixed = await runAgainst(mutant, FIXED_KINDS);
    expect(notPassed(fixed), 'the fixed tests must not see a sequence-only fault').toEqual([]);
    // 40 sequences: each fault needs two writes to one record, then the view (most runs find it in the first few).
    const stateful = await runAgainst(mutant, {
      selection: { ids: [mutant.killedBy!] },
      stateful: { runs: 40 },
    });
    const killer = stateful.results[0]!;
    (killer.status === 'failed' ? killed : survived).push(`${mutant.id} → ${killer.id}`);
    expect(killer.status, `mutant ${mutant.id} survived ${mutant.killedBy}`).toBe('failed');
    expect(killer.failure).toMatch(/^a sequence of \d+ commands breaks the model/);
    expect(killer.failure).toMatch(SHRUNK_TO[mutant.id]!);
    expect(killer.failure).toMatch(/replay exactly: --seed 3 --replay stateful\.\w+=[\d:]+/);
    console.log(`${mutant.id} killed by ${killer.id}:\n${killer.failure}`);
  }, 180_000);
}

afterAll(() => {
  console.log(
    `stale-view mutants killed: ${killed.length}/${STALE_VIEW_MUTANTS.length} (${killed.join('; ')})${survived.length ? `; survived: ${survived.join(', ')}` : ''}`,
  );
});
