/**
 * More mutants of stated clauses (issue 36: "for every stated clause with a checkable rule, a mutant, and `spec`
 * kills it"): a generated family that makes the service ignore one stated field of an import body, one that breaks
 * one stated field of the dish configurator, and one mutant per stated rule the other families leave unbroken. The
 * clauses no black-box mutant can break are listed in {@link UNCHECKABLE_CLAUSES} with the reason.
 */
/* eslint-disable @typescript-eslint/no-explicit-any */
import { jsonAnswer, tokenOf, transformJson, type Handle } from './mutants.js';
import { CLAUSES } from '../../src/generated/clauses.js';
import { DECIDED_FIELD_TYPES, SITES, atSite, type RecordSite, type StatedMutant } from './stated-mutants.js';

const ORIGIN = 'http://mock.local';
const ORDER = /^\/(?:api\/)?orders\/(\d+)$/;

/** The import bodies whose stated fields the field family drops, with the tests that read what they import. */
const IMPORTS = [
  { body: 'Menu import body', kind: 'menu', items: '', tests: ['imports.menu-*'] },
  { body: 'Order import body', kind: 'orders', items: 'orders', tests: ['imports.orders-*'] },
] as const;

/** The import rules a field's mutant breaks beside the field's own row. */
const ALSO_BROKEN: Readonly<Record<string, readonly string[]>> = {
  'Resources > Import payloads > Order import body: client_external_id': ['Order import rules 3'],
  'Resources > Import payloads > Order import body: restaurant_id, delivery_zone_id': ['Order import rules 2'],
};

/** Deletes `path` (`a`, `a[].b`, `a.b`) from `holder`, in every element of an array on the way. */
function drop(holder: any, path: string): void {
  if (holder === null || typeof holder !== 'object') return;
  const [, head, array, rest] = /^([a-z_]+)(\[\])?(?:\.|$)?(.*)$/.exec(path.replace('[].', '[]'))!;
  if (!rest && !array) return void delete holder[head!];
  const next = holder[head!];
  if (array && !rest) return void delete holder[head!];
  for (const item of array ? (Array.isArray(next) ? next : []) : [next]) drop(item, rest!);
}

/** Rewrites the JSON body of every `POST …/import/<kind>` before the service sees it. */
function rewriteImport(kind: string, change: (body: any) => void): (handle: Handle) => Handle {
  return (handle) => async (request) => {
    const url = new URL(request.url);
    if (request.method !== 'POST' || !url.pathname.endsWith(`/import/${kind}`)) return handle(request);
    const body = (await request
      .clone()
      .json()
      .catch(() => undefined)) as any;
    if (!body || typeof body !== 'object') return handle(request);
    change(body);
    const headers = new Headers(request.headers);
    headers.delete('content-length');
    return handle(new Request(url, { method: 'POST', headers, body: JSON.stringify(body) }));
  };
}

/**
 * One mutant per stated field of the menu and order import bodies: the service takes the import but ignores that
 * field (as if it was never sent). Each breaks its clause; the import tests of `spec` read back what an import
 * made, so they kill the mutant of every field whose effect the spec lets a client see.
 */
export function importFieldMutants(clauseIds: readonly string[]): StatedMutant[] {
  const out: StatedMutant[] = [];
  for (const site of IMPORTS)
    for (const clause of clauseIds) {
      const prefix = `Resources > Import payloads > ${site.body}: `;
      if (!clause.startsWith(prefix) || UNCHECKABLE_CLAUSES[clause]) continue;
      const fields = clause
        .slice(prefix.length)
        .split(',')
        .map((f) => f.trim().replace(/\[\]$/, ''));
      out.push({
        id: `import-ignores-${site.kind}-${fields.join('-').replace(/[^a-z]+/g, '-')}`,
        description: `the ${site.kind} import ignores ${fields.join(', ')} of its body`,
        clauses: [clause, ...(ALSO_BROKEN[clause] ?? [])],
        selection: { ids: [...site.tests] },
        wrap: rewriteImport(site.kind, (body) => {
          for (const holder of site.items ? (body[site.items] ?? []) : [body])
            for (const field of fields) drop(holder, field);
        }),
      });
    }
  return out;
}

