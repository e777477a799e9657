/**
 * The parts servers: the mock's own parts for one operation, called straight from a node:http listener, with
 * no engine around them. They answer from the running mock's state with the very functions the engine
 * calls: the session lookup (`authenticate`), the shared document's `validateRequest`, the operation's
 * handler, `JSON.stringify` (or the handler's JSON text), and one `writeHead` with the engine's headers.
 * Left out is only what the engine adds between them: the node adapter's request object and header reader,
 * the CORS decision, named sessions and faults, routing, the pipeline's steps, contexts and answer objects.
 *
 * Measured beside the mock and the floors, they split the mock's cost in two: mock / parts is what the engine
 * costs (the adapter, routing, the steps between the parts), parts / floor what the parts cost themselves.
 * Each answers the mock's very body for the bench's requests (tested in `test/bench/parts-servers.test.ts`);
 * a refusal is answered with the status and body of the {@link HttpError} a part throws.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { handlers } from '../src/handlers.js';
import { sharedApiValidator, requestId } from '../src/engine/engine.js';
import { JsonText, type HandlerResult } from '../src/engine/handler.js';
import { HttpError } from '../src/engine/http-error.js';
import { authenticate } from '../src/session/actor.js';
import type { MockServer } from '../src/node.js';
import { createAjv, openapiDocument } from '@restoapi/openapi';
import { listen, TOKEN, type FloorServer } from './floor-servers.js';

const JSON_TYPE = 'application/json; charset=utf-8';
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** `Headers.get` over node's parsed headers, as the parts read them. */
function headerReader(req: IncomingMessage): { get(name: string): string | null } {
  return { get: (name) => (req.headers[name.toLowerCase()] as string | undefined) ?? null };
}

function answer(res: ServerResponse, result: HandlerResult): void {
  const text = result.body instanceof JsonText ? (result.body.content as string) : JSON.stringify(result.body ?? null);
  const head = ['vary', 'Origin', 'content-type', JSON_TYPE, 'x-request-id', requestId()];
  for (const name in result.headers) head.push(name.toLowerCase(), result.headers[name]!);
  head.push('content-length', String(Buffer.byteLength(text)));
  res.writeHead(result.status, head);
  res.end(text);
}

function refuse(res: ServerResponse, error: unknown): void {
  if (error instanceof SyntaxError) return answer(res, { status: 400, body: { errors: [] } });
  if (!(error instanceof HttpError)) throw error;
  answer(res, { status: error.status, body: error.body(), headers: error.headers });
}

/** `GET /api/orders/{id}` from the mock's parts: session, parameter check and the `getOrder` handler. */
export function orderPartsServer(server: MockServer): Promise<FloorServer> {
  const { runtime } = server.mock;
  const api = sharedApiValidator();
  const http = createServer((req, res) => {
    try {
      const url = new URL(req.url ?? '/', 'http://parts');
      const id = /^\/api\/orders\/([^/]+)$/.exec(url.pathname)?.[1];
      if (id === undefined || req.method !== 'GET') return answer(res, { status: 404, body: { errors: [] } });
      const actor = authenticate(runtime, { headers: headerReader(req) }, url);
      const checked = api.validateRequest('getOrder', { params: { id }, query: url.search || undefined });
      if (!checked.valid) return answer(res, { status: 400, body: { errors: checked.issues } });
      answer(res, handlers.getOrder!({ runtime, actor, params: checked.value.params, url } as never) as HandlerResult);
    } catch (error) {
      refuse(res, error);
    }
  });
  return listen(http);
}

/** The parts of a created dish that {@link draftDishPartsServer} can leave out (see there), in the bench's order. */
export const DISH_PARTS = ['authenticate', 'validateRequest', 'handler'] as const;

/** A part of a created dish that {@link draftDishPartsServer} can leave out. */
export type DishPart = (typeof DISH_PARTS)[number];

/**
 * `POST /api/draft_dishes` from the mock's parts: session, body check and the `createDraftDish` handler.
 *
 * `without` leaves parts out, to measure what each costs under load (the bench's `ablation` rows): without
 * `authenticate` the first request's account serves every request; without `validateRequest` the body is
 * not checked; without the handler the dish is the mock's `created` answer with the sent fields spread over
 * it and a new id, stored in a `Map`, as the floor does it.
 */
export function draftDishPartsServer(
  server: MockServer,
  options: { without?: readonly DishPart[]; created?: string } = {},
): Promise<FloorServer> {
  const { runtime } = server.mock;
  const api = sharedApiValidator();
  const without = new Set(options.without);
  if (without.has('handler') && options.created === undefined)
    throw new Error("a parts server without the handler needs the mock's created answer");
  const template =
    options.created === undefined ? {} : (JSON.parse(options.created) as { draft_dish: object }).draft_dish;
  const stored = new Map<number, object>();
  let nextId = 2_000_000_000;
  let fixedActor: ReturnType<typeof authenticate> | undefined;
  const http = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      try {
        const url = new URL(req.url ?? '/', 'http://parts');
        if (url.pathname !== '/api/draft_dishes' || req.method !== 'POST')
          return answer(res, { status: 404, body: { errors: [] } });
        const headers = headerReader(req);
        const actor = without.has('authenticate')
          ? (fixedActor ??= authenticate(runtime, { headers }, url))
          : authenticate(runtime, { headers }, url);
        const body: unknown = JSON.parse(STRICT_UTF8.decode(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks)));
        if (!without.has('validateRequest')) {
          const checked = api.validateRequest('createDraftDish', { contentType: headers.get('content-type'), body });
          if (!checked.valid) return answer(res, { status: 422, body: { errors: checked.issues } });
        }
        let result: HandlerResult;
        if (without.has('handler')) {
          const dish = { ...template, ...(body as { draft_dish: object }).draft_dish, id: nextId++ };
          stored.set(dish.id, dish);
          result = { status: 201, body: { draft_dish: dish }, headers: { Location: `/api/draft_dishes/${dish.id}` } };
        } else result = handlers.createDraftDish!({ runtime, actor, body, url } as never) as HandlerResult;
        runtime.changed();
        answer(res, result);
      } catch (error) {
        refuse(res, error);
      }
    });
  });
  return listen(http);
}

