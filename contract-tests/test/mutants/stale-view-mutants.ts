/**
 * Sequence faults of one family: a write, then a view that still shows the
 * old value. Each wraps the correct mock: from a record's second write on,
 * one view (a list, a filter, a sideload, a derived document, the carrier
 * view) shows the record as its first write left it, like a cache that is
 * filled once and never invalidated. Every other view stays right, so only
 * a model that reads every view back after every write sees the fault.
 */
/* eslint-disable @typescript-eslint/no-explicit-any */
import { jsonAnswer, stateful, tokenOf, type Handle, type Mutant } from './mutants.js';

interface Written {
  /** Successful writes per record key. */
  count: Map<string, number>;
  /** The record as the canonical read showed it right after its first write. */
  first: Map<string, any>;
}

/** The record a view shows stale: only from its second write on (one write and a read is what fixed tests do). */
function stale(state: Written, key: string): any {
  return (state.count.get(key) ?? 0) >= 2 ? state.first.get(key) : undefined;
}

/**
 * A wrapper that counts the writes `writeOf` recognizes (it returns the record's key and the path of its
 * canonical read), keeps the canonical read after the first write, and lets `view` answer with that memory.
 */
function staleView(
  writeOf: (request: Request, url: URL) => { key: string; read: string } | undefined,
  view: (handle: Handle, request: Request, url: URL, state: Written) => Promise<Response | undefined>,
): (handle: Handle) => Handle {
  return stateful(
    (): Written => ({ count: new Map(), first: new Map() }),
    (handle, state) => async (request) => {
      const url = new URL(request.url);
      const write = request.method === 'PUT' ? writeOf(request, url) : undefined;
      if (write) {
        const response = await handle(request);
        if (response.ok) {
          const count = (state.count.get(write.key) ?? 0) + 1;
          state.count.set(write.key, count);
          if (count === 1) {
            const read = await handle(new Request(new URL(write.read, url), { headers: authOnly(request) }));
            if (read.ok) state.first.set(write.key, await read.json());
          }
        }
        return response;
      }
      if (request.method === 'GET') {
        const answer = await view(handle, request, url, state);
        if (answer) return answer;
      }
      return handle(request);
    },
  );
}

/** The account (`type`, `id`) of the session a request is sent with. */
export async function accountOf(
  handle: Handle,
  request: Request,
  url: URL,
): Promise<{ type: string; id: number } | undefined> {
  const session = await handle(
    new Request(new URL('/api/session', url), { headers: { authorization: `Token token="${tokenOf(request, url)}"` } }),
  );
  return session.ok ? ((await session.json()) as any).api_user?.account : undefined;
}

/** Only the request's Authorization header: to read a record with the same session. */
export function authOnly(request: Request): Headers {
  const headers = new Headers();
  const auth = request.headers.get('authorization');
  if (auth) headers.set('authorization', auth);
  return headers;
}

/** Answers a JSON view through the correct mock and lets `patch` rewrite the body. */
export async function patched(
  handle: Handle,
  request: Request,
  patch: (body: any) => any | Promise<any>,
): Promise<Response> {
  const response = await handle(request);
  if (!response.ok) return response;
  return jsonAnswer(await patch(await response.json()), response.status, response);
}

/** The first group of `pattern` in the URL's path (a record's id). */
export const pathId = (pattern: RegExp, url: URL): string | undefined => pattern.exec(url.pathname)?.[1];

/** Recognizes the writes to one kind of record: its id from the path, its key and its canonical read. */
function written(
  pattern: RegExp,
  kind: string,
  read: string,
): (request: Request, url: URL) => { key: string; read: string } | undefined {
  return (_request, url) => {
    const id = pathId(pattern, url);
    return id ? { key: `${kind}:${id}`, read: `${read}${id}` } : undefined;
  };
}

