/**
 * Faulty services that break what the spec STATES, each naming the clauses it breaks: the `spec` profile must
 * kill every one of them (issue 36, "the other way round"). Together with the stated mutants of mutants.ts
 * (those `spec` kills, listed in {@link SPEC_KILLED_MUTANTS}) they make the clause coverage the suite prints.
 */
import { openapiDocument } from '@restoapi/openapi';
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
 * does not kill are left out). A mutant names every stated rule its fault breaks: the busy answer is also the
 * menu import's transition (row 6) and Menu import rules 2; the swapped confirmations are Authentication 6 and row 3.
 */
export const SPEC_KILLED_MUTANTS: Readonly<Record<string, readonly string[]>> = {
  'missing-field': ['Resources > Order: number'],
  'number-as-string': ['Resources > Order: final_sum'],
  'courier-sees-other-orders': ['Authentication 5: Courier'],
  'second-import-not-busy': ['Limits 1', 'Errors 1', 'States and transitions: row 6', 'Menu import rules 2'],
  'sunday-read-back-as-0': ['Resources > DeliveryZone > Timetable entry: day'],
  'self-intersecting-zone-accepted': ['Errors 4', 'Resources > DeliveryZone: area'],
  'token-valid-after-delete': ['Endpoints > Session: DELETE /api/session', 'Authentication 4'],
  'page-count-off-by-one': ['Data format rules 2', 'Limits 3'],
  'existing-ignore-updates': [
    'Endpoints > Organizations: POST /api/organizations/:id/import/orders',
    'States and transitions: row 8',
  ],
  '500-on-malformed-body': ['Data format rules 8'],
  'callback-not-sent': ['Events: order_created'],
  'json-without-content-type': ['Errors 5'],
  'confirm-sets-wrong-timestamp': [
    'Endpoints > Orders: PUT /orders/:id/confirm',
    'Resources > Order: restaurant_confirmed_at',
    'Authentication 6',
    'States and transitions: row 3',
  ],
  'status-filter-ignored': ['Data format rules 4', 'Endpoints > Orders: GET /orders'],
  'staff-sees-every-organization': [
    'Authentication 5: StaffMember',
    'Endpoints > Organizations: GET /api/organizations',
    'Limits 2',
  ],
  'dish-name-defaulted': ['Errors 3'],
  'publish-does-nothing': [
    'Endpoints > Organizations: POST /api/organizations/:id/publish',
    'States and transitions: row 4',
  ],
  'token-query-ignored': ['Authentication 3'],
  'failed-order-fails-batch': ['Errors 2'],
  'deleted-dish-back-after-create': ['Endpoints > Draft dishes: DELETE /api/draft_dishes/:id'],
  'second-publication-changes-nothing': ['Endpoints > Organizations: POST /api/organizations/:id/publish'],
  'order-list-stale-after-update': ['Endpoints > Orders: PUT /orders/:id'],
  'token-dies-after-second-use': ['Endpoints > Session: GET /api/session'],
  'menu-import-revives-deleted-dish': ['Menu import rules 1'],
};

/** A record the schema tests read, and where its answer carries it. */
export interface RecordSite {
  /** The resource's name in the spec's clause ids (`Resources > <name>: <field>`). */
  resource: string;
  /** The answer's root key holding it (an object or an array of them); `''` for the body itself. */
  root: string;
  /** Inside the record (`delivery` for the carrier view's delivery block; each entry when it is an array). */
  inner?: string;
  method: string;
  path: RegExp;
  /** The test that reads it. */
  test: string;
}

/** The records the schema tests read, each with the test that reads it. */
export const SITES: readonly RecordSite[] = [
  { resource: 'Order', root: 'order', method: 'GET', path: /^\/(api\/)?orders\/\d+$/, test: 'schema.getOrder' },
  {
    resource: 'DraftDish',
    root: 'draft_dish',
    method: 'GET',
    path: /^\/api\/draft_dishes\/\d+$/,
    test: 'schema.getDraftDish',
  },
  {
    resource: 'DeliveryZone',
    root: '',
    method: 'GET',
    path: /^\/api\/delivery_zones\/\d+$/,
    test: 'schema.getDeliveryZone',
  },
  {
    resource: 'Restaurant',
    root: 'restaurants',
    method: 'GET',
    path: /^\/api\/restaurants\/\d+$/,
    test: 'schema.getRestaurant',
  },
  {
    resource: 'Organization',
    root: 'organization',
    method: 'GET',
    path: /^\/api\/organizations\/\d+$/,
    test: 'schema.getOrganization',
  },
  {
    resource: 'DraftCategory',
    root: 'draft_category',
    method: 'GET',
    path: /^\/api\/draft_categories\/\d+$/,
    test: 'schema.getDraftCategory',
  },
  { resource: 'Courier', root: 'courier', method: 'GET', path: /^\/api\/couriers\/\d+$/, test: 'schema.getCourier' },
  { resource: 'ApiUser', root: 'api_user', method: 'POST', path: /^\/api\/session$/, test: 'schema.createSession' },
  { resource: 'Carrier order view', root: 'order', method: 'GET', path: carrierOrder, test: 'schema.getCarrierOrder' },
  {
    resource: 'Carrier order view > The delivery block',
    root: 'order',
    inner: 'delivery',
    method: 'GET',
    path: carrierOrder,
    test: 'schema.getCarrierOrder',
  },
  {
    resource: 'DeliveryZone > Timetable entry',
    root: '',
    inner: 'timetables',
    method: 'GET',
    path: /^\/api\/delivery_zones\/\d+$/,
    test: 'schema.getDeliveryZone',
  },
  {
    resource: 'StaffMember',
    root: 'staff_members',
    method: 'POST',
    path: /^\/api\/session$/,
    test: 'schema.createSession',
  },
];

