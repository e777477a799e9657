/**
 * Faulty services that break what the spec STATES, each naming the clauses it breaks: the `spec` profile must
 * kill every one of them (issue 36, "the other way round"). Together with the stated mutants of mutants.ts
 * (those `spec` kills, listed in {@link SPEC_KILLED_MUTANTS}) they make the clause coverage the suite prints.
 */
import { transformJson, type Mutant } from './mutants.js';

/** A mutant that breaks stated clauses: `spec` kills it. */
export interface StatedMutant extends Mutant {
  /** Ids of the clauses (contract-tests/src/generated/clauses.ts) whose stated rule it breaks. */
  clauses: string[];
}

const carrierOrder = /^\/api-delivery\/orders\/[^/]+(\/delivery)?$/;

/** Changes the order of every carrier-view answer (a read or the answer to a delivery update). */
const carrierView = (
  change: (order: { order_status?: unknown; delivery?: { status?: unknown } }) => void,
): Mutant['wrap'] =>
  transformJson(
    (r, url, status) => carrierOrder.test(url.pathname) && status === 200,
    (body) => {
      if (body.order) change(body.order);
      return body;
    },
  );

/** Stated values the document's decision markers once covered whole: each must fail under `spec`. */
export const STATED_MUTANTS: StatedMutant[] = [
  {
    id: 'carrier-order-status-outside-list',
    description: 'the carrier view says `order_status: "on_the_road"`, outside the stated new … cancelled',
    clauses: ['Resources > Carrier order view: order_status'],
    selection: { ids: ['schema.getCarrierOrder', 'schema.updateCarrierDelivery', 'carrier.read-and-update'] },
    wrap: carrierView((order) => {
      order.order_status = 'on_the_road';
    }),
  },
  {
    id: 'delivery-status-outside-list',
    description: 'the carrier view says `delivery.status: "lost"`, outside the stated idle … problem',
    clauses: ['Resources > Carrier order view > The delivery block: status'],
    selection: { ids: ['schema.getCarrierOrder', 'schema.updateCarrierDelivery', 'carrier.read-and-update'] },
    wrap: carrierView((order) => {
      if (order.delivery) order.delivery.status = 'lost';
    }),
  },
  {
    id: 'staff-member-without-role',
    description: 'the session names a staff member with `organization_id` as a string and no `role`',
    clauses: ['Resources > StaffMember: role', 'Resources > StaffMember: organization_id'],
    selection: { ids: ['schema.createSession', 'session.accounts-per-role'] },
    wrap: transformJson(
      (r, url, status) => r.method === 'POST' && url.pathname === '/api/session' && status < 300,
      (body) => {
        for (const member of body.staff_members ?? []) {
          delete member.role;
          member.organization_id = String(member.organization_id);
        }
        return body;
      },
    ),
  },
];

/**
 * The clauses each mutant of mutants.ts breaks, for those the `spec` profile kills (measured with
 * `RESTOAPI_SPEC_MUTANTS=1 npx vitest run contract-tests/test/mutants/spec-mutants.test.ts`; the three it
 * does not kill are left out).
 */
export const SPEC_KILLED_MUTANTS: Readonly<Record<string, readonly string[]>> = {
  'missing-field': ['Resources > Order: number'],
  'number-as-string': ['Resources > Order: final_sum'],
  'courier-sees-other-orders': ['Authentication 5: Courier'],
  'second-import-not-busy': ['Limits 1', 'Errors 1'],
  'sunday-read-back-as-0': ['Resources > DeliveryZone > Timetable entry: day'],
  'self-intersecting-zone-accepted': ['Errors 4', 'Resources > DeliveryZone: area'],
  'token-valid-after-delete': ['Endpoints > Session: DELETE /api/session'],
  'page-count-off-by-one': ['Data format rules 2'],
  'existing-ignore-updates': ['Endpoints > Organizations: POST /api/organizations/:id/import/orders'],
  '500-on-malformed-body': ['Data format rules 8'],
  'callback-not-sent': ['Events: order_created'],
  'json-without-content-type': ['Errors 5'],
  'confirm-sets-wrong-timestamp': [
    'Endpoints > Orders: PUT /orders/:id/confirm',
    'Resources > Order: restaurant_confirmed_at',
  ],
  'status-filter-ignored': ['Data format rules 4', 'Endpoints > Orders: GET /orders'],
  'staff-sees-every-organization': [
    'Authentication 5: StaffMember',
    'Endpoints > Organizations: GET /api/organizations',
  ],
  'dish-name-defaulted': ['Errors 3'],
  'publish-does-nothing': ['Endpoints > Organizations: POST /api/organizations/:id/publish'],
  'token-query-ignored': ['Authentication 3'],
  'failed-order-fails-batch': ['Errors 2'],
  'deleted-dish-back-after-create': ['Endpoints > Draft dishes: DELETE /api/draft_dishes/:id'],
  'second-publication-changes-nothing': ['Endpoints > Organizations: POST /api/organizations/:id/publish'],
  'order-list-stale-after-update': ['Endpoints > Orders: PUT /orders/:id'],
  'token-dies-after-second-use': ['Endpoints > Session: GET /api/session'],
  'menu-import-revives-deleted-dish': ['Menu import rules 1'],
};
