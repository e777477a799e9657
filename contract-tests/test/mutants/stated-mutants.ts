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
