/**
 * Deliberately faulty variants of the mock server. Each wraps the correct
 * mock's `handle` (a `Request → Response` function) with a response
 * transform, a request rewrite or state tampering through the control API,
 * so the fault is exactly the one described and nothing else changes.
 */
/* eslint-disable @typescript-eslint/no-explicit-any */
import type { Selection } from '../../src/index.js';

export type Handle = (request: Request) => Promise<Response>;

export interface Mutant {
  id: string;
  description: string;
  /** The tests of the normal suite that should catch it (to keep the run short). */
  selection: Selection;
  /** A fault that shows only in a sequence of calls: the fixed scenarios must pass and a stateful test must fail. */
  sequenceOnly?: boolean;
  /** The stateful test that kills this sequence-only mutant. */
  killedBy?: string;
  wrap(handle: Handle): Handle;
}

const ORIGIN = 'http://mock.local';

function isJson(response: Response): boolean {
  return (response.headers.get('content-type') ?? '').includes('json');
}

/** Rewrites the JSON body of matching answers. */
export function transformJson(
  match: (request: Request, url: URL, status: number) => boolean,
  transform: (body: any, request: Request) => any,
): (handle: Handle) => Handle {
  return (handle) => async (request) => {
    const url = new URL(request.url);
    const response = await handle(request);
    if (!isJson(response) || !match(request, url, response.status)) return response;
    const body = await response.json();
    const headers = new Headers(response.headers);
    headers.delete('content-length');
    return new Response(JSON.stringify(transform(body, request)), { status: response.status, headers });
  };
}

/** The token of a request (header or `token` query parameter). */
export function tokenOf(request: Request, url: URL): string | undefined {
  const header = request.headers.get('authorization');
  return header ? /token="?([^",\s]+)"?/i.exec(header)?.[1] : (url.searchParams.get('token') ?? undefined);
}

async function accountType(handle: Handle, token: string | undefined): Promise<string | undefined> {
  if (!token) return undefined;
  const response = await handle(
    new Request(`${ORIGIN}/api/session`, { headers: { Authorization: `Token token="${token}"` } }),
  );
  if (response.status !== 200) return undefined;
  return ((await response.json()) as any).api_user?.account?.type;
}

async function login(handle: Handle, login: string): Promise<string> {
  const response = await handle(
    new Request(`${ORIGIN}/api/session`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ login, password: 'demo' }).toString(),
    }),
  );
  return ((await response.json()) as any).meta.token;
}

/** Sends the same request with another account's token. */
async function withToken(request: Request, token: string): Promise<Request> {
  const url = new URL(request.url);
  url.searchParams.delete('token');
  const headers = new Headers(request.headers);
  headers.set('Authorization', `Token token="${token}"`);
  const body = request.method === 'GET' || request.method === 'HEAD' ? undefined : await request.clone().arrayBuffer();
  return new Request(url, { method: request.method, headers, ...(body ? { body } : {}) });
}

const ordersPath = /^\/(api\/)?orders(\/\d+)?$/;

