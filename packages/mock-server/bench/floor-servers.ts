/**
 * The floor of the CPU-per-request rows: hand-written node:http servers doing only the work no server can
 * skip to give the same answer, with no framework, no mock behaviour and no rule of the spec beyond it.
 * The bench measures them in the same run as the mock and the bare server, so that a target can be read
 * against what any server computing the answer costs on this machine, not only against a prebuilt body.
 *
 * - `GET /api/orders/{id}`: parse the URL, match the path, read the id, read the token from the
 *   Authorization header and look it up, look the order and its restaurant, courier and payment up,
 *   `JSON.stringify` the answer (the mock's very bytes, checked at start) and write it.
 * - `POST /api/draft_dishes`: the same routing and token, then read the body, decode it as strict UTF-8,
 *   `JSON.parse` it, validate it with ajv against the operation's schema from the bundled document (what
 *   the mock validates with), store the dish under a new id and `JSON.stringify` the 201 answer.
 *
 * - `GET /api/orders?…` (the sorted, filtered page): the same routing and token, then read the query (integers
 *   written as integers, `per_page` within 1..100, known statuses and sort keys), and
 *   answer from the index a hand-written server would keep: the orders in one list per restaurant and
 *   status, each sorted by every sort key at start, and each order's JSON text (the orders never change
 *   here; a list server would keep them, as UTF-8, rather than `JSON.stringify` 50 orders a request, as the
 *   mock does). A page merges the lists the filters pick, counts their lengths and concatenates the JSON of
 *   its orders (the mock's very bytes, checked at start).
 *
 * Left out on purpose, because the mock does them and the floor is the least: CORS, request ids, the
 * strict parameter rules, sessions, the organization and category checks, prices, menu order, indexes.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createAjv, openapiDocument } from '@restoapi/openapi';

/** A running floor server. */
export interface FloorServer {
  url: string;
  server: Server;
}

type Json = Record<string, unknown>;

/** `Authorization: Token token="…"`, the token in its first group (every bench server reads it so). */
export const TOKEN = /^Token\s+token="?([^",\s]+)"?\s*$/i;
const JSON_TYPE = 'application/json; charset=utf-8';
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

function tokenOf(req: IncomingMessage): string | undefined {
  return TOKEN.exec(req.headers.authorization ?? '')?.[1];
}

function send(res: ServerResponse, status: number, body: string | Buffer, extra: string[] = []): void {
  res.writeHead(status, ['content-type', JSON_TYPE, 'content-length', String(Buffer.byteLength(body)), ...extra]);
  res.end(body);
}

/** Listens on a free loopback port. */
export async function listen(server: Server): Promise<FloorServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/**
 * The orders of the mock's single-order `answers` (parsed), and how a hand-written server answers one of them:
 * the order and its restaurant, courier and payment looked up, `JSON.stringify`d. Throws when that is not the
 * mock's very text, so a floor can never answer less than the mock does.
 */
export function orderAnswers(answers: Map<number, { text: string }>): {
  orders: Map<number, Json>;
  answerOf: (order: Json) => string;
} {
  const orders = new Map<number, Json>();
  const restaurants = new Map<number, Json>();
  const couriers = new Map<number, Json>();
  const payments = new Map<number, Json>();
  for (const [id, { text }] of answers) {
    const answer = JSON.parse(text) as { order: Json; restaurants: Json[]; couriers: Json[]; payments: Json[] };
    orders.set(id, answer.order);
    for (const r of answer.restaurants) restaurants.set(r.id as number, r);
    for (const c of answer.couriers) couriers.set(c.id as number, c);
    for (const p of answer.payments) payments.set(p.id as number, p);
  }
  const answerOf = (order: Json): string => {
    const restaurant = restaurants.get(order.restaurant_id as number);
    const courier = order.courier_id === null ? undefined : couriers.get(order.courier_id as number);
    const payment = order.payment_id === null ? undefined : payments.get(order.payment_id as number);
    return JSON.stringify({
      order,
      restaurants: restaurant ? [restaurant] : [],
      couriers: courier ? [courier] : [],
      payments: payment ? [payment] : [],
    });
  };
  for (const [id, { text }] of answers) {
    if (answerOf(orders.get(id)!) !== text) throw new Error(`the floor's answer for order ${id} is not the mock's`);
  }
  return { orders, answerOf };
}