/** Every mutant of this file, for the clauses given: the families and the rule mutants. */
export function clauseMutants(clauseIds: readonly string[]): StatedMutant[] {
  return [
    ...RULE_MUTANTS,
    ...importFieldMutants(clauseIds),
    ...configuratorMutants(clauseIds),
    ...missingFieldMutants(clauseIds),
  ];
}

/** A value of a JSON type the field never has. */
function wrongType(value: unknown): unknown {
  if (typeof value === 'string') return 12345;
  if (typeof value === 'number' || typeof value === 'boolean' || value === null) return { wrong: true };
  return 'wrong';
}

/**
 * One mutant per stated field of the dish configurator (a dish's `options` group): draft dishes come back with
 * that field of every group in a JSON type it never has. The configurator round trip of `spec` reads it.
 */
export function configuratorMutants(clauseIds: readonly string[]): StatedMutant[] {
  const prefix = 'Resources > Dish configurator: ';
  return clauseIds
    .filter((clause) => clause.startsWith(prefix))
    .map((clause) => {
      const field = clause.slice(prefix.length).trim();
      return {
        id: `wrong-type-dish-configurator-${field}`,
        description: `a dish configurator's ${field} comes back with a JSON type it never has`,
        clauses: [clause],
        selection: { ids: ['menu.configurator-round-trip'] },
        wrap: transformJson(
          (r, url, status) =>
            r.method === 'GET' && /^\/api\/draft_dishes(\/\d+)?\/?$/.test(url.pathname) && status < 300,
          (body) => {
            for (const dish of [body.draft_dish, ...(body.draft_dishes ?? [])])
              for (const group of Array.isArray(dish?.options) ? dish.options : [])
                if (group && field in group) group[field] = wrongType(group[field]);
            return body;
          },
        ),
      };
    });
}

/**
 * Fields whose presence is not stated (the spec lets a record leave them out) or is decided by a marker that covers
 * it, with the reason: a mutant that drops them survives `spec`, so another mutant breaks their clause.
 */
export const PRESENCE_DECIDED: Readonly<Record<string, string>> = {
  'Resources > DeliveryZone: area': "the marker on the field's type covers its presence too (a zone made without one)",
  'Resources > DeliveryZone > Timetable entry: date':
    'the spec says "nullable or absent": a weekly entry has none (timetable-date-dropped drops the date of a dated entry)',
};

/**
 * Stated fields whose type the decision markers narrowed (`x-decided`: what `null` means, a format, an editability)
 * but whose presence is stated: the missing-field family drops them as well as the fields of
 * {@link DECIDED_FIELD_TYPES}. Their wrong-type mutants are stated-mutants.ts's field family.
 */
const PRESENCE_STATED = [
  'Order: courier_id',
  'DraftDish: photo',
  'DraftDish: weight',
  'DraftDish: external_id',
  'DraftDish: options',
  'DraftCategory: photo',
  'DeliveryZone: timezone',
  'Restaurant: is_running',
  'Restaurant: is_delivery',
  'Courier: last_known_position',
].map((field) => `Resources > ${field}`);

/**
 * Where the spec states a record's fields when it is not the record's own endpoint: the restaurants and couriers
 * embedded in an order response (the spec lists is_running and is_delivery there, and describes the Courier as
 * embedded in one; the courier endpoints are decided as a whole).
 */
const inOrder = (resource: string, root: string): RecordSite => ({
  resource,
  root,
  method: 'GET',
  path: ORDER,
  test: 'orders.read-with-sideloads',
});
const IN_ORDER: Readonly<Record<string, RecordSite>> = {
  Restaurant: inOrder('Restaurant', 'restaurants'),
  Courier: inOrder('Courier', 'couriers'),
};

/**
 * One mutant per stated field whose presence is stated while its type is (partly) decided: the field is left out of
 * the record the schema test reads, or of the order response that embeds it ({@link IN_ORDER}).
 */
export function missingFieldMutants(clauseIds: readonly string[]): StatedMutant[] {
  const out: StatedMutant[] = [];
  for (const own of SITES) {
    const site = IN_ORDER[own.resource] ?? own;
    for (const clause of clauseIds) {
      const prefix = `Resources > ${site.resource}: `;
      if (!clause.startsWith(prefix) || PRESENCE_DECIDED[clause]) continue;
      if (!DECIDED_FIELD_TYPES[clause] && !PRESENCE_STATED.includes(clause)) continue;
      const field = clause.slice(prefix.length).trim();
      out.push({
        id: `missing-${site.resource.toLowerCase().replace(/[^a-z]+/g, '-')}-${field}`,
        description: `${site.resource} comes back without its stated field ${field}${site === own ? '' : ' in an order response'}`,
        clauses: [clause],
        selection: { ids: [site.test] },
        wrap: atSite(site, (record) => void delete record[field]),
      });
    }
  }
  return out;
}