/** The draft dish lists (`filtered`: those with `draft_category_id`) show `fields` of a dish as its first write left them. */
function staleDishes(writes: RegExp, filtered: boolean, fields: string[]): (handle: Handle) => Handle {
  return staleView(written(writes, 'dish', '/api/draft_dishes/'), async (handle, request, url, state) =>
    /^\/api\/draft_dishes\/?$/.test(url.pathname) && url.searchParams.has('draft_category_id') === filtered
      ? patched(handle, request, (body) => ({
          ...body,
          draft_dishes: body.draft_dishes.map((d: any) => {
            const first = stale(state, `dish:${d.id}`)?.draft_dish;
            return first ? { ...d, ...Object.fromEntries(fields.map((field) => [field, first[field]])) } : d;
          }),
        }))
      : undefined,
  );
}

/** The list of delivery zones shows `fields` of a zone as its first update left them. */
function staleZoneList(fields: string[]): (handle: Handle) => Handle {
  return staleView(
    written(/^\/api\/delivery_zones\/(\d+)$/, 'zone', '/api/delivery_zones/'),
    async (handle, request, url, state) =>
      url.pathname === '/api/delivery_zones'
        ? patched(handle, request, (body) => ({
            ...body,
            delivery_zones: body.delivery_zones.map((z: any) => {
              const first = stale(state, `zone:${z.id}`);
              return first ? { ...z, ...Object.fromEntries(fields.map((field) => [field, first[field]])) } : z;
            }),
          }))
        : undefined,
  );
}

const orderWrite = written(/^\/(?:api\/)?orders\/(\d+)$/, 'order', '/api/orders/');
const orgWrite = written(/^\/api\/organizations\/(\d+)$/, 'org', '/api/organizations/');
const restaurantWrite = written(/^\/api\/restaurants\/(\d+)$/, 'restaurant', '/api/restaurants/');

/** An answer with its text rewritten (an HTML document), its length dropped. */
async function rewriteText(response: Response, rewrite: (text: string) => string): Promise<Response> {
  const text = rewrite(await response.text());
  const headers = new Headers(response.headers);
  headers.delete('content-length');
  return new Response(text, { status: response.status, headers });
}

