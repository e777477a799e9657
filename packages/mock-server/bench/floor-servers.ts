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

const TOKEN = /^Token\s+token="?([^",\s]+)"?\s*$/i;
const JSON_TYPE = 'application/json; charset=utf-8';
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

function tokenOf(req: IncomingMessage): string | undefined {
  return TOKEN.exec(req.headers.authorization ?? '')?.[1];
}

function send(res: ServerResponse, status: number, body: string, extra: string[] = []): void {
  res.writeHead(status, ['content-type', JSON_TYPE, 'content-length', String(Buffer.byteLength(body)), ...extra]);
  res.end(body);
}

async function listen(server: Server): Promise<FloorServer> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/**
 * The floor of `GET /api/orders/{id}` with its sideloads, serving the orders of `answers` (the mock's
 * answers, parsed) to the holder of `token`. Throws when its bytes differ from the mock's.
 */
export async function orderFloor(token: string, answers: Map<number, { text: string }>): Promise<FloorServer> {
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