/** CPU per call, in ns, of each part of a created dish alone, and of the floor's equivalent beside it. */
export interface DishPartsHot {
  authenticate: number;
  tokenLookup: number;
  validateRequest: number;
  ajvAlone: number;
  handler: number;
  spreadAndStore: number;
  parse: number;
  stringify: number;
}

/** {@link DishPartsHot} with each call timed alone after the caches were flushed, and what that timing itself costs. */
export interface DishPartsCold extends DishPartsHot {
  /** An empty call timed the same way: the timing's own cost, which every other cold figure includes. */
  nothing: number;
}

/** Hot and cold figures of {@link timeDishParts}. */
export interface DishPartsTimes {
  hot: DishPartsHot;
  cold: DishPartsCold;
}

const FLUSH = new Uint8Array(16 * 2 ** 20);

/**
 * Touches 16 MiB, more than this machine's caches, a cache line at a time: what the load generator, the kernel
 * and the other connections do to the caches between two requests over HTTP, done on purpose.
 */
export function flushCaches(): void {
  for (let at = 0; at < FLUSH.length; at += 64) FLUSH[at]! += 1;
}

/**
 * Times each part of a created dish on its own, on the mock of `server`, for the staff member holding `token`,
 * and the floor's equivalent of each part: a token regex and a map, ajv alone on the same schema, a spread and
 * a `Map.set`. Hot: `calls` calls timed whole, after a tenth as many to warm up; the parts' figures add up to
 * what the parts servers pay beside node:http, and the difference to the engine alone is the engine's own
 * work. Cold: `coldCalls` calls, each timed alone after {@link flushCaches}; under load a request finds the
 * caches somewhere between the two, and a part that is cheap hot but touches much code or data shows here.
 */
export function timeDishParts(
  server: { mock: MockServer['mock'] },
  token: string,
  body: string,
  calls = 100_000,
  coldCalls = 2_000,
): DishPartsTimes {
  const { runtime } = server.mock;
  const api = sharedApiValidator();
  const ajv = createAjv();
  ajv.addSchema(openapiDocument as object, 'document');
  const ajvAlone = ajv.compile({
    $ref: 'document#/paths/~1api~1draft_dishes/post/requestBody/content/application~1json/schema',
  });
  const authorization = `Token token="${token}"`;
  const headers = new FixedHeaders(authorization);
  const url = new URL('http://parts/api/draft_dishes');
  const sent: unknown = JSON.parse(body);
  const actor = authenticate(runtime, { headers }, url);
  const create = handlers.createDraftDish! as (ctx: unknown) => HandlerResult;
  const answer = create({ runtime, actor, body: sent, url }).body as { draft_dish: Record<string, unknown> };
  const template = JSON.parse(JSON.stringify(answer.draft_dish)) as Record<string, unknown>;
  const sessions = new Map([[token, { token }]]);
  const stored = new Map<number, unknown>();
  let nextId = 1_000_000_000;
  const parts: Record<keyof DishPartsCold, () => unknown> = {
    nothing: () => undefined,
    authenticate: () => authenticate(runtime, { headers }, url),
    tokenLookup: () => sessions.get(TOKEN.exec(authorization)![1]!),
    validateRequest: () => api.validateRequest('createDraftDish', { contentType: 'application/json', body: sent }),
    ajvAlone: () => ajvAlone(sent),
    handler: () => create({ runtime, actor, body: sent, url }),
    spreadAndStore: () => {
      const dish = { ...template, ...(sent as { draft_dish: object }).draft_dish, id: nextId++ };
      stored.set(dish.id, dish);
    },
    parse: () => JSON.parse(body),
    stringify: () => JSON.stringify(answer),
  };
  const hot = (part: () => unknown): number => {
    for (let i = 0; i < calls / 10; i++) part();
    const started = process.cpuUsage();
    for (let i = 0; i < calls; i++) part();
    const cpu = process.cpuUsage(started);
    return ((cpu.user + cpu.system) / calls) * 1000;
  };
  const cold = (part: () => unknown): number => {
    let total = 0;
    for (let i = 0; i < coldCalls; i++) {
      flushCaches();
      const started = process.cpuUsage();
      part();
      const cpu = process.cpuUsage(started);
      total += cpu.user + cpu.system;
    }
    return (total / Math.max(1, coldCalls)) * 1000;
  };
  const times = { hot: {} as DishPartsHot, cold: {} as DishPartsCold };
  // Hot first, so that every part is compiled before it is timed cold.
  for (const name of Object.keys(parts) as (keyof DishPartsCold)[]) {
    if (name !== 'nothing') times.hot[name] = hot(parts[name]);
  }
  for (const name of Object.keys(parts) as (keyof DishPartsCold)[]) times.cold[name] = cold(parts[name]);
  return times;
}

/** A header reader without a closure per call (the bench runs under tsx, which names every closure it makes). */
class FixedHeaders {
  constructor(private readonly authorization: string) {}

  get(name: string): string | null {
    return name === 'authorization' ? this.authorization : name === 'content-type' ? 'application/json' : null;
  }
}
