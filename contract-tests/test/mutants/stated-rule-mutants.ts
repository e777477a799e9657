/**
 * Faults against stated rules that the `spec` profile did not try before (issue 36): each wraps the correct mock
 * and breaks one rule of the spec, and names the spec-profile test of `src/tests/stated-rules.ts` that kills it.
 */
/* eslint-disable @typescript-eslint/no-explicit-any */
import { jsonAnswer, stateful, type Handle, type Mutant } from './mutants.js';

const ORDER = /^\/(?:api\/)?orders\/(\d+)$/;
const ORDERS = /^\/(?:api\/)?orders$/;

/** Rewrites every order an answer of the main API holds (`order`, or each of `orders`). */
function eachOrder(handle: Handle, rewrite: (order: any) => any): Handle {
  return async (request) => {
    const url = new URL(request.url);
    const response = await handle(request);
    const isOrderRead = request.method === 'GET' && (ORDER.test(url.pathname) || ORDERS.test(url.pathname));
    if (!isOrderRead || !response.ok) return response;
    const body = (await response.json()) as any;
    if (body.order) body.order = rewrite(body.order);
    if (Array.isArray(body.orders)) body.orders = body.orders.map(rewrite);
    return jsonAnswer(body, response.status, response);
  };
}

/** The spec's filters that "may be an array", in every form the stated-rule test sends them. */
const ARRAY_FILTERS = ['restaurant_id', 'courier_id', 'client_id'];

/** The mutants of stated rules, each with the one spec test that must kill it. */
export const STATED_RULE_MUTANTS: Mutant[] = [
  {
    id: 'coordinates-latitude-first',
    description: 'writes an order\'s coordinates as "POINT(latitude longitude)" (the spec: longitude then latitude)',
    selection: { ids: ['rules.order-coordinates-longitude-first'] },
    wrap: (handle) =>
      eachOrder(handle, (order) => ({
        ...order,
        coordinates: String(order.coordinates).replace(/\(\s*(\S+)\s+(\S+)\s*\)/, '($2 $1)'),
      })),
  },
  {
    id: 'final-sum-ignores-delivery-price',
    description: 'keeps final_sum as it was when delivery_price is updated (the spec: total including delivery)',
    selection: { ids: ['rules.final-sum-follows-delivery-price'] },
    wrap: stateful(
      () => ({ sums: new Map<number, unknown>() }),
      (handle, state) => {
        const reads = eachOrder(handle, (order) =>
          state.sums.has(order.id) ? { ...order, final_sum: state.sums.get(order.id) } : order,
        );
        return async (request) => {
          const id = ORDER.exec(new URL(request.url).pathname)?.[1];
          if (request.method === 'PUT' && id && !state.sums.has(Number(id))) {
            const body = (await request
              .clone()
              .json()
              .catch(() => ({}))) as any;
            if (body?.order?.delivery_price !== undefined) {
              const before = await handle(
                new Request(request.url, { headers: { authorization: request.headers.get('authorization') ?? '' } }),
              );
              if (before.ok) state.sums.set(Number(id), ((await before.json()) as any).order.final_sum);
            }
          }
          return reads(request);
        };
      },
    ),
  },
  {
    id: 'free-delivery-not-applied',
    description: "charges 2.50 for delivery of an order at or above its zone's free_delivery_price",
    selection: { ids: ['rules.free-delivery-threshold'] },
    wrap: stateful(
      () => ({ free: new Set<number>() }),
      (handle, state) => {
        const reads = eachOrder(handle, (order) =>
          state.free.has(order.id)
            ? { ...order, delivery_price: '2.50', final_sum: Math.round((Number(order.final_sum) + 2.5) * 100) / 100 }
            : order,
        );
        return async (request) => {
          const url = new URL(request.url);
          if (request.method !== 'POST' || url.pathname !== '/__mock/orders') return reads(request);
          const response = await handle(request);
          if (!response.ok) return response;
          const body = (await response.json()) as any;
          if (Number(body.order?.delivery_price) === 0) {
            state.free.add(body.order.id);
            body.order = { ...body.order, delivery_price: '2.50' };
          }
          return jsonAnswer(body, response.status, response);
        };
      },
    ),
  },
  {
    id: 'minimal-order-price-not-applied',
    description:
      "places an order below its zone's minimal_order_price (the storefront raises the amounts until the mock takes it)",
    selection: { ids: ['rules.minimal-order-price'] },
    wrap: (handle) => async (request) => {
      const url = new URL(request.url);
      if (request.method !== 'POST' || url.pathname !== '/__mock/orders') return handle(request);
      const order = (await request.clone().json()) as any;
      let response = await handle(request);
      for (let tries = 0; response.status === 422 && tries < 8; tries += 1) {
        for (const item of order.items ?? []) item.amount *= 2;
        response = await handle(
          new Request(request.url, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(order),
          }),
        );
      }
      return response;
    },
  },
  {
    id: 'array-filter-first-value-only',
    description:
      'answers an order filter given several values (restaurant_id, courier_id, client_id) for its first value only',
    selection: { ids: ['rules.order-filters-take-arrays'] },
    wrap: (handle) => async (request) => {
      const url = new URL(request.url);
      if (request.method !== 'GET' || !ORDERS.test(url.pathname)) return handle(request);
      for (const key of ARRAY_FILTERS.flatMap((k) => [k, `${k}[]`])) {
        const [first] = url.searchParams.getAll(key);
        if (first === undefined) continue;
        url.searchParams.delete(key);
        url.searchParams.set(key, first.split(',')[0]!);
      }
      return handle(new Request(url, request));
    },
  },
  {
    id: 'hidden-dish-on-storefront',
    description: 'publishes the hidden draft dishes too: a dish created hidden is on the storefront after publication',
    selection: { ids: ['rules.hidden-dish-not-on-storefront'] },
    wrap: stateful(
      () => ({ hidden: new Map<number, any>(), published: [] as any[] }),
      (handle, state) => async (request) => {
        const url = new URL(request.url);
        const response = await handle(request);
        if (!response.ok) return response;
        if (request.method === 'POST' && /^\/api\/draft_dishes\/?$/.test(url.pathname)) {
          const dish = ((await response.clone().json()) as any).draft_dish;
          if (dish?.is_hidden === true) state.hidden.set(dish.id, dish);
        } else if (request.method === 'POST' && /^\/api\/organizations\/\d+\/publish$/.test(url.pathname)) {
          state.published = [...state.hidden.values()];
        } else if (request.method === 'GET' && /^\/__mock\/organizations\/\d+\/menu$/.test(url.pathname)) {
          const body = (await response.json()) as any;
          body.menu.dishes = [...body.menu.dishes, ...state.published.map((d) => ({ ...d, is_hidden: false }))];
          return jsonAnswer(body, response.status, response);
        }
        return response;
      },
    ),
  },
];
