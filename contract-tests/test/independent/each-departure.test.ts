import { afterAll, describe, expect, test } from 'vitest';
import {
  DEPARTURE_NAMES,
  DEPARTURES,
  createIndependentService,
  type DepartureName,
} from '../../../scripts/testing/independent-service.js';
import { fullRunOnly } from '../../../scripts/testing/test-mode.js';
import { runContractSuite, type ContractConfig, type SuiteResult } from '../../src/index.js';
import { MOCK_CONFIG } from '../helpers.js';
import { PROBE_STATEFUL_RUNS } from './probe-run.js';

// Each departure of the independent service alone, under both profiles (issue 36): `spec` gives 0 failures
// and names its decision in a warning; `full` fails, naming it. Each departure runs against the tests of the
// operations it touches (its probe): `npm test` tries a sample of the families the issue names, the full run
// (`npm run test:all`) every departure. The whole suite against every departure at once is
// independent-service.test.ts; every departure against the whole suite, one at a time, would take about 20
// minutes here, past CI's budget, and adds nothing a probe misses.

/** The operations whose tests show each departure (the sample's selection). */
const PROBES: Record<DepartureName, string[]> = {
  'publish-204': ['publishMenu'],
  'status-204': ['setOrderStatus'],
  'carrier-delivery-204': ['updateCarrierDelivery'],
  'zone-created-200': ['createDeliveryZone'],
  'busy-200': ['importMenu'],
  'invalid-400': ['createDraftDish'],
  'error-object': ['createDraftDish'],
  'job-finished': ['getMenuImport'],
  'session-body': ['getSession'],
  'days-from-sunday': ['updateDeliveryZone'],
  'numeric-job-id': ['importMenu'],
  'per-page-50': ['listOrders'],
  'dishes-newest-first': ['listDraftDishes'],
  'bearer-challenge': ['getSession'],
  'zone-wrapped': ['createDeliveryZone', 'updateDeliveryZone'],
  'dish-price-number': ['createDraftDish', 'updateDraftDish'],
  'dish-weight-number': ['createDraftDish', 'updateDraftDish'],
  'dish-weight-string': ['createDraftDish', 'updateDraftDish'],
  'dishes-path-as-written': ['createDraftDish', 'listDraftDishes'],
  'api-key-header': ['getSession', 'listDraftDishes'],
  'buddies-named': ['importOrders'],
  'no-couriers': ['listCouriers', 'getCourier'],
  'no-order-links': ['listOrderItems', 'listOrderBuddies'],
  'no-category-create': ['createDraftCategory'],
  'no-zone-delete': ['deleteDeliveryZone'],
  'coerce-names': ['createDraftDish', 'updateDraftDish'],
  'lenient-paging': ['listOrders'],
  'no-request-id': ['listOrders'],
  'session-201': ['createSession'],
  'avatar-large': ['createSession'],
  'prices-three-decimals': ['getDraftDish'],
  'zone-money-strings': ['getDeliveryZone'],
  'social-links-null': ['getOrganization'],
  'dishes-hidden-by-default': ['createDraftDish'],
  'comment-as-note': ['importOrders'],
  'menu-order-fixed': ['updateDraftCategory'],
  'photo-later': ['uploadDraftDishPhoto'],
  'json-vnd-api': ['listOrganizations', 'getOrganization', 'listOrders'],
  'unassign-refused': ['updateOrder'],
  'sms-option-named': ['setOrderStatus'],
  'per-page-clamped': ['listOrders'],
  'count-this-page': ['listOrders'],
  'categories-newest-first': ['listDraftCategories'],
  'weight-zero': ['getDraftDish', 'createDraftDish'],
  'read-only-ignored': ['updateRestaurant'],
  'any-time-zone': ['createDeliveryZone', 'updateDeliveryZone'],
  'ids-by-value': ['getOrder'],
  'configurator-rounded': ['createDraftDish'],
  'area-holes': ['updateDeliveryZone'],
  'hours-in-utc': ['getDeliveryZone'],
  'delivery-skips': ['updateCarrierDelivery'],
  'total-all-records': ['listRestaurants'],
  'dispatcher-imports': ['importMenu', 'getMenuImport', 'importClients', 'getClientImport', 'importOrders'],
  'dispatcher-confirms': ['confirmOrder'],
  'import-pending-only': ['importOrders'],
  'empty-orders-answered': ['importOrders'],
  'clients-at-least-one': ['importClients'],
  'carrier-finished-gone': ['getCarrierOrder', 'updateCarrierDelivery'],
  'carrier-repeat-409': ['updateCarrierDelivery'],
  'callbacks-with-body': ['getCarrierOrder', 'updateCarrierDelivery'],
  'callback-extra-kind': ['getCarrierOrder', 'updateCarrierDelivery'],
  'callback-carrier-status': ['getCarrierOrder', 'updateCarrierDelivery'],
  'from-scratch-every-client': ['importClients', 'importOrders'],
  'empty-menu-import': ['importMenu', 'getMenuImport'],
};

