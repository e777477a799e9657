/**
 * The rules floors: the floor servers of `floor-servers.ts` plus what the mock must do per request and the
 * floor leaves out on purpose, written by hand as a competent server would, with no framework and no
 * engine. They measure what the obligations cost, apart from how the mock implements them:
 *
 * - the mock's contract, which issue 26 keeps as it is ("no lost rigour"): the CORS decision (`Vary: Origin`
 *   on every answer, a preflight or a foreign origin answered apart), a request id on every answer, a session
 *   looked up by its token, checked for expiry and its last use written, the strict `Content-Type` rule;
 * - the spec's rules for the request: for `GET /api/orders/{id}`, the account's scope; for
 *   `POST /api/draft_dishes`, a staff member of the organization, the organization and the category checked,
 *   the price read as money (two decimals at most, not negative, written with two), the option items' prices
 *   checked the same way, the dish put last in its category, and the row stored with an index by category.
 *
 * Each answers the mock's very body for the bench's requests (tested in `test/bench/rules-floor-servers.test.ts`).
 * What is still left out: named sessions, faults, the virtual clock, the journal of changes, response checks.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { createAjv, openapiDocument } from '@restoapi/openapi';
import type { FloorServer } from './floor-servers.js';
import { listen, orderAnswers, TOKEN } from './floor-servers.js';

type Json = Record<string, unknown>;

const JSON_TYPE = 'application/json; charset=utf-8';
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** A signed-in account as the rules floors keep it. */
export interface FloorSession {
  token: string;
  /** `dispatcher` sees every organization; a staff member the ones listed. */
  account: 'dispatcher' | 'staff_member';
  organizationIds: readonly number[];
}

/** Sessions by token, with their last use as an instant and as text (written on every request, as the mock does). */
class Sessions {
  readonly #byToken = new Map<string, FloorSession & { lastUsedMs: number; lastUsedAt: string }>();
  #isoMs = Number.NaN;
  #iso = '';

  constructor(
    sessions: readonly FloorSession[],
    private readonly ttlMs: number,
  ) {
    const now = Date.now();
    for (const s of sessions)
      this.#byToken.set(s.token, { ...s, lastUsedMs: now, lastUsedAt: new Date(now).toISOString() });
  }

  /** The session of a request's token, its last use written; `undefined` for none, an expired or an unknown one. */
  use(req: IncomingMessage): FloorSession | undefined {
    const token = TOKEN.exec((req.headers.authorization ?? '').trim())?.[1];
    const session = token === undefined ? undefined : this.#byToken.get(token);
    const now = Date.now();
    if (!session || session.lastUsedMs + this.ttlMs < now) return undefined;
    if (now !== this.#isoMs) [this.#isoMs, this.#iso] = [now, new Date(now).toISOString()];
    session.lastUsedMs = now;
    session.lastUsedAt = this.#iso;
    return session;
  }
}

let counter = 0;
let idMs = 0;
let idPrefix = '';

/** A request id as the mock spells it: `req_`, the time in base 36, a counter. */
function requestId(): string {
  counter = (counter + 1) % 1e9;
  const now = Date.now();
  if (now !== idMs) [idMs, idPrefix] = [now, `req_${now.toString(36)}`];
  return `${idPrefix}${counter.toString(36).padStart(6, '0')}`;
}

/** Writes an answer with the mock's head: `Vary: Origin` first, then the answer's headers, then its length. */
function send(res: ServerResponse, status: number, body: string, extra: string[] = []): void {
  res.writeHead(status, [
    'Vary',
    'Origin',
    'content-type',
    JSON_TYPE,
    ...extra,
    'x-request-id',
    requestId(),
    'content-length',
    String(Buffer.byteLength(body)),
  ]);
  res.end(body);
}

/** The CORS decision for a request without an `Origin` or from any origin (the mock's default): a preflight is answered apart. */
function corsAnswered(req: IncomingMessage, res: ServerResponse): boolean {
  if (req.method !== 'OPTIONS' || req.headers.origin === undefined) return false;
  res.writeHead(204, ['Vary', 'Origin', 'access-control-allow-origin', req.headers.origin, 'content-length', '0']);
  res.end();
  return true;
}

const ERROR = (status: number): string => `{"errors":[{"status":"${status}"}]}`;

/**
 * The rules floor of `GET /api/orders/{id}` with its sideloads: `answers` are the mock's answers (as in
 * `orderFloor`), each with the organization of its order, so that a staff member's scope can be checked.
 */
export async function orderRulesFloor(
  sessions: readonly FloorSession[],
  ttlMs: number,
  answers: Map<number, { text: string; organizationId: number }>,
): Promise<FloorServer> {
  const known = new Sessions(sessions, ttlMs);
  const { orders, answerOf } = orderAnswers(answers);
  const server = createServer((req, res) => {
    req.resume();
    if (corsAnswered(req, res)) return;
    const url = new URL(req.url ?? '/', 'http://floor');
    const match = /^\/api\/orders\/([^/]+)$/.exec(url.pathname);
    if (!match) return send(res, 404, ERROR(404));
    if (req.method !== 'GET') return send(res, 405, ERROR(405));
    const session = known.use(req);
    if (!session) return send(res, 401, ERROR(401));
    // The strict parameter rule: an id is a plain decimal integer (`0x1`, `1e3`, `05001` are refused).
    if (!/^[1-9][0-9]{0,14}$/.test(match[1]!)) return send(res, 400, ERROR(400));
    const id = Number(match[1]);
    const order = orders.get(id);
    if (
      !order ||
      (session.account !== 'dispatcher' && !session.organizationIds.includes(answers.get(id)!.organizationId))
    )
      return send(res, 404, ERROR(404));
    send(res, 200, answerOf(order));
  });
  return listen(server);
}

/** A price as the mock reads it: two decimals at most, not negative; written with two (`"12.9"` → `"12.90"`). */
function money(value: unknown): string | undefined {
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text !== 'string') return undefined;
  const match = /^(0|[1-9][0-9]*)(?:\.([0-9]{1,2}))?$/.exec(text);
  if (!match) return undefined;
  return `${match[1]}.${(match[2] ?? '').padEnd(2, '0')}`;
}