/** The same request with its query parameter `name` set to `value`. */
function withQuery(request: Request, name: string, value: string): Request {
  const url = new URL(request.url);
  url.searchParams.set(name, value);
  return new Request(url, request);
}

/** The account type behind a request's token (through the correct service's `GET /api/session`). */
async function accountType(handle: Handle, request: Request): Promise<string | undefined> {
  const token = tokenOf(request, new URL(request.url));
  if (!token) return undefined;
  const response = await handle(
    new Request(`${ORIGIN}/api/session`, { headers: { Authorization: `Token token="${token}"` } }),
  );
  return response.ok ? ((await response.json()) as any).api_user?.account?.type : undefined;
}

/** Mutants of stated rules, each with the tests that must kill it under `spec`. */
export const RULE_MUTANTS: StatedMutant[] = [
  {
    id: 'single-resource-under-data',
    description: 'an order read by id comes back under `data` instead of the singular root key `order`',
    clauses: ['Data format rules 3'],
    selection: { ids: ['schema.getOrder', 'orders.read-with-sideloads'] },
    wrap: transformJson(
      (r, url, status) => r.method === 'GET' && ORDER.test(url.pathname) && status === 200,
      ({ order, ...rest }) => ({ data: order, ...rest }),
    ),
  },
  {
    id: 'sideloads-nested-in-order',
    description: 'an order read by id carries its restaurants and couriers inside `order`, not as root-level arrays',
    clauses: ['Data format rules 5'],
    selection: { ids: ['orders.read-with-sideloads'] },
    wrap: transformJson(
      (r, url, status) => r.method === 'GET' && ORDER.test(url.pathname) && status === 200,
      ({ restaurants, couriers, ...rest }) => ({ ...rest, order: { ...rest.order, restaurants, couriers } }),
    ),
  },
  {
    id: 'actions-only-as-post',
    description: 'the order actions (`confirm`, `status`) answer 405 to PUT: the service takes them as POST only',
    clauses: ['Data format rules 6'],
    selection: { ids: ['orders.confirm-by-account-type', 'orders.courier-status-changes'] },
    wrap: (handle) => async (request) => {
      const url = new URL(request.url);
      if (request.method === 'PUT' && /^\/(api\/)?orders\/\d+\/(confirm|status)$/.test(url.pathname))
        return Response.json(
          { errors: [{ status: '405', code: 'method_not_allowed', title: 'Use POST' }] },
          { status: 405, headers: { Allow: 'POST' } },
        );
      return handle(request);
    },
  },
  {
    id: 'session-credentials-json-only',
    description: 'session creation refuses credentials sent as form or query parameters (401): JSON bodies only',
    clauses: ['Data format rules 10', 'Data format rules 7'],
    selection: { ids: ['session.credentials-form-and-query'] },
    wrap: (handle) => async (request) => {
      const url = new URL(request.url);
      const form = (request.headers.get('content-type') ?? '').includes('form');
      if (request.method === 'POST' && url.pathname === '/api/session' && (form || url.searchParams.has('login')))
        return Response.json(
          { errors: [{ status: '401', code: 'unauthorized', title: 'JSON only' }] },
          { status: 401 },
        );
      return handle(request);
    },
  },
  {
    id: 'reads-without-session',
    description: 'a read of the main API without a token is answered as if the dispatcher had asked',
    clauses: ['Authentication 1'],
    selection: { ids: ['session.*'] },
    wrap: (handle) => async (request) => {
      const url = new URL(request.url);
      if (request.method !== 'GET' || !url.pathname.startsWith('/api/') || url.pathname === '/api/session')
        return handle(request);
      if (tokenOf(request, url)) return handle(request);
      const login = await handle(
        new Request(`${ORIGIN}/api/session?login=dispatcher@demo&password=demo`, { method: 'POST' }),
      );
      const token = ((await login.json()) as any).meta.token as string;
      return handle(withQuery(request, 'token', token));
    },
  },
  {
    id: 'wrong-password-accepted',
    description: 'a session is created for a known login whatever the password',
    clauses: ['Authentication 2'],
    selection: { ids: ['session.*'] },
    wrap: (handle) => async (request) => {
      const url = new URL(request.url);
      if (request.method !== 'POST' || url.pathname !== '/api/session') return handle(request);
      if (url.searchParams.has('password')) return handle(withQuery(request, 'password', 'demo'));
      const type = request.headers.get('content-type') ?? '';
      const text = await request.clone().text();
      const headers = new Headers(request.headers);
      headers.delete('content-length');
      if (type.includes('x-www-form-urlencoded')) {
        const form = new URLSearchParams(text);
        if (form.has('password')) form.set('password', 'demo');
        return handle(new Request(url, { method: 'POST', headers, body: form.toString() }));
      }
      if (type.includes('json')) {
        const body = JSON.parse(text || '{}');
        if ('password' in body) body.password = 'demo';
        return handle(new Request(url, { method: 'POST', headers, body: JSON.stringify(body) }));
      }
      return handle(request);
    },
  },
  {
    id: 'dispatcher-sees-one-organization',
    description: "the dispatcher's order list holds the orders of the first organization only",
    clauses: ['Authentication 5: Dispatcher', 'Authentication 5'],
    selection: { ids: ['scope.dispatcher-sees-all-orders'] },
    wrap: (handle) => async (request) => {
      const url = new URL(request.url);
      const list = request.method === 'GET' && /^\/(api\/)?orders$/.test(url.pathname);
      if (!list || (await accountType(handle, request)) !== 'dispatcher') return handle(request);
      const response = await handle(request);
      if (!response.ok) return response;
      const body = (await response.json()) as any;
      body.orders = body.orders.filter((o: any) => o.organization_id === 1 || o.restaurant_id < 20);
      return jsonAnswer(body, response.status, response);
    },
  },
  {
    id: 'courier-delivery-ignored',
    description: "a courier's `PUT /orders/{id}/status?status=delivery` answers success but leaves the status",
    clauses: ['States and transitions: row 1'],
    selection: { ids: ['orders.courier-status-changes'] },
    wrap: statusIgnored('delivery'),
  },
  {
    id: 'courier-complete-ignored',
    description: "a courier's `PUT /orders/{id}/status?status=complete` answers success but leaves the status",
    clauses: ['States and transitions: row 2'],
    selection: { ids: ['orders.courier-status-changes'] },
    wrap: statusIgnored('complete'),
  },
  {
    id: 'menu-import-not-queued',
    description: 'a started menu import answers `status: "done"` instead of `queued`',
    clauses: ['States and transitions: row 5'],
    selection: { ids: ['imports.menu-one-at-a-time', 'imports.menu-replaces-and-keeps-ids'] },
    wrap: transformJson(
      (r, url, status) => r.method === 'POST' && url.pathname.endsWith('/import/menu') && status < 300,
      (body) => (body?.status === 'queued' ? { ...body, status: 'done' } : body),
    ),
  },
  {
    id: 'existing-update-ignored',
    description: '`existing=update` treated as `ignore`: a re-imported order is reported `ignored` and left as it was',
    clauses: ['States and transitions: row 7'],
    selection: { ids: ['imports.orders-existing-update-or-ignore'] },
    wrap: (handle) => async (request) => {
      const url = new URL(request.url);
      if (
        request.method === 'POST' &&
        url.pathname.endsWith('/import/orders') &&
        url.searchParams.get('existing') === 'update'
      )
        return handle(withQuery(request, 'existing', 'ignore'));
      return handle(request);
    },
  },
  {
    id: 'failed-order-without-errors',
    description: 'a failed order of an import is reported `error` without its `errors` array',
    clauses: ['States and transitions: row 9'],
    selection: { ids: ['imports.orders-unknown-client-id', 'imports.orders-address-and-zone'] },
    wrap: transformJson(
      (r, url, status) => r.method === 'POST' && url.pathname.endsWith('/import/orders') && status < 300,
      (body) => {
        for (const item of body?.organization_import ?? []) if (item.status === 'error') delete item.errors;
        return body;
      },
    ),
  },
  {
    id: 'unknown-client-id-imported',
    description: 'an order imported with a client_id that does not exist is imported (without a client)',
    clauses: ['Order import rules 4', 'Resources > Import payloads > Order import body: client_id'],
    selection: { ids: ['imports.orders-unknown-client-id'] },
    wrap: rewriteImport('orders', (body) => {
      for (const order of body.orders ?? [])
        if (typeof order.client_id === 'number' && order.client_id > 100_000) delete order.client_id;
    }),
  },
  {
    id: 'unmatched-items-refused',
    description: 'an imported order whose items match no dish of the menu ends with an error (contents validated)',
    clauses: ['Order import rules 1'],
    selection: { ids: ['imports.orders-fields', 'imports.orders-address-and-zone'] },
    wrap: rewriteImport('orders', (body) => {
      // An unknown client makes the correct service end the item with an error and create nothing.
      for (const order of body.orders ?? []) {
        const items = (order.buddies ?? []).flatMap((b: any) => b.items ?? []);
        if (items.some((i: any) => i.dish_id === undefined && i.dish_external_id === undefined)) {
          delete order.client_external_id;
          order.client_id = 999_999_999;
        }
      }
    }),
  },
  {
    id: 'menu-reimport-renumbers-dishes',
    description: 'every menu import gives the dishes new ids, even those re-imported with a known external_id',
    clauses: ['Menu import rules 3'],
    selection: { ids: ['imports.menu-replaces-and-keeps-ids'] },
    wrap: (handle) => {
      let imports = 0;
      const shift = (id: unknown): unknown => (typeof id === 'number' ? id + 100_000 * imports : id);
      return async (request) => {
        const url = new URL(request.url);
        if (request.method === 'POST' && url.pathname.endsWith('/import/menu')) {
          const response = await handle(request);
          if (response.ok) imports += 1;
          return response;
        }
        // The dishes as the lists show them: numbered anew by each import (reads by id are not asked for here).
        if (request.method !== 'GET' || !/^\/api\/draft_dishes\/?$/.test(url.pathname)) return handle(request);
        const response = await handle(request);
        if (!response.ok) return response;
        const body = (await response.json()) as any;
        for (const dish of body.draft_dishes ?? []) dish.id = shift(dish.id);
        return jsonAnswer(body, response.status, response);
      };
    },
  },
  {
    id: 'photo-upload-needs-photo-field',
    description: 'a photo upload with the multipart attribute `file` is refused (422): the service wants `photo`',
    clauses: ['Data format rules 9'],
    selection: { ids: ['menu.photo-uploads'] },
    wrap: (handle) => async (request) => {
      const url = new URL(request.url);
      if (!/\/photo$/.test(url.pathname) || !(request.headers.get('content-type') ?? '').includes('multipart'))
        return handle(request);
      const form = await request
        .clone()
        .formData()
        .catch(() => undefined);
      if (!form?.has('file') || form.has('photo')) return handle(request);
      return Response.json(
        { errors: [{ status: '422', code: 'required', title: 'photo is required', source: { pointer: '/photo' } }] },
        { status: 422 },
      );
    },
  },
  {
    id: 'pending-import-not-notified',
    description: 'an order imported as `pending` sends no SMS and no e-mail (the notification outbox stays empty)',
    clauses: ['Order import rules 5'],
    selection: { ids: ['imports.orders-pending-notifications'] },
    // The notifications leave by channels the spec does not show: the mock's outbox (control API) is where the
    // suite sees them, so the fault is an outbox without them.
    wrap: transformJson(
      (r, url, status) => r.method === 'GET' && url.pathname === '/__mock/notifications' && status === 200,
      (body) => ({ ...body, notifications: [] }),
    ),
  },
  {
    id: 'timetable-date-dropped',
    description: 'a dated timetable entry is read back without its `date`: it becomes an entry of every such weekday',
    clauses: ['Resources > DeliveryZone > Timetable entry: date'],
    selection: { ids: ['zones.timetable'] },
    wrap: transformJson(
      (r, url, status) => r.method === 'GET' && /^\/api\/delivery_zones(\/\d+)?\/?$/.test(url.pathname) && status < 300,
      (body) => {
        for (const zone of [body, ...(Array.isArray(body?.delivery_zones) ? body.delivery_zones : [])])
          for (const entry of Array.isArray(zone?.timetables) ? zone.timetables : [])
            if (entry?.date) delete entry.date;
        return body;
      },
    ),
  },
  {
    id: 'carrier-api-ignores-secure-id',
    description: 'the carrier API finds no order by the secure_id its callback carried (404 on every secure_id)',
    clauses: ['Authentication 8'],
    selection: { ids: ['carrier.read-and-update'] },
    wrap: (handle) => async (request) => {
      if (!/^\/api-delivery\/orders\/[^/]+/.test(new URL(request.url).pathname)) return handle(request);
      return Response.json(
        { errors: [{ status: '404', code: 'not_found', title: 'No order with this secure_id' }] },
        { status: 404 },
      );
    },
  },
  {
    id: 'status-change-not-announced',
    description:
      "a handed-over order's status change sends no `order_status_changed` callback (order_created still goes out)",
    clauses: ['Events: order_status_changed'],
    selection: { ids: ['carrier.round-trip', 'schema.callbacks'] },
    wrap: (handle) => {
      // The callbacks leave the mock on their own: the fault is the carrier unregistered (control API) before any
      // request that can change an order's status, so the mock has no one to tell. Orders keep their secure_id.
      const registered: { id: number; session: string | null }[] = [];
      return async (request) => {
        const url = new URL(request.url);
        if (request.method === 'POST' && url.pathname === '/__mock/carriers') {
          const response = await handle(request);
          const id = response.ok ? ((await response.clone().json()) as any)?.carrier?.id : undefined;
          if (typeof id === 'number') registered.push({ id, session: request.headers.get('x-mock-session') });
          return response;
        }
        const changes = /^\/(?:api\/)?orders\/\d+(?:\/status)?$|^\/api-delivery\/orders\/[^/]+\/delivery$/;
        if (request.method === 'PUT' && changes.test(url.pathname))
          for (const { id, session } of registered.splice(0))
            await handle(
              new Request(`${ORIGIN}/__mock/carriers/${id}`, {
                method: 'DELETE',
                headers: session ? { 'X-Mock-Session': session } : {},
              }),
            );
        return handle(request);
      };
    },
  },
];