/** The stale-view mutants: each names the stateful test that kills it. */
export const STALE_VIEW_MUTANTS: Mutant[] = (
  [
    {
      id: 'organization-list-stale-after-second-update',
      description: 'the list of organizations shows an organization as its first update left it (GET by id is right)',
      killedBy: 'stateful.records',
      wrap: staleView(
        written(/^\/api\/organizations\/(\d+)$/, 'org', '/api/organizations/'),
        async (handle, request, url, state) =>
          url.pathname === '/api/organizations'
            ? patched(handle, request, (body) => ({
                ...body,
                organizations: body.organizations.map((o: any) => stale(state, `org:${o.id}`)?.organization ?? o),
              }))
            : undefined,
      ),
    },
    {
      id: 'restaurant-sideload-stale-after-second-update',
      description: "an order's `restaurants` sideload shows the restaurant as its first update left it",
      killedBy: 'stateful.records',
      wrap: staleView(
        written(/^\/api\/restaurants\/(\d+)$/, 'restaurant', '/api/restaurants/'),
        async (handle, request, url, state) =>
          /^\/(api\/)?orders\/\d+$/.test(url.pathname)
            ? patched(handle, request, (body) => ({
                ...body,
                restaurants: (body.restaurants ?? []).map(
                  (r: any) => stale(state, `restaurant:${r.id}`)?.restaurants?.[0] ?? r,
                ),
              }))
            : undefined,
      ),
    },
    {
      id: 'restaurant-filter-stale-after-second-update',
      description:
        'the restaurants listed with organization_id show a restaurant as its first update left it (the unfiltered list is right)',
      killedBy: 'stateful.records',
      wrap: staleView(
        written(/^\/api\/restaurants\/(\d+)$/, 'restaurant', '/api/restaurants/'),
        async (handle, request, url, state) =>
          url.pathname === '/api/restaurants' && url.searchParams.has('organization_id')
            ? patched(handle, request, (body) => ({
                ...body,
                restaurants: body.restaurants.map(
                  (r: any) => stale(state, `restaurant:${r.id}`)?.restaurants?.[0] ?? r,
                ),
              }))
            : undefined,
      ),
    },
    {
      id: 'dish-category-filter-stale-after-second-update',
      description:
        'the dishes listed with draft_category_id come from an index that keeps each dish as its first update left it (a dish moved later stays under its old category)',
      killedBy: 'stateful.menu',
      wrap: staleView(
        written(/^\/api\/draft_dishes\/(\d+)$/, 'dish', '/api/draft_dishes/'),
        async (handle, request, url, state) => {
          const category = url.searchParams.get('draft_category_id');
          if (!/^\/api\/draft_dishes\/?$/.test(url.pathname) || category === null) return undefined;
          // The correct answer first: a refused filter stays refused.
          const filtered = await handle(request);
          if (!filtered.ok) return filtered;
          const all = new URL(url);
          all.searchParams.delete('draft_category_id');
          return patched(handle, new Request(all, { headers: request.headers }), (body) => ({
            ...body,
            draft_dishes: body.draft_dishes
              .map((d: any) => stale(state, `dish:${d.id}`)?.draft_dish ?? d)
              .filter((d: any) => String(d.draft_category_id) === category),
          }));
        },
      ),
    },
    {
      id: 'category-dish-ids-stale-after-second-update',
      description:
        "a category read by id lists in draft_dish_ids a dish where the dish's first update left it (a dish moved later is still counted in its old category)",
      killedBy: 'stateful.menu',
      wrap: staleView(
        written(/^\/api\/draft_dishes\/(\d+)$/, 'dish', '/api/draft_dishes/'),
        async (handle, request, url, state) => {
          const id = pathId(/^\/api\/draft_categories\/(\d+)$/, url);
          if (!id) return undefined;
          return patched(handle, request, (body) => {
            const ids = new Set<number>(body.draft_category.draft_dish_ids);
            for (const key of state.count.keys()) {
              const dish = stale(state, key)?.draft_dish;
              if (!dish) continue;
              if (String(dish.draft_category_id) === id) ids.add(dish.id);
              else ids.delete(dish.id);
            }
            return { ...body, draft_category: { ...body.draft_category, draft_dish_ids: [...ids] } };
          });
        },
      ),
    },
    {
      id: 'zone-list-timetables-stale-after-second-update',
      description: "the list of delivery zones shows a zone's timetables and price as its first update left them",
      killedBy: 'stateful.zones',
      wrap: staleZoneList(['timetables', 'price']),
    },
    {
      id: 'courier-list-keeps-unassigned-order',
      description:
        "the courier's own list keeps an order that was once assigned to the courier, after a later update took it away",
      killedBy: 'stateful.orders',
      wrap: stateful(
        () => ({ assigned: new Map<number, any>() }),
        (handle, state) => async (request) => {
          const url = new URL(request.url);
          const id = pathId(/^\/(?:api\/)?orders\/(\d+)$/, url);
          if (request.method === 'PUT' && id) {
            const response = await handle(request);
            const read = await handle(new Request(new URL(`/api/orders/${id}`, url), { headers: authOnly(request) }));
            const order = read.ok ? ((await read.json()) as any).order : undefined;
            // The list's index learns assignments, never that one ended.
            if (response.ok && order?.courier_id != null) state.assigned.set(order.id, order);
            return response;
          }
          if (request.method !== 'GET' || !/^\/(api\/)?orders$/.test(url.pathname)) return handle(request);
          const account = await accountOf(handle, request, url);
          if (account?.type !== 'courier') return handle(request);
          return patched(handle, request, (body) => {
            for (const order of state.assigned.values())
              if (order.courier_id === account.id && !body.orders.some((o: any) => o.id === order.id))
                body.orders.push(order);
            return body;
          });
        },
      ),
    },
    {
      id: 'couriers-sideload-stale-after-second-update',
      description: "an order's `couriers` sideload shows the courier its first update assigned (GET order is right)",
      killedBy: 'stateful.orders',
      wrap: staleView(orderWrite, async (handle, request, url, state) => {
        const id = pathId(/^\/(?:api\/)?orders\/(\d+)$/, url);
        const first = id ? stale(state, `order:${id}`) : undefined;
        return first ? patched(handle, request, (body) => ({ ...body, couriers: first.couriers })) : undefined;
      }),
    },
    {
      id: 'carrier-view-contact-stale-after-second-update',
      description: "the carrier view shows an order's contact name and phone as its first update left them",
      killedBy: 'stateful.orders',
      wrap: staleView(orderWrite, async (handle, request, url, state) => {
        if (!/^\/api-delivery\/orders\/[^/]+$/.test(url.pathname)) return undefined;
        return patched(handle, request, (body) => {
          const first = stale(state, `order:${body.order?.id}`)?.order;
          return first
            ? {
                ...body,
                order: { ...body.order, contact_name: first.contact_name, contact_phone: first.contact_phone },
              }
            : body;
        });
      }),
    },
    {
      id: 'receipt-stale-after-second-update',
      description: "the HTML receipt prints the contact name and phone as the order's first update left them",
      killedBy: 'stateful.orders',
      wrap: staleView(orderWrite, async (handle, request, url, state) => {
        const id = pathId(/^\/(?:api\/)?orders\/(\d+)\/receipt\.html$/, url);
        const first = id ? stale(state, `order:${id}`)?.order : undefined;
        if (!first) return undefined;
        const now = await handle(new Request(new URL(`/api/orders/${id}`, url), { headers: authOnly(request) }));
        const current = ((await now.json()) as any).order;
        const response = await handle(request);
        const html = (await response.text())
          .replaceAll(current.contact_name, first.contact_name)
          .replaceAll(current.contact_phone, first.contact_phone);
        const headers = new Headers(response.headers);
        headers.delete('content-length');
        return new Response(html, { status: response.status, headers });
      }),
    },
    {
      id: 'dish-list-photo-stale-after-second-write',
      description:
        "the list of draft dishes shows a dish's photo as the dish's first update or upload left it (a later photo upload is missing)",
      killedBy: 'stateful.menu',
      wrap: staleDishes(/^\/api\/draft_dishes\/(\d+)(?:\/photo)?$/, false, ['photo']),
    },
    {
      id: 'order-list-confirmation-stale-after-second-write',
      description:
        "the list of orders shows an order's confirmations as its first update or confirmation left them (GET by id is right)",
      killedBy: 'stateful.orders',
      wrap: staleView(
        written(/^\/(?:api\/)?orders\/(\d+)(?:\/confirm)?$/, 'order', '/api/orders/'),
        async (handle, request, url, state) =>
          /^\/(api\/)?orders$/.test(url.pathname)
            ? patched(handle, request, (body) => ({
                ...body,
                orders: body.orders.map((o: any) => {
                  const first = stale(state, `order:${o.id}`)?.order;
                  return first
                    ? {
                        ...o,
                        courier_confirmed_at: first.courier_confirmed_at,
                        restaurant_confirmed_at: first.restaurant_confirmed_at,
                      }
                    : o;
                }),
              }))
            : undefined,
      ),
    },
    {
      id: 'category-list-photo-stale-after-second-write',
      description:
        "the list of draft categories shows a category's photo as the category's first rename or upload left it (a later upload is missing)",
      killedBy: 'stateful.menu',
      wrap: staleView(
        written(/^\/api\/draft_categories\/(\d+)(?:\/photo)?$/, 'category', '/api/draft_categories/'),
        async (handle, request, url, state) =>
          /^\/api\/draft_categories\/?$/.test(url.pathname)
            ? patched(handle, request, (body) => ({
                ...body,
                draft_categories: body.draft_categories.map((c: any) => {
                  const first = stale(state, `category:${c.id}`)?.draft_category;
                  return first ? { ...c, photo: first.photo } : c;
                }),
              }))
            : undefined,
      ),
    },
    {
      id: 'courier-list-confirmation-stale-after-second-write',
      description:
        "the courier's own list shows an order's courier confirmation as the order's first update or confirmation left it",
      killedBy: 'stateful.orders',
      wrap: staleView(
        written(/^\/(?:api\/)?orders\/(\d+)(?:\/confirm)?$/, 'order', '/api/orders/'),
        async (handle, request, url, state) => {
          if (!/^\/(api\/)?orders$/.test(url.pathname)) return undefined;
          const account = await accountOf(handle, request, url);
          if (account?.type !== 'courier') return undefined;
          return patched(handle, request, (body) => ({
            ...body,
            orders: body.orders.map((o: any) => {
              const first = stale(state, `order:${o.id}`)?.order;
              return first ? { ...o, courier_confirmed_at: first.courier_confirmed_at } : o;
            }),
          }));
        },
      ),
    },
    {
      id: 'client-filter-stale-after-new-order',
      description:
        'the orders listed with client_id come from an index filled at the first such query: an order imported later for the same client is missing',
      killedBy: 'stateful.imports',
      wrap: stateful(
        () => ({ index: new Map<string, Set<number>>() }),
        (handle, state) => async (request) => {
          const url = new URL(request.url);
          const client = url.searchParams.get('client_id');
          if (request.method !== 'GET' || !/^\/(api\/)?orders$/.test(url.pathname) || client === null)
            return handle(request);
          return patched(handle, request, (body) => {
            const known = state.index.get(client);
            if (!known) {
              state.index.set(client, new Set(body.orders.map((o: any) => o.id)));
              return body;
            }
            return { ...body, orders: body.orders.filter((o: any) => known.has(o.id)) };
          });
        },
      ),
    },
    {
      id: 'dish-list-weight-stale-after-second-update',
      description:
        "the list of draft dishes shows a dish's weight as the dish's first update left it (GET by id is right)",
      killedBy: 'stateful.menu',
      wrap: staleDishes(/^\/api\/draft_dishes\/(\d+)$/, false, ['weight']),
    },
    {
      id: 'dish-filter-options-stale-after-second-update',
      description:
        "the draft dishes listed with draft_category_id show a dish's configurator (options) as its first update left it",
      killedBy: 'stateful.menu',
      wrap: staleDishes(/^\/api\/draft_dishes\/(\d+)$/, true, ['options']),
    },
    {
      id: 'zone-list-area-stale-after-second-update',
      description: "the list of delivery zones shows a zone's area as its first update left it (GET by id is right)",
      killedBy: 'stateful.zones',
      wrap: staleZoneList(['area']),
    },
    {
      id: 'zone-terms-stale-by-id-after-second-update',
      description:
        "GET /api/delivery_zones/{id} shows a zone's time zone, free-delivery limits and minimum order price as its first update left them (the list is right)",
      killedBy: 'stateful.zones',
      wrap: staleView(
        written(/^\/api\/delivery_zones\/(\d+)$/, 'zone', '/api/delivery_zones/'),
        async (handle, request, url, state) => {
          const id = pathId(/^\/api\/delivery_zones\/(\d+)$/, url);
          const first = id ? stale(state, `zone:${id}`) : undefined;
          if (!first) return undefined;
          return patched(handle, request, (zone) => ({
            ...zone,
            timezone: first.timezone,
            free_delivery_count: first.free_delivery_count,
            free_delivery_price: first.free_delivery_price,
            minimal_order_price: first.minimal_order_price,
          }));
        },
      ),
    },
    {
      id: 'organization-by-id-stale-after-second-update',
      description: 'GET /api/organizations/{id} shows the organization as its first update left it (the list is right)',
      killedBy: 'stateful.records',
      wrap: staleView(orgWrite, async (handle, request, url, state) => {
        const id = pathId(/^\/api\/organizations\/(\d+)$/, url);
        const first = id ? stale(state, `org:${id}`) : undefined;
        return first ? patched(handle, request, () => first) : undefined;
      }),
    },
    {
      id: 'restaurant-by-id-stale-after-second-update',
      description: 'GET /api/restaurants/{id} shows the restaurant as its first update left it (the lists are right)',
      killedBy: 'stateful.records',
      wrap: staleView(restaurantWrite, async (handle, request, url, state) => {
        const id = pathId(/^\/api\/restaurants\/(\d+)$/, url);
        const first = id ? stale(state, `restaurant:${id}`) : undefined;
        return first ? patched(handle, request, () => first) : undefined;
      }),
    },
    {
      id: 'restaurant-list-stale-after-second-update',
      description:
        'the unfiltered list of restaurants shows a restaurant as its first update left it (the filtered list and GET by id are right)',
      killedBy: 'stateful.records',
      wrap: staleView(restaurantWrite, async (handle, request, url, state) =>
        url.pathname === '/api/restaurants' && !url.searchParams.has('organization_id')
          ? patched(handle, request, (body) => ({
              ...body,
              restaurants: body.restaurants.map((r: any) => stale(state, `restaurant:${r.id}`)?.restaurants?.[0] ?? r),
            }))
          : undefined,
      ),
    },
    {
      id: 'receipt-restaurant-stale-after-second-update',
      description: "the HTML receipt prints the order's restaurant (name, phone, address) as its first update left it",
      killedBy: 'stateful.records',
      wrap: staleView(restaurantWrite, async (handle, request, url, state) => {
        if (!/^\/(?:api\/)?orders\/\d+\/receipt\.html$/.test(url.pathname)) return undefined;
        const order = await handle(
          new Request(new URL(url.pathname.replace(/\/receipt\.html$/, ''), url), { headers: authOnly(request) }),
        );
        const body = order.ok ? ((await order.json()) as any) : undefined;
        const first = stale(state, `restaurant:${body?.order?.restaurant_id}`)?.restaurants?.[0];
        const current = (body?.restaurants ?? []).find((r: any) => r.id === body?.order?.restaurant_id);
        if (!first || !current) return undefined;
        return rewriteText(await handle(request), (html) =>
          ['name', 'phone', 'address'].reduce((text, field) => text.replaceAll(current[field], first[field]), html),
        );
      }),
    },
    {
      id: 'carrier-view-restaurant-stale-after-second-update',
      description: "the carrier view's restaurant block shows the restaurant as its first update left it",
      killedBy: 'stateful.records',
      wrap: stateful(
        () => ({ count: new Map<string, number>(), first: new Map<string, any>(), latest: new Map<string, any>() }),
        (handle, state) => async (request) => {
          const url = new URL(request.url);
          const id = request.method === 'PUT' ? pathId(/^\/api\/restaurants\/(\d+)$/, url) : undefined;
          if (id) {
            const response = await handle(request);
            if (!response.ok) return response;
            const read = await handle(
              new Request(new URL(`/api/restaurants/${id}`, url), { headers: authOnly(request) }),
            );
            const restaurant = read.ok ? ((await read.json()) as any).restaurants[0] : undefined;
            state.count.set(id, (state.count.get(id) ?? 0) + 1);
            if (state.count.get(id) === 1) state.first.set(id, restaurant);
            state.latest.set(id, restaurant);
            return response;
          }
          if (request.method !== 'GET' || !/^\/api-delivery\/orders\/[^/]+$/.test(url.pathname)) return handle(request);
          return patched(handle, request, (body) => {
            const block = body.order?.restaurant;
            // The block names no id: it is the restaurant whose latest state it shows.
            const key = [...state.latest.keys()].find(
              (k) =>
                (state.count.get(k) ?? 0) >= 2 &&
                state.latest.get(k)?.address === block?.address &&
                state.latest.get(k)?.name === block?.name,
            );
            const first = key ? state.first.get(key) : undefined;
            return first
              ? {
                  ...body,
                  order: {
                    ...body.order,
                    restaurant: { ...block, name: first.name, phone: first.phone, address: first.address },
                  },
                }
              : body;
          });
        },
      ),
    },
    {
      id: 'dish-by-id-stale-after-second-update',
      description: 'GET /api/draft_dishes/{id} shows the dish as its first update left it (the lists are right)',
      killedBy: 'stateful.menu',
      wrap: staleView(
        written(/^\/api\/draft_dishes\/(\d+)$/, 'dish', '/api/draft_dishes/'),
        async (handle, request, url, state) => {
          const id = pathId(/^\/api\/draft_dishes\/(\d+)$/, url);
          const first = id ? stale(state, `dish:${id}`) : undefined;
          return first ? patched(handle, request, () => first) : undefined;
        },
      ),
    },
    {
      id: 'storefront-dish-stale-after-second-publication',
      description:
        'from the second publication on, the storefront shows each dish as the first publication left it (new dishes and removals do show)',
      killedBy: 'stateful.menu',
      wrap: stateful(
        () => ({ publications: 0, first: new Map<number, any>() }),
        (handle, state) => async (request) => {
          const url = new URL(request.url);
          const menu = /^\/__mock\/organizations\/(\d+)\/menu$/.exec(url.pathname);
          if (request.method === 'POST' && /^\/api\/organizations\/\d+\/publish$/.test(url.pathname)) {
            const response = await handle(request);
            if (!response.ok) return response;
            state.publications += 1;
            if (state.publications === 1) {
              const published = await handle(
                new Request(new URL(`/__mock/organizations/${url.pathname.split('/')[3]}/menu`, url)),
              );
              if (published.ok)
                for (const dish of ((await published.json()) as any).menu.dishes) state.first.set(dish.id, dish);
            }
            return response;
          }
          if (request.method !== 'GET' || !menu || state.publications < 2) return handle(request);
          return patched(handle, request, (body) => ({
            ...body,
            menu: { ...body.menu, dishes: body.menu.dishes.map((d: any) => state.first.get(d.id) ?? d) },
          }));
        },
      ),
    },
    {
      id: 'order-by-id-stale-after-second-update',
      description: 'GET /api/orders/{id} shows the order as its first update left it (the lists are right)',
      killedBy: 'stateful.orders',
      wrap: staleView(orderWrite, async (handle, request, url, state) => {
        const id = pathId(/^\/(?:api\/)?orders\/(\d+)$/, url);
        const first = id ? stale(state, `order:${id}`)?.order : undefined;
        return first ? patched(handle, request, (body) => ({ ...body, order: first })) : undefined;
      }),
    },
    {
      id: 'courier-filter-keeps-unassigned-order',
      description:
        "the orders listed with courier_id keep an order once assigned to that courier, after a later update took it away (the courier's own list is right)",
      killedBy: 'stateful.orders',
      wrap: stateful(
        // The order as last assigned, and those a later update took away from their courier: only these come back,
        // so a list that leaves an order out for another reason (a courier asking about another courier) is right.
        () => ({ assigned: new Map<number, any>(), takenAway: new Map<number, any>() }),
        (handle, state) => async (request) => {
          const url = new URL(request.url);
          const id = pathId(/^\/(?:api\/)?orders\/(\d+)$/, url);
          if (request.method === 'PUT' && id) {
            const response = await handle(request);
            const read = await handle(new Request(new URL(`/api/orders/${id}`, url), { headers: authOnly(request) }));
            const order = read.ok ? ((await read.json()) as any).order : undefined;
            if (!response.ok || !order) return response;
            const before = state.assigned.get(order.id);
            if (before && before.courier_id !== order.courier_id) state.takenAway.set(order.id, before);
            if (order.courier_id != null) {
              state.assigned.set(order.id, order);
              state.takenAway.delete(order.id);
            } else state.assigned.delete(order.id);
            return response;
          }
          const courier = url.searchParams.get('courier_id');
          if (request.method !== 'GET' || !/^\/(api\/)?orders$/.test(url.pathname) || courier === null)
            return handle(request);
          return patched(handle, request, (body) => {
            for (const order of state.takenAway.values())
              if (String(order.courier_id) === courier && !body.orders.some((o: any) => o.id === order.id))
                body.orders.push(order);
            return body;
          });
        },
      ),
    },
    {
      id: 'dish-list-price-stale-after-second-update',
      description:
        "the list of draft dishes shows a dish's price as the dish's first update left it (GET by id is right)",
      killedBy: 'stateful.imports',
      wrap: staleDishes(/^\/api\/draft_dishes\/(\d+)$/, false, ['price']),
    },
  ] as Omit<Mutant, 'selection' | 'sequenceOnly'>[]
).map((mutant) => ({ ...mutant, selection: 'stateful', sequenceOnly: true }));