/** The configuration of a departure's runs, where it differs from the mock's (an account by API key). */
const CONFIGS: Partial<Record<DepartureName, ContractConfig>> = {
  'api-key-header': {
    ...MOCK_CONFIG,
    accounts: { ...MOCK_CONFIG.accounts, staffMember: { apiKey: 'key-admin@pizza.demo' } },
  },
};

/** The sample `npm test` runs: one departure of each family the issue names first. */
// no-order-links answers 501 where no-couriers answers 404: both ways of saying an endpoint is missing.
const SAMPLE: DepartureName[] = ['zone-wrapped', 'no-couriers', 'no-order-links', 'coerce-names'];

const lines: string[] = [];

/** The markers a departure departs from. */
function pointersOf(name: DepartureName): string[] {
  const departure: { decision: string; also?: readonly string[] } = DEPARTURES[name];
  return [departure.decision, ...(departure.also ?? [])];
}

async function run(name: DepartureName, profile: 'spec' | 'full'): Promise<SuiteResult> {
  const service = createIndependentService({ departures: [name] });
  try {
    return await runContractSuite({
      baseUrl: 'http://independent.local',
      fetch: service.fetch,
      config: CONFIGS[name] ?? MOCK_CONFIG,
      profile,
      seed: 23,
      selection: { operations: PROBES[name] },
      stateful: { runs: PROBE_STATEFUL_RUNS },
    });
  } finally {
    await service.close();
  }
}

test('every departure has a probe', () => {
  expect(DEPARTURE_NAMES.filter((name) => !PROBES[name])).toEqual([]);
});

describe('each departure alone: spec passes naming its decision, full fails naming it', () => {
  for (const name of DEPARTURE_NAMES) {
    const title = `${name} (${DEPARTURES[name].area}): ${DEPARTURES[name].does}`;
    const define = SAMPLE.includes(name)
      ? (body: () => Promise<void>, timeout: number) => test(title, body, timeout)
      : fullRunOnly(title, `npm test tries the sample ${SAMPLE.join(', ')}`);
    define(async () => {
      const pointers = pointersOf(name);
      const spec = await run(name, 'spec');
      expect(spec.results.filter((r) => r.status === 'failed').map((r) => `${r.id}: ${r.failure}`)).toEqual([]);
      const warned = spec.warningsByDecision.filter((g) => pointers.includes(g.decision));
      if (!(DEPARTURES[name] as { silentUnderSpec?: string }).silentUnderSpec)
        expect(warned.length, `no warning names ${pointers.join(' or ')}`).toBeGreaterThan(0);
      const full = await run(name, 'full');
      const failed = full.results.filter((r) => r.status === 'failed');
      const naming = failed.filter(
        (r) => pointers.some((p) => r.failure?.includes(p)) || r.decisions.some((p) => pointers.includes(p)),
      );
      expect(naming.length, `full does not fail naming ${pointers.join(' or ')}`).toBeGreaterThan(0);
      const count = warned.reduce((sum, g) => sum + g.count, 0);
      lines.push(
        `${name}: spec 0 failed of ${spec.summary.total} (${spec.summary.skipped} skipped), ${count} warnings; full ${failed.length} failed of ${full.summary.total}, ${naming.length} naming the decision`,
      );
    }, 1_200_000);
  }
});

afterAll(() => {
  if (lines.length) console.log(lines.join('\n'));
});