export const MUTANTS: Mutant[] = [
  {
    id: 'missing-field',
    description: 'a field missing from a response (order.number left out of GET /api/orders/{id})',
    selection: { ids: ['schema.getOrder', 'orders.read-with-sideloads'] },
    wrap: transformJson(
      (r, url, status) => r.method === 'GET' && /^\/(api\/)?orders\/\d+$/.test(url.pathname) && status === 200,
      (body) => {
        delete body.order.number;
        return body;
      },
    ),
  },
  {
    id: 'number-as-string',
    description: 'a number sent as a string (order.final_sum as "20.00")',
    selection: { ids: ['schema.listOrders', 'schema.getOrder'] },
    wrap: transformJson(
      (r, url, status) => r.method === 'GET' && ordersPath.test(url.pathname) && status === 200,
      (body) => {
        for (const order of body.orders ?? [body.order]) order.final_sum = Number(order.final_sum).toFixed(2);
        return body;
      },
    ),
  },
  {
    id: 'courier-sees-other-orders',
    description: "a courier seeing another courier's order (courier requests are answered with the dispatcher's scope)",
    selection: { ids: ['scope.courier-sees-only-its-orders'] },
    wrap: (handle) => async (request) => {
      const url = new URL(request.url);
      if (
        request.method === 'GET' &&
        ordersPath.test(url.pathname) &&
        (await accountType(handle, tokenOf(request, url))) === 'courier'
      ) {
        return handle(await withToken(request, await login(handle, 'dispatcher@demo')));
      }
      return handle(request);
    },
  },
  {
    id: 'second-import-not-busy',
    description: 'a second menu import while one runs is answered `queued` instead of `busy`',
    selection: { ids: ['imports.menu-one-at-a-time'] },
    wrap: (handle) => async (request) => {
      const response = await handle(request);
      if (!/\/import\/menu$/.test(new URL(request.url).pathname) || response.status !== 409) return response;
      const body = (await response.json()) as any;
      return new Response(JSON.stringify({ status: 'queued', job_id: body.job_id }), {
        status: 202,
        headers: { 'Content-Type': 'application/json' },
      });
    },
  },
  {
    id: 'sunday-read-back-as-0',
    description: 'a zone read alone gives Sunday as day 0, though the zone lists (and writes) use 7',
    selection: { ids: ['zones.day-numbering'] },
    wrap: transformJson(
      (r, url, status) => r.method === 'GET' && /^\/api\/delivery_zones\/\d+$/.test(url.pathname) && status === 200,
      (body) => {
        for (const entry of body.timetables ?? []) if (entry.day === 7) entry.day = 0;
        return body;
      },
    ),
  },
  {
    id: 'self-intersecting-zone-accepted',
    description: 'a self-intersecting zone accepted (a refused area is dropped and the rest of the zone saved)',
    selection: { ids: ['zones.simple-polygon-only'] },
    wrap: (handle) => async (request) => {
      const url = new URL(request.url);
      if (!/^\/api\/delivery_zones/.test(url.pathname) || (request.method !== 'POST' && request.method !== 'PUT'))
        return handle(request);
      const text = await request.clone().text();
      const response = await handle(request);
      if (response.status !== 422) return response;
      const problems = (await response.clone().json()) as any;
      if (!problems.errors?.some((e: any) => e.source?.pointer === '/area')) return response;
      const body = JSON.parse(text);
      delete body.area;
      return handle(
        new Request(request.url, { method: request.method, headers: request.headers, body: JSON.stringify(body) }),
      );
    },
  },
  {
    id: 'token-valid-after-delete',
    description: 'a token still valid after DELETE /api/session',
    selection: { ids: ['session.lifecycle'] },
    wrap: (handle) => async (request) => {
      if (request.method === 'DELETE' && new URL(request.url).pathname === '/api/session')
        return new Response(null, { status: 204 });
      return handle(request);
    },
  },
  {
    id: 'page-count-off-by-one',
    description: '`meta.page_count` off by one',
    selection: { ids: ['orders.pagination-meta'] },
    wrap: transformJson(
      (r, url, status) => r.method === 'GET' && /^\/(api\/)?orders$/.test(url.pathname) && status === 200,
      (body) => {
        body.meta.page_count += 1;
        return body;
      },
    ),
  },
  {
    id: 'existing-ignore-updates',
    description: '`existing=ignore` (and the default) updating already imported orders',
    selection: { ids: ['imports.orders-existing-update-or-ignore'] },
    wrap: (handle) => async (request) => {
      const url = new URL(request.url);
      if (!/\/import\/orders$/.test(url.pathname) || url.searchParams.get('existing') === 'update')
        return handle(request);
      url.searchParams.set('existing', 'update');
      return handle(
        new Request(url, { method: request.method, headers: request.headers, body: await request.arrayBuffer() }),
      );
    },
  },
  {
    id: '500-on-malformed-body',
    description: 'a 500 on a malformed JSON body',
    selection: { ids: ['negative.createDraftDish', 'negative.updateOrganization', 'negative.importOrders'] },
    wrap: (handle) => async (request) => {
      if ((request.headers.get('content-type') ?? '').includes('application/json')) {
        const text = await request.clone().text();
        try {
          if (text) JSON.parse(text);
        } catch {
          return new Response(
            JSON.stringify({ errors: [{ status: '500', code: 'internal', title: 'Internal error' }] }),
            { status: 500, headers: { 'Content-Type': 'application/json' } },
          );
        }
      }
      return handle(request);
    },
  },
  {
    id: 'callback-not-sent',
    description: "a callback not sent (the carrier's callback_url is replaced by a dead address when it registers)",
    selection: { ids: ['carrier.round-trip'] },
    wrap: (handle) => async (request) => {
      const url = new URL(request.url);
      if (request.method !== 'POST' || url.pathname !== '/__mock/carriers') return handle(request);
      const body = JSON.parse(await request.text());
      body.callback_url = 'http://127.0.0.1:9/nowhere';
      return handle(
        new Request(url, {
          method: 'POST',
          headers: { 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        }),
      );
    },
  },
  {
    id: 'json-without-content-type',
    description: 'a JSON body without Content-Type: application/json taken as JSON',
    selection: { ids: ['format.json-needs-content-type'] },
    wrap: (handle) => async (request) => {
      const type = request.headers.get('content-type');
      if (request.method === 'GET' || (type && !type.startsWith('text/plain'))) return handle(request);
      const text = await request.clone().text();
      if (!text.startsWith('{')) return handle(request);
      const headers = new Headers(request.headers);
      headers.set('Content-Type', 'application/json');
      return handle(new Request(request.url, { method: request.method, headers, body: text }));
    },
  },
  {
    id: 'confirm-sets-wrong-timestamp',
    description:
      'confirmation recorded in the wrong field (restaurant_confirmed_at and courier_confirmed_at swapped on read)',
    selection: { ids: ['orders.confirm-by-account-type'] },
    wrap: transformJson(
      (r, url, status) => r.method === 'GET' && /^\/(api\/)?orders\/\d+$/.test(url.pathname) && status === 200,
      (body) => {
        const order = body.order;
        [order.restaurant_confirmed_at, order.courier_confirmed_at] = [
          order.courier_confirmed_at,
          order.restaurant_confirmed_at,
        ];
        return body;
      },
    ),
  },
  {
    id: 'status-filter-ignored',
    description: 'the `status` filter of the order list ignored',
    selection: { ids: ['orders.filters'] },
    wrap: (handle) => async (request) => {
      const url = new URL(request.url);
      if (request.method !== 'GET' || !/^\/(api\/)?orders$/.test(url.pathname) || !url.searchParams.has('status'))
        return handle(request);
      url.searchParams.delete('status');
      return handle(new Request(url, { headers: request.headers }));
    },
  },
  {
    id: 'staff-sees-every-organization',
    description: 'a staff member sees organizations other than its own',
    selection: { ids: ['scope.staff-member-sees-one-organization'] },
    wrap: (handle) => async (request) => {
      const url = new URL(request.url);
      if (
        request.method === 'GET' &&
        url.pathname === '/api/organizations' &&
        (await accountType(handle, tokenOf(request, url))) === 'staff_member'
      ) {
        return handle(await withToken(request, await login(handle, 'dispatcher@demo')));
      }
      return handle(request);
    },
  },
  {
    id: 'dish-name-defaulted',
    description: 'a draft dish without its required name created with a default name',
    selection: { ids: ['menu.draft-dish-required-fields'] },
    wrap: (handle) => async (request) => {
      const url = new URL(request.url);
      if (request.method !== 'POST' || !/^\/api\/draft_dishes\/?$/.test(url.pathname)) return handle(request);
      const body = JSON.parse(await request.clone().text());
      if (body.draft_dish && body.draft_dish.name === undefined) body.draft_dish.name = 'Unnamed dish';
      return handle(new Request(url, { method: 'POST', headers: request.headers, body: JSON.stringify(body) }));
    },
  },
  {
    id: 'publish-does-nothing',
    description: 'POST /api/organizations/{id}/publish answers success without publishing',
    selection: { ids: ['menu.drafts-reach-storefront-only-on-publish'] },
    wrap: (handle) => async (request) => {
      const match = /^\/api\/organizations\/(\d+)\/publish$/.exec(new URL(request.url).pathname);
      if (request.method !== 'POST' || !match) return handle(request);
      const menu = {
        organization_id: Number(match[1]),
        version: 1,
        published_at: new Date().toISOString(),
        category_count: 0,
        dish_count: 0,
      };
      return new Response(JSON.stringify({ menu }), { status: 200, headers: { 'Content-Type': 'application/json' } });
    },
  },
  {
    id: 'token-query-ignored',
    description: 'the `token` query parameter not accepted (only the header)',
    selection: { ids: ['session.token-forms'] },
    wrap: (handle) => async (request) => {
      const url = new URL(request.url);
      if (!url.searchParams.has('token') || url.pathname.startsWith('/__mock')) return handle(request);
      url.searchParams.delete('token');
      return handle(new Request(url, { method: request.method, headers: request.headers }));
    },
  },
  {
    id: 'failed-order-fails-batch',
    description: 'one failing order of an order import reported as failing the whole batch',
    selection: { ids: ['imports.orders-unknown-client-id'] },
    wrap: transformJson(
      (r, url, status) => r.method === 'POST' && /\/import\/orders$/.test(url.pathname) && status === 200,
      (body) => {
        const failed = body.organization_import.find((item: any) => item.status === 'error');
        if (failed)
          body.organization_import = body.organization_import.map((item: any) => ({
            external_id: item.external_id,
            status: 'error',
            errors: failed.errors,
          }));
        return body;
      },
    ),
  },
];

function isReset(request: Request): boolean {
  return request.method === 'POST' && new URL(request.url).pathname === '/__mock/reset';
}

/** A wrapper with memory; the memory is forgotten when the control API resets the mock. */
export function stateful<S extends object>(
  initial: () => S,
  wrap: (handle: Handle, state: S) => Handle,
): (handle: Handle) => Handle {
  return (handle) => {
    const state = initial();
    const wrapped = wrap(handle, state);
    return async (request) => {
      if (isReset(request)) Object.assign(state as object, initial());
      return wrapped(request);
    };
  };
}

/** A JSON answer like another one (its status and headers), with a new body. */
export async function jsonAnswer(body: unknown, status: number, like: Response): Promise<Response> {
  const headers = new Headers(like.headers);
  headers.delete('content-length');
  return new Response(JSON.stringify(body), { status, headers });
}

/** Faults that only a sequence of calls shows (issue 16); the stateful tests must kill them. */
export const SEQUENCE_MUTANTS: Mutant[] = [
  {
    id: 'deleted-dish-back-after-create',
    description: 'a deleted draft dish comes back in the list once another dish is created',
    selection: 'stateful',
    sequenceOnly: true,
    killedBy: 'stateful.menu',
    wrap: stateful(
      () => ({ deleted: [] as any[], ghosts: [] as any[] }),
      (handle, state) => async (request) => {
        const url = new URL(request.url);
        const dish = /^\/api\/draft_dishes\/(\d+)$/.exec(url.pathname);
        if (request.method === 'DELETE' && dish) {
          const before = await handle(new Request(request.url, { headers: request.headers }));
          const response = await handle(request);
          if (response.ok && before.ok) state.deleted.push(((await before.json()) as any).draft_dish);
          return response;
        }
        const response = await handle(request);
        if (request.method === 'POST' && /^\/api\/draft_dishes\/?$/.test(url.pathname) && response.ok) {
          // The create revives what was deleted before it (a stale cache of the list, say).
          state.ghosts.push(...state.deleted);
          state.deleted = [];
        }
        if (
          request.method === 'GET' &&
          /^\/api\/draft_dishes\/?$/.test(url.pathname) &&
          response.ok &&
          state.ghosts.length
        ) {
          const body = (await response.json()) as any;
          const org = url.searchParams.get('organization_id');
          body.draft_dishes.push(...state.ghosts.filter((g: any) => !org || String(g.organization_id) === org));
          return jsonAnswer(body, response.status, response);
        }
        return response;
      },
    ),
  },
  {
    id: 'second-publication-changes-nothing',
    description: 'a second publication changes nothing when only draft categories changed since the first',
    selection: 'stateful',
    sequenceOnly: true,
    killedBy: 'stateful.menu',
    wrap: stateful(
      () => ({ last: undefined as any, dishes: false, categories: false }),
      (handle, state) => async (request) => {
        const url = new URL(request.url);
        const write = request.method !== 'GET';
        if (write && /^\/api\/draft_dishes/.test(url.pathname)) state.dishes = true;
        if (write && /^\/api\/draft_categories/.test(url.pathname)) state.categories = true;
        if (request.method === 'POST' && /^\/api\/organizations\/\d+\/publish$/.test(url.pathname)) {
          if (state.last && state.categories && !state.dishes) return jsonAnswer(state.last, 200, new Response());
          const response = await handle(request);
          if (response.ok) {
            state.last = await response.clone().json();
            state.dishes = false;
            state.categories = false;
          }
          return response;
        }
        return handle(request);
      },
    ),
  },
  {
    id: 'order-list-stale-after-update',
    description: 'the order list shows an order as it was before an update of its contact name or comment',
    selection: 'stateful',
    sequenceOnly: true,
    killedBy: 'stateful.orders',
    wrap: stateful(
      () => ({ before: new Map<number, any>() }),
      (handle, state) => async (request) => {
        const url = new URL(request.url);
        const order = /^\/(?:api\/)?orders\/(\d+)$/.exec(url.pathname);
        if (request.method === 'PUT' && order) {
          let sent: any = {};
          try {
            sent = JSON.parse(await request.clone().text()).order ?? {};
          } catch {
            // not JSON: the mock refuses it
          }
          if (
            (sent.contact_name !== undefined || sent.description !== undefined) &&
            !state.before.has(Number(order[1]))
          ) {
            const read = await handle(new Request(request.url, { headers: request.headers }));
            if (read.ok) state.before.set(Number(order[1]), ((await read.json()) as any).order);
          }
          return handle(request);
        }
        const response = await handle(request);
        if (request.method === 'GET' && /^\/(api\/)?orders$/.test(url.pathname) && response.ok && state.before.size) {
          const body = (await response.json()) as any;
          for (const row of body.orders) {
            const old = state.before.get(row.id);
            if (old) Object.assign(row, { contact_name: old.contact_name, description: old.description });
          }
          return jsonAnswer(body, response.status, response);
        }
        return response;
      },
    ),
  },
  {
    id: 'status-change-applied-twice',
    description: "an order's second status change is applied twice: the order moves one step further than asked",
    selection: 'stateful',
    sequenceOnly: true,
    killedBy: 'stateful.orders',
    wrap: stateful(
      () => ({ changes: new Map<number, number>() }),
      (handle, state) => async (request) => {
        const url = new URL(request.url);
        const match = /^\/(?:api\/)?orders\/(\d+)\/status$/.exec(url.pathname);
        if (request.method !== 'PUT' || !match) return handle(request);
        const id = Number(match[1]);
        const before = await handle(new Request(`${url.origin}/api/orders/${id}`, { headers: request.headers }));
        const from = before.ok ? ((await before.json()) as any).order.status : undefined;
        const response = await handle(request);
        const to = url.searchParams.get('status');
        if (!response.ok || !from || from === to) return response;
        const count = (state.changes.get(id) ?? 0) + 1;
        state.changes.set(id, count);
        const chain = ['pending', 'accepted', 'cooking', 'ready', 'delivery', 'complete'];
        const next = chain[chain.indexOf(to ?? '') + 1];
        if (count >= 2 && next && chain.indexOf(to ?? '') >= 0) {
          const again = new URL(url);
          again.searchParams.set('status', next);
          again.searchParams.set('send_sms', 'false');
          await handle(new Request(again, { method: 'PUT', headers: request.headers }));
        }
        return response;
      },
    ),
  },
  {
    id: 'token-dies-after-second-use',
    description: 'a session token dies after its second use of GET /api/session',
    selection: 'stateful',
    sequenceOnly: true,
    killedBy: 'stateful.sessions',
    wrap: stateful(
      () => ({ uses: new Map<string, number>() }),
      (handle, state) => async (request) => {
        const url = new URL(request.url);
        const token = tokenOf(request, url);
        if (!token || url.pathname.startsWith('/__mock')) return handle(request);
        if ((state.uses.get(token) ?? 0) >= 2)
          return new Response(
            JSON.stringify({
              errors: [
                { status: '401', code: 'unauthorized', title: 'Unauthorized', detail: 'The session has ended.' },
              ],
            }),
            {
              status: 401,
              // The mock's own 401 in every other respect (the challenge too), so only the early death is the fault.
              headers: {
                'Content-Type': 'application/json',
                'X-Request-Id': 'mutant',
                'WWW-Authenticate': 'Token realm="restoapi"',
              },
            },
          );
        if (request.method === 'GET' && url.pathname === '/api/session')
          state.uses.set(token, (state.uses.get(token) ?? 0) + 1);
        return handle(request);
      },
    ),
  },
  {
    id: 'menu-import-revives-deleted-dish',
    description:
      'the next menu import brings back a dish deleted through the API since the last import, though the import does not carry it',
    selection: 'stateful',
    sequenceOnly: true,
    killedBy: 'stateful.imports',
    wrap: stateful(
      () => ({ deleted: [] as any[] }),
      (handle, state) => async (request) => {
        const url = new URL(request.url);
        if (request.method === 'DELETE' && /^\/api\/draft_dishes\/\d+$/.test(url.pathname)) {
          const before = await handle(new Request(request.url, { headers: request.headers }));
          const response = await handle(request);
          const dish = before.ok ? ((await before.json()) as any).draft_dish : undefined;
          if (response.ok && dish?.external_id) state.deleted.push(dish);
          return response;
        }
        if (request.method !== 'POST' || !/^\/api\/organizations\/\d+\/import\/menu$/.test(url.pathname))
          return handle(request);
        let body: any;
        try {
          body = JSON.parse(await request.clone().text());
        } catch {
          return handle(request);
        }
        if (!Array.isArray(body?.dishes) || body.categories) return handle(request);
        const sent = new Set(body.dishes.map((d: any) => d?.external_id));
        // A stale copy of the menu: what was deleted since the last import is sent along again.
        const ghosts = state.deleted.filter((d: any) => !sent.has(d.external_id));
        if (ghosts.length === 0) return handle(request);
        const category = body.dishes[0]?.category_name ?? 'Restored';
        body.dishes.push(
          ...ghosts.map((d: any) => ({
            name: d.name,
            price: Number(d.price),
            external_id: d.external_id,
            category_name: category,
          })),
        );
        const response = await handle(
          new Request(request.url, { method: 'POST', headers: request.headers, body: JSON.stringify(body) }),
        );
        if (response.ok) state.deleted = [];
        return response;
      },
    ),
  },
  {
    id: 'client-import-always-from-scratch',
    description:
      'from the second client import on, an import deletes the previously imported clients as if from_scratch=true were given',
    selection: 'stateful',
    sequenceOnly: true,
    killedBy: 'stateful.imports',
    wrap: stateful(
      () => ({ imports: 0 }),
      (handle, state) => async (request) => {
        const url = new URL(request.url);
        if (request.method !== 'POST' || !/^\/api\/organizations\/\d+\/import\/clients$/.test(url.pathname))
          return handle(request);
        // A flag left over from an earlier job: every later import starts from scratch.
        if (state.imports > 0) url.searchParams.set('from_scratch', 'true');
        const response = await handle(
          new Request(url, { method: 'POST', headers: request.headers, body: await request.text() }),
        );
        if (response.ok) state.imports += 1;
        return response;
      },
    ),
  },
  {
    id: 'courier-phone-lost-after-second-delivery-update',
    description: "from an order's second delivery update on, the carrier API answers 200 but drops courier_phone",
    selection: 'stateful',
    sequenceOnly: true,
    killedBy: 'stateful.orders',
    wrap: stateful(
      () => ({ updates: new Map<string, number>() }),
      (handle, state) => async (request) => {
        const url = new URL(request.url);
        const match = /^\/api-delivery\/orders\/([^/]+)\/delivery$/.exec(url.pathname);
        if (request.method !== 'PUT' || !match) return handle(request);
        const secureId = match[1]!;
        const count = state.updates.get(secureId) ?? 0;
        const text = await request.text();
        let body: Record<string, unknown> | undefined;
        try {
          const parsed: unknown = JSON.parse(text);
          if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, unknown>;
        } catch {
          body = undefined;
        }
        const again = (sent: string): Request =>
          new Request(request.url, { method: 'PUT', headers: request.headers, body: sent });
        let response: Response;
        if (count >= 1 && body && 'courier_phone' in body) {
          delete body.courier_phone;
          // With nothing else to send, the update is answered as if applied: the view as it is.
          response =
            Object.keys(body).length === 0
              ? await handle(new Request(`${url.origin}/api-delivery/orders/${secureId}`, { headers: request.headers }))
              : await handle(again(JSON.stringify(body)));
        } else response = await handle(again(text));
        if (response.ok) state.updates.set(secureId, count + 1);
        return response;
      },
    ),
  },
];