/**
 * The floor of `GET /api/orders/{id}` with its sideloads, serving the orders of `answers` (the mock's
 * answers, parsed) to the holder of `token`. Throws when its bytes differ from the mock's.
 */
export async function orderFloor(token: string, answers: Map<number, { text: string }>): Promise<FloorServer> {
  const { orders, answerOf } = orderAnswers(answers);
  const server = createServer((req, res) => {
    req.resume();
    const path = new URL(req.url ?? '/', 'http://floor').pathname;
    const match = /^\/api\/orders\/([1-9][0-9]*)$/.exec(path);
    if (!match) return send(res, 404, '{"errors":[{"status":"404"}]}');
    if (tokenOf(req) !== token) return send(res, 401, '{"errors":[{"status":"401"}]}');
    const order = orders.get(Number(match[1]));
    if (!order) return send(res, 404, '{"errors":[{"status":"404"}]}');
    send(res, 200, answerOf(order));
  });
  return listen(server);
}

/**
 * The floor of a validated `POST /api/draft_dishes` for the holder of `token`; `created` is the mock's
 * 201 answer to the same body, whose shape the floor answers with (new id, the sent fields).
 */
export async function draftDishFloor(token: string, created: string): Promise<FloorServer> {
  const ajv = createAjv();
  ajv.addSchema(openapiDocument as object, 'document');
  const validate = ajv.compile({
    $ref: 'document#/paths/~1api~1draft_dishes/post/requestBody/content/application~1json/schema',
  });
  const template = (JSON.parse(created) as { draft_dish: Json }).draft_dish;
  const dishes = new Map<number, Json>();
  let nextId = 1_000_000;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://floor').pathname;
      if (path !== '/api/draft_dishes' || req.method !== 'POST') return send(res, 404, '{"errors":[{"status":"404"}]}');
      if (tokenOf(req) !== token) return send(res, 401, '{"errors":[{"status":"401"}]}');
      let body: unknown;
      try {
        body = JSON.parse(STRICT_UTF8.decode(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
      } catch {
        return send(res, 400, '{"errors":[{"status":"400"}]}');
      }
      if (!validate(body)) return send(res, 422, JSON.stringify({ errors: validate.errors }));
      const sent = (body as { draft_dish: Json }).draft_dish;
      const dish = { ...template, ...sent, id: nextId++ };
      dishes.set(dish.id, dish);
      send(res, 201, JSON.stringify({ draft_dish: dish }), ['location', `/api/draft_dishes/${dish.id}`]);
    });
  });
  return listen(server);
}

/** The keys the page floor sorts by (`sort_by` without its `-`): how each reads an order. */
const SORT_KEYS: Record<string, (order: Json) => number> = {
  id: (order) => order.id as number,
  created_at: (order) => instant(order.created_at),
  delivery_at: (order) => instant(order.delivery_at),
};
const STATUSES = new Set(['pending', 'accepted', 'cooking', 'ready', 'delivery', 'complete', 'cancelled']);
const INTEGER = /^[1-9][0-9]*$/;

// The API's times carry offsets, so they are compared as instants; an unreadable one sorts first.
function instant(value: unknown): number {
  const ms = typeof value === 'string' ? Date.parse(value) : Number.NaN;
  return Number.isNaN(ms) ? Number.NEGATIVE_INFINITY : ms;
}

/** An order as the page floor keeps it: its id, its sort keys read once, its JSON as UTF-8 bytes. */
interface Entry {
  id: number;
  keys: Record<string, number>;
  bytes: Buffer;
}

/** The orders of one restaurant and status, in the ascending order of each sort key (ties by id). */
type Bucket = Record<string, Entry[]>;

/** The first `count` orders of the buckets merged, in the order of `key` (descending when asked). */
function mergeFirst(buckets: readonly Bucket[], key: string, descending: boolean, count: number): Entry[] {
  const lists = buckets.map((bucket) => bucket[key]!);
  const at = lists.map((list) => (descending ? list.length - 1 : 0));
  const out: Entry[] = [];
  while (out.length < count) {
    let best = -1;
    let bestValue = 0;
    let bestId = 0;
    for (let i = 0; i < lists.length; i++) {
      const entry = lists[i]![at[i]!];
      if (entry === undefined) continue;
      const value = entry.keys[key]!;
      const before = descending
        ? value > bestValue || (value === bestValue && entry.id > bestId)
        : value < bestValue || (value === bestValue && entry.id < bestId);
      if (best < 0 || before) [best, bestValue, bestId] = [i, value, entry.id];
    }
    if (best < 0) break;
    out.push(lists[best]![at[best]!]!);
    at[best]! += descending ? -1 : 1;
  }
  return out;
}