/** A courier's status change to `to` answered 200 with the order as it is (the answer's body is decided), not applied. */
function statusIgnored(to: string): (handle: Handle) => Handle {
  return (handle) => async (request) => {
    const url = new URL(request.url);
    const match = /^\/(?:api\/)?orders\/(\d+)\/status$/.exec(url.pathname);
    if (request.method !== 'PUT' || !match || url.searchParams.get('status') !== to) return handle(request);
    if ((await accountType(handle, request)) !== 'courier') return handle(request);
    const read = new URL(`${ORIGIN}/api/orders/${match[1]}`);
    const token = url.searchParams.get('token');
    if (token) read.searchParams.set('token', token);
    return handle(new Request(read, { headers: request.headers }));
  };
}

/**
 * The stated clauses no black-box mutant can break, with the reason: what they state cannot be observed through
 * the API the spec shows, or they state nothing a service could get wrong.
 */
export const UNCHECKABLE_CLAUSES: Readonly<Record<string, string>> = {
  'Data format rules 1': 'says only that the format "partially follows" JSON API and is REST-like: no rule to break',
  ...Object.fromEntries(
    CLAUSES.filter((clause) => clause.id.startsWith('Resources > Import payloads > Client import body: ')).map(
      (clause) => [
        clause.id,
        'clients cannot be read back: the endpoints for clients are "not shown", so a client field the service drops is invisible',
      ],
    ),
  ),
  'Resources > Import payloads > Menu import body: config.destroy_menu':
    'Menu import rules 1 replaces the whole menu on every import: what destroy_menu=true adds to that is not stated',
  'Resources > Import payloads > Order import body: published_at':
    'no stated field of an order shows the time of placing it (created_at is when the service made the record)',
  'Resources > Import payloads > Order import body: used_bonuses':
    'no stated field of an order shows the bonuses (final_sum is stated as including delivery and surcharges only)',
  'Resources > Import payloads > Order import body: source': 'no stated field of an order shows its origin',
  'Resources > Import payloads > Order import body: takeaway': 'no stated field of an order shows takeaway',
  'Resources > Import payloads > Order import body: total':
    "the order's total is stated as the price of all dishes: a service may compute it from the lines, so an imported total has no stated effect",
  'Resources > Import payloads > Order import body: buddies':
    'the buddies and items of an order cannot be read back (their endpoints are "not shown"); the lines of a buddy have their own mutant',
};
