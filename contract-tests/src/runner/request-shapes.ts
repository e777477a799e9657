/**
 * What the suite sends where the document decided a request's shape (issue 36): the shapes the spec allows,
 * and the endpoints it leaves "not shown". Under `spec`, a refusal of the decided shape is retried with the
 * other allowed shapes, and the one the service takes is kept for the rest of the run (or set in the
 * configuration's `requests`); a "not shown" endpoint that does not exist skips its test. Each names its
 * decision, so the verdict says what the service chose.
 */

type Json = Record<string, unknown>;

function isRecord(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** One request shape that rests on a decision, and the shapes the spec allows instead. */
export interface RequestShape {
  /** Its key under `requests` in the configuration. */
  key: RequestShapeKey;
  /** JSON Pointer of the `x-decision` marker the decided shape rests on. */
  decision: string;
  /** The operations that take it. */
  operations: readonly string[];
  /** The name of the decided shape (what the suite sends first). */
  decided: string;
  /** The other shapes, by name: each rewrites a body of the decided shape (undefined: does not apply to it). */
  alternatives: Record<string, (body: unknown) => unknown>;
}

/** The keys of the request shapes in the configuration's `requests`. */
export type RequestShapeKey = 'zoneBody' | 'dishPrice' | 'dishWeight' | 'orderImportBuddies' | 'draftDishesPath';

/**
 * A dish field in the other JSON type its spec text allows a client to mean ("price: string", "weight in
 * grams; returned as a string"): a decimal string as a number, or a number as a string.
 */
function dishFieldAs(field: 'price' | 'weight', type: 'number' | 'string'): (body: unknown) => unknown {
  return (body) => {
    if (!isRecord(body)) return undefined;
    const dish = isRecord(body.draft_dish) ? body.draft_dish : body;
    const value = dish[field];
    if (type === 'number' && (typeof value !== 'string' || !/^\d+(\.\d+)?$/.test(value))) return undefined;
    if (type === 'string' && typeof value !== 'number') return undefined;
    const changed = { ...dish, [field]: type === 'number' ? Number(value) : String(value) };
    return isRecord(body.draft_dish) ? { ...body, draft_dish: changed } : changed;
  };
}

/** Every request shape the suite adapts. */
export const REQUEST_SHAPES: readonly RequestShape[] = [
  {
    key: 'zoneBody',
    decision: '/components/schemas/DeliveryZoneCreate',
    operations: ['createDeliveryZone'],
    decided: 'bare',
    // Data format rules 3: single resources travel under their singular root.
    alternatives: {
      wrapped: (body) => (isRecord(body) && !('delivery_zone' in body) ? { delivery_zone: body } : undefined),
    },
  },
  {
    key: 'zoneBody',
    decision: '/components/schemas/DeliveryZoneUpdate',
    operations: ['updateDeliveryZone'],
    decided: 'bare',
    alternatives: {
      wrapped: (body) => (isRecord(body) && !('delivery_zone' in body) ? { delivery_zone: body } : undefined),
    },
  },
  {
    key: 'dishPrice',
    decision: '/components/schemas/DishPriceInput',
    operations: ['createDraftDish', 'updateDraftDish'],
    decided: 'string',
    alternatives: { number: dishFieldAs('price', 'number') },
  },
  {
    key: 'dishWeight',
    decision: '/components/schemas/DishWeightInput',
    operations: ['createDraftDish', 'updateDraftDish'],
    // The document takes both; the suite sends a string (as GET returns it) or a number (as the menu import
    // takes it), and a service may take only one of them.
    decided: 'number-or-string',
    alternatives: { number: dishFieldAs('weight', 'number'), string: dishFieldAs('weight', 'string') },
  },
  {
    key: 'orderImportBuddies',
    decision: '/components/schemas/OrderImportBuddy',
    operations: ['importOrders'],
    decided: 'as-documented',
    // The spec's buddy is `{id: string, name: string, items: array}`: a service may require all three.
    alternatives: {
      named: (body) => {
        if (!isRecord(body) || !Array.isArray(body.orders)) return undefined;
        let changed = false;
        const orders = body.orders.map((order: unknown, o) => {
          if (!isRecord(order) || !Array.isArray(order.buddies)) return order;
          const buddies = order.buddies.map((buddy: unknown, b) => {
            if (!isRecord(buddy) || (typeof buddy.id === 'string' && typeof buddy.name === 'string')) return buddy;
            changed = true;
            return { id: `buddy-${o + 1}-${b + 1}`, name: `Buddy ${b + 1}`, ...buddy };
          });
          return { ...order, buddies };
        });
        return changed ? { ...body, orders } : undefined;
      },
    },
  },
];

/**
 * A collection path the spec writes in two forms, one per method, where the document decided that every method
 * answers on both: the suite sends the listed form; a service that answers only the form the spec writes for
 * the method gets it (config value `as-written`).
 */
export interface PathForm {
  /** Its key under `requests` in the configuration. */
  key: RequestShapeKey;
  /** JSON Pointer of the `x-decision` marker. */
  decision: string;
  /** The forms of the path (with and without a trailing slash). */
  forms: readonly string[];
  /** The form the spec writes, by method. */
  written: Readonly<Record<string, string>>;
}

/** Every path form the suite adapts. */
export const PATH_FORMS: readonly PathForm[] = [
  {
    key: 'draftDishesPath',
    decision: '/paths/~1api~1draft_dishes',
    forms: ['/api/draft_dishes', '/api/draft_dishes/'],
    // Endpoints > Draft dishes: `GET /api/draft_dishes`, `POST /api/draft_dishes/`.
    written: { GET: '/api/draft_dishes', POST: '/api/draft_dishes/' },
  },
];

/** The path form a request's path and method fall under, with the form the spec writes for it. */
export function pathFormOf(path: string, method: string): { form: PathForm; written: string } | undefined {
  for (const form of PATH_FORMS) {
    const written = form.written[method];
    if (written && form.forms.includes(path)) return { form, written };
  }
  return undefined;
}

/** The request shapes of an operation. */
export function shapesOf(operationId: string | undefined): RequestShape[] {
  return operationId ? REQUEST_SHAPES.filter((shape) => shape.operations.includes(operationId)) : [];
}

/**
 * Endpoints the spec leaves "not shown", each with the marker of its decision: a service may not have them,
 * so a 404, 405 or 501 where a test expects success skips the test under `spec`, naming the decision.
 */
export const NOT_SHOWN_ENDPOINTS: Readonly<Record<string, string>> = {
  listCouriers: '/paths/~1api~1couriers/get',
  getCourier: '/paths/~1api~1couriers~1{id}/get',
  listOrderItems: '/paths/~1api~1orders~1{id}~1items/get',
  listOrderBuddies: '/paths/~1api~1orders~1{id}~1buddies/get',
  createDraftCategory: '/paths/~1api~1draft_categories/post',
  deleteDeliveryZone: '/paths/~1api~1delivery_zones~1{id}/delete',
};

/** The statuses by which a service says it has no such endpoint. */
export const ABSENT_ENDPOINT_STATUSES: readonly number[] = [404, 405, 501];