const OPEN = Buffer.from('{"orders":[');
const COMMA = Buffer.from(',');

/**
 * The floor of the sorted, filtered order page for the holder of `token`, who sees `orders` (the public
 * orders, as the API answers them). `checks` are paths with the mock's answer to each: the floor refuses to
 * start when its bytes differ from any of them.
 */
export async function orderPageFloor(
  token: string,
  orders: readonly Json[],
  checks: ReadonlyMap<string, string>,
): Promise<FloorServer> {
  const buckets = new Map<string, Bucket>();
  for (const order of orders) {
    const keys: Record<string, number> = {};
    for (const key of Object.keys(SORT_KEYS)) keys[key] = SORT_KEYS[key]!(order);
    const entry = { id: order.id as number, keys, bytes: Buffer.from(JSON.stringify(order)) };
    const name = `${order.restaurant_id as number}/${order.status as string}`;
    const bucket = buckets.get(name) ?? {};
    buckets.set(name, bucket);
    (bucket.id ??= []).push(entry);
  }
  for (const bucket of buckets.values()) {
    for (const key of Object.keys(SORT_KEYS)) {
      bucket[key] = [...bucket.id!].sort((a, b) => a.keys[key]! - b.keys[key]! || a.id - b.id);
    }
  }
  const restaurants = new Set(orders.map((order) => order.restaurant_id as number));
  const refuse = (parameter: string) =>
    JSON.stringify({ errors: [{ status: '400', code: 'invalid_parameter', source: { parameter } }] });
  /** The answer to a query: [status, body]. */
  const answer = (search: URLSearchParams): [number, string | Buffer] => {
    let page = 1;
    let perPage = 25;
    let sortBy = '-created_at';
    const statuses: string[] = [];
    const restaurantIds: number[] = [];
    for (const [name, value] of search) {
      if (name === 'page' || name === 'per_page' || name === 'restaurant_id') {
        if (!INTEGER.test(value)) return [400, refuse(name)];
        const n = Number(value);
        if (name === 'page') page = n;
        else if (name === 'per_page') {
          if (n > 100) return [400, refuse(name)];
          perPage = n;
        } else restaurantIds.push(n);
      } else if (name === 'status') {
        if (!STATUSES.has(value)) return [400, refuse(name)];
        statuses.push(value);
      } else if (name === 'sort_by') {
        if (!(value.replace(/^-/, '') in SORT_KEYS)) return [400, refuse(name)];
        sortBy = value;
      }
      // Other keys are ignored, as the mock ignores them.
    }
    const picked: Bucket[] = [];
    for (const restaurant of restaurantIds.length > 0 ? new Set(restaurantIds) : restaurants) {
      for (const status of statuses.length > 0 ? new Set(statuses) : STATUSES) {
        const bucket = buckets.get(`${restaurant}/${status}`);
        if (bucket) picked.push(bucket);
      }
    }
    const count = picked.reduce((sum, bucket) => sum + bucket.id!.length, 0);
    const descending = sortBy.startsWith('-');
    const start = (page - 1) * perPage;
    const rows = mergeFirst(picked, descending ? sortBy.slice(1) : sortBy, descending, start + perPage).slice(start);
    const meta = { page, page_count: Math.ceil(count / perPage), per_page: perPage, count };
    const parts: Uint8Array[] = [OPEN];
    for (const [at, entry] of rows.entries()) parts.push(...(at > 0 ? [COMMA, entry.bytes] : [entry.bytes]));
    parts.push(Buffer.from(`],"meta":${JSON.stringify(meta)}}`));
    return [200, Buffer.concat(parts)];
  };
  for (const [path, text] of checks) {
    const url = new URL(path, 'http://floor');
    if (answer(url.searchParams)[1].toString() !== text)
      throw new Error(`the floor's answer to ${path} is not the mock's`);
  }
  const server = createServer((req, res) => {
    req.resume();
    const url = new URL(req.url ?? '/', 'http://floor');
    if (url.pathname !== '/api/orders') return send(res, 404, '{"errors":[{"status":"404"}]}');
    if (tokenOf(req) !== token) return send(res, 401, '{"errors":[{"status":"401"}]}');
    const [status, body] = answer(url.searchParams);
    send(res, status, body);
  });
  return listen(server);
}