/** What the rules floor of the draft dish knows of a category: its organization and the last menu place in it. */
export interface FloorCategory {
  organizationId: number;
  lastMenuOrder: number;
}

/**
 * The rules floor of a validated `POST /api/draft_dishes`: the dish floor's work (strict UTF-8, `JSON.parse`,
 * ajv with the document's schema, `JSON.stringify`) plus the rules above. New ids start at `firstId`.
 */
export async function draftDishRulesFloor(
  sessions: readonly FloorSession[],
  ttlMs: number,
  categories: Map<number, FloorCategory>,
  organizations: ReadonlySet<number>,
  firstId: number,
): Promise<FloorServer> {
  const known = new Sessions(sessions, ttlMs);
  const ajv = createAjv();
  ajv.addSchema(openapiDocument as object, 'document');
  const validate = ajv.compile({
    $ref: 'document#/paths/~1api~1draft_dishes/post/requestBody/content/application~1json/schema',
  });
  const dishes = new Map<number, Json>();
  const byCategory = new Map<number, number[]>();
  let nextId = firstId;
  const invalid = (res: ServerResponse, pointer: string): void =>
    send(res, 422, JSON.stringify({ errors: [{ status: '422', source: { pointer } }] }));
  const server = createServer((req, res) => {
    if (corsAnswered(req, res)) return;
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://floor').pathname;
      if (path !== '/api/draft_dishes') return send(res, 404, ERROR(404));
      if (req.method !== 'POST') return send(res, 405, ERROR(405));
      const session = known.use(req);
      if (!session) return send(res, 401, ERROR(401));
      const type = (req.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
      if (type !== 'application/json') return send(res, 415, ERROR(415));
      let body: unknown;
      try {
        body = JSON.parse(STRICT_UTF8.decode(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
      } catch {
        return send(res, 400, ERROR(400));
      }
      if (!validate(body)) return send(res, 422, JSON.stringify({ errors: validate.errors }));
      if (session.account !== 'staff_member') return send(res, 403, ERROR(403));
      const sent = (body as { draft_dish: Json }).draft_dish;
      const organizationId = sent.organization_id as number;
      if (!organizations.has(organizationId) || !session.organizationIds.includes(organizationId))
        return invalid(res, '/draft_dish/organization_id');
      const category = categories.get(sent.draft_category_id as number);
      if (!category || category.organizationId !== organizationId) return invalid(res, '/draft_dish/draft_category_id');
      const price = money(sent.price);
      if (price === undefined) return invalid(res, '/draft_dish/price');
      const options = (sent.options ?? null) as { items: { price: unknown }[] }[] | null;
      for (const [g, group] of (options ?? []).entries())
        for (const [i, item] of group.items.entries())
          if (money(item.price) === undefined) return invalid(res, `/draft_dish/options/${g}/items/${i}/price`);
      const dish: Json = {
        id: nextId++,
        is_hidden: sent.is_hidden ?? false,
        name: sent.name,
        description: sent.description ?? '',
        menu_order: (sent.menu_order as number | undefined) ?? ++category.lastMenuOrder,
        price,
        photo: null,
        weight: sent.weight ?? null,
        ingredients: sent.ingredients ?? '',
        can_zoom: sent.can_zoom ?? false,
        is_next_day: sent.is_next_day ?? false,
        external_id: sent.external_id ?? null,
        options,
        draft_category_id: sent.draft_category_id,
        organization_id: organizationId,
      };
      dishes.set(dish.id as number, dish);
      const listed = byCategory.get(sent.draft_category_id as number);
      if (listed) listed.push(dish.id as number);
      else byCategory.set(sent.draft_category_id as number, [dish.id as number]);
      send(res, 201, JSON.stringify({ draft_dish: dish }), ['location', `/api/draft_dishes/${dish.id as number}`]);
    });
  });
  return listen(server);
}