/** Changes each record of `site` in its answers (each element where the site names an array). */
export function atSite(site: RecordSite, change: (record: Record<string, unknown>) => void): Mutant['wrap'] {
  return transformJson(
    (r, url, status) => r.method === site.method && site.path.test(url.pathname) && status < 300,
    (body) => {
      const roots = site.root ? body?.[site.root] : body;
      for (const record of Array.isArray(roots) ? roots : [roots]) {
        const inner = site.inner ? record?.[site.inner] : record;
        for (const holder of Array.isArray(inner) ? inner : [inner])
          if (holder && typeof holder === 'object') change(holder);
      }
      return body;
    },
  );
}

/** A value of a JSON type the field never has: a stated type broken. */
function wrongType(value: unknown): unknown {
  if (typeof value === 'string') return 12345;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return { wrong: true };
  return 'wrong';
}

/**
 * Why a field mutant of {@link fieldMutants} survives `spec`, by clause: the field's type is decided (or the
 * spec gives none), so another type is a warning, not a failure.
 */
export const DECIDED_FIELD_TYPES: Readonly<Record<string, string>> = {
  'Resources > Courier: last_known_position': 'its structure is decided (Courier › .last_known_position)',
  'Resources > DeliveryZone: free_delivery_price': 'its type is decided: the spec says only "nullable"',
  'Resources > DeliveryZone: minimal_order_price': 'its type is decided: the spec says only "nullable"',
  'Resources > DeliveryZone: area': 'the marker on DeliveryZone › .area covers the whole property',
  'Resources > DeliveryZone > Timetable entry: date':
    'the spec gives no type ("a special date"): its format is decided (Timetable › .date)',
};

/**
 * One mutant per stated field of the records the schema tests read: the field comes back with a JSON type it
 * never has. Each breaks the clause of that field; `spec` kills all but {@link DECIDED_FIELD_TYPES}.
 */
export function fieldMutants(clauseIds: readonly string[]): StatedMutant[] {
  const out: StatedMutant[] = [];
  for (const site of SITES)
    for (const clause of clauseIds) {
      const prefix = `Resources > ${site.resource}: `;
      if (!clause.startsWith(prefix) || DECIDED_FIELD_TYPES[clause]) continue;
      const field = clause.slice(prefix.length).split(',')[0]!.trim();
      if (!/^[a-z_]+$/.test(field)) continue;
      out.push({
        id: `wrong-type-${site.resource.toLowerCase().replace(/[^a-z]+/g, '-')}-${field}`,
        description: `${site.resource} ${field} comes back with a JSON type it never has`,
        clauses: [clause],
        selection: { ids: [site.test] },
        wrap: atSite(site, (holder) => {
          if (field in holder) holder[field] = wrongType(holder[field]);
        }),
      });
    }
  return out;
}

/** A stated endpoint's clause as the method and concrete paths it names (`:id` as 1), or undefined. */
function endpointOf(clause: string): { method: string; paths: string[] } | undefined {
  const match = /^Endpoints > [^:]+: (GET|PUT|POST|DELETE) (\S+)(?: or (\S+))?$/.exec(clause);
  if (!match) return undefined;
  const concrete = (path: string): string => {
    const full = path.startsWith('/') ? path : `${/^\/?\S*\//.exec(match[2]!)![0]}${path}`;
    return full
      .replace(/:[a-z_]+/g, '1')
      .replace(/\/$/, '')
      .replace(/^\/orders/, '/api/orders');
  };
  return { method: match[1]!, paths: [match[2]!, ...(match[3] ? [match[3]] : [])].map(concrete) };
}

/** A path template of the document as a pattern of request paths (`{id}` is one segment; a trailing slash too). */
function templatePattern(template: string): RegExp {
  return new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}/?$`);
}

/**
 * One mutant per stated endpoint: the service has no such endpoint (404 with an error body, on every form the
 * clause names). Each breaks that endpoint's clause, and `spec` kills it: only the endpoints the spec leaves
 * "not shown" may be missing (runner/request-shapes.ts).
 */
export function endpointMutants(clauseIds: readonly string[]): StatedMutant[] {
  const operations = Object.entries(openapiDocument.paths ?? {}).flatMap(([template, item]) =>
    (['get', 'put', 'post', 'delete'] as const).flatMap((method) => {
      const operation = (item as Record<string, { operationId?: string } | undefined>)[method];
      return operation?.operationId
        ? [{ method: method.toUpperCase(), pattern: templatePattern(template), id: operation.operationId }]
        : [];
    }),
  );
  const out: StatedMutant[] = [];
  for (const clause of clauseIds) {
    const endpoint = endpointOf(clause);
    if (!endpoint) continue;
    const ids = operations
      .filter((o) => o.method === endpoint.method && endpoint.paths.some((p) => o.pattern.test(p)))
      .map((o) => o.id);
    if (!ids.length) continue;
    const patterns = operations.filter((o) => ids.includes(o.id));
    out.push({
      id: `no-endpoint-${ids.join('-')}`,
      description: `the service has no ${clause.slice(clause.indexOf(': ') + 2)} (404)`,
      clauses: [clause],
      selection: { operations: ids },
      wrap: (handle) => async (request) => {
        const url = new URL(request.url);
        // The spec's /orders… alias is the same endpoint.
        const path = url.pathname.replace(/^\/orders/, '/api/orders');
        if (!patterns.some((o) => o.method === request.method && o.pattern.test(path))) return handle(request);
        return Response.json(
          { errors: [{ status: '404', code: 'not_found', title: 'No such endpoint' }] },
          { status: 404 },
        );
      },
    });
  }
  return out;
}
