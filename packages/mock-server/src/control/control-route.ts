import { createApiDescription, listOperations, openapiDocument, Router, type ApiDescription } from '@restoapi/openapi';
import { callbackDispatcherOf } from '../callbacks/callback-dispatcher.js';
import { webhookSecretKey } from '../callbacks/webhook-signature.js';
import type { EngineRoute, MockEngine } from '../engine/engine.js';
import {
  HttpError,
  assertDocumentedResponse,
  errorObject,
  fromIssues,
  methodNotAllowed,
  notFound,
  unprocessable,
  type FieldProblem,
} from '../engine/http-error.js';
import { fromFetchRequest } from '../engine/engine-request.js';
import { readBody } from '../engine/request-body.js';
import type { MockRuntime } from '../engine/runtime.js';
import { controlDocument } from '../generated/control-document.js';
import type { components, operations } from '../generated/control.js';
import { dishView } from '../menu/menu-views.js';
import { orderResponse } from '../orders/order-views.js';
import { demoSeed } from '../seeds/demo-seed.js';
import { TABLE_NAMES, type CallbackRecord, type CarrierRecord, type MockStateJson } from '../state/mock-state.js';
import type { FaultInjector } from './faults.js';
import { placeStorefrontOrder, publishedMenuOf } from './storefront-order.js';

type C = components['schemas'];
/** An operationId of the control API. */
export type ControlOperationId = keyof operations;

/** The JSON body of a control operation, as the generated types describe it. */
type ControlBody<Op extends ControlOperationId> = operations[Op] extends {
  requestBody?: { content: { 'application/json': infer B } };
}
  ? B
  : never;

interface ControlContext<Op extends ControlOperationId> {
  engine: MockEngine;
  runtime: MockRuntime;
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: ControlBody<Op> | undefined;
  faults: FaultInjector;
}

interface ControlResult {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

type ControlHandlers = {
  [Op in ControlOperationId]: (ctx: ControlContext<Op>) => ControlResult | Promise<ControlResult>;
};

/** Options of {@link createControlRoute}. */
export interface ControlRouteOptions {
  /** The instance's fault injector (the same one plugged into the engine's `beforeRequest`). */
  faults: FaultInjector;
}

const PREFIX = '/__mock';
const shared: { router?: Router; api?: ApiDescription } = {};

/** The router of the control document (`listOperations` + `Router`), shared by every instance. */
function controlRouter(): Router {
  shared.router ??= new Router(listOperations(controlDocument));
  return shared.router;
}

/** ajv validators over the control document, shared by every instance (schemas compile once). */
export function controlApiValidator(): ApiDescription {
  shared.api ??= createApiDescription({ document: controlDocument });
  return shared.api;
}

let requestCounter = 0;
function requestId(): string {
  requestCounter = (requestCounter + 1) % 1e9;
  return `req_ctl_${requestCounter.toString(36).padStart(6, '0')}`;
}

const ok = (body: unknown): ControlResult => ({ status: 200, body });
const noContent = (): ControlResult => ({ status: 204 });

function carrierView(carrier: CarrierRecord): C['Carrier'] {
  return {
    id: carrier.id,
    name: carrier.name,
    callback_url: carrier.callback_url,
    restaurant_ids: carrier.restaurant_ids,
    signed: Boolean(carrier.secret),
    chaos: carrier.chaos ?? null,
    created_at: carrier.created_at,
  };
}

function callbackView(callback: CallbackRecord): C['Callback'] {
  return {
    ...callback,
    webhook_id: callback.webhook_id ?? `msg_${callback.id}`,
    duplicate_of: callback.duplicate_of ?? null,
  };
}

function clockView(runtime: MockRuntime): C['Clock'] {
  return { now: runtime.nowIso(), frozen: runtime.clock.frozen };
}

function tableCounts(engine: MockEngine): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const name of TABLE_NAMES) counts[name] = engine.runtime.state[name].size;
  return counts;
}

const schemas = (openapiDocument.components as { schemas: Record<string, { properties?: Record<string, unknown> }> })
  .schemas;
const CATEGORY_FIELDS = Object.keys(schemas.DraftCategory?.properties ?? {});

const handlers: ControlHandlers = {
  resetMock({ engine, runtime, body, faults }) {
    if (body?.seed !== undefined && body.state !== undefined) {
      throw unprocessable([{ pointer: '/state', detail: 'Send either seed or state, not both.' }]);
    }
    const source = body?.state !== undefined ? 'state' : (body?.seed ?? 'demo');
    const json: MockStateJson =
      source === 'state' ? body!.state! : source === 'demo' ? demoSeed(runtime.clock.now()) : { version: 1 };
    engine.loadState(json);
    // A fresh world starts without the faults armed for the previous one.
    faults.clear();
    return ok({ source, tables: tableCounts(engine) } satisfies C['ResetResult']);
  },

  getMockState({ engine }) {
    return ok(engine.exportState());
  },

  replaceMockState({ engine, body }) {
    engine.loadState(body!);
    return noContent();
  },

  listCarriers({ runtime }) {
    return ok({ carriers: runtime.state.carriers.all().map(carrierView) } satisfies C['CarrierListResponse']);
  },

  registerCarrier({ runtime, body }) {
    const input = body!;
    const problems: FieldProblem[] = [];
    if (input.secret && !webhookSecretKey(input.secret)) {
      problems.push({
        pointer: '/secret',
        detail: 'secret must be whsec_ followed by a base64 key of at least one byte.',
      });
    }
    (input.restaurant_ids ?? []).forEach((id, index) => {
      if (!runtime.state.restaurants.has(id))
        problems.push({ pointer: `/restaurant_ids/${index}`, detail: `Restaurant ${id} does not exist.` });
    });
    if (problems.length > 0) throw unprocessable(problems);
    const id = runtime.state.carriers.peekNextId();
    const carrier = runtime.state.carriers.insert({
      name: input.name ?? `Carrier ${id}`,
      callback_url: input.callback_url,
      restaurant_ids: input.restaurant_ids ?? null,
      secret: input.secret ?? null,
      chaos: input.chaos ?? null,
      created_at: runtime.nowIso(),
    });
    return { status: 201, body: { carrier: carrierView(carrier) } satisfies C['CarrierResponse'] };
  },

  deleteCarrier({ runtime, params }) {
    const id = params.id as number;
    if (!runtime.state.carriers.has(id))
      throw new HttpError(404, [
        errorObject(404, 'not_found', 'Not found', `Carrier ${id} does not exist.`, { parameter: 'id' }),
      ]);
    callbackDispatcherOf(runtime)?.dropCarrier(id);
    runtime.state.carriers.delete(id);
    return noContent();
  },

  listCallbacks({ runtime, query }) {
    const callbacks = runtime.state.callbacks.filter(
      (c) =>
        (query.order_id === undefined || c.order_id === query.order_id) &&
        (query.carrier_id === undefined || c.carrier_id === query.carrier_id) &&
        (query.state === undefined || c.state === query.state),
    );
    return ok({ callbacks: callbacks.map(callbackView) } satisfies C['CallbackListResponse']);
  },

  placeStorefrontOrder({ runtime, body }) {
    const order = placeStorefrontOrder(runtime, body!);
    return { status: 201, body: orderResponse(runtime, order), headers: { Location: `/api/orders/${order.id}` } };
  },

  getPublishedMenu({ runtime, params }) {
    const id = params.id as number;
    const organization = runtime.state.organizations.get(id);
    if (!organization) throw notFound('Organization', id);
    const menu = publishedMenuOf(runtime, id);
    if (!menu) {
      throw new HttpError(404, [
        errorObject(404, 'not_found', 'Not found', `${organization.name} has not published its menu yet.`, {
          parameter: 'id',
        }),
      ]);
    }
    // The storefront never shows hidden dishes, so neither does its menu.
    const dishes = menu.dishes.filter((dish) => !dish.is_hidden);
    const shown = new Set(dishes.map((dish) => dish.id));
    const categories = menu.categories.map((category) => {
      const view = Object.fromEntries(
        CATEGORY_FIELDS.map((field) => [field, category[field as keyof typeof category]]),
      );
      return {
        ...view,
        draft_dish_ids: category.draft_dish_ids.filter((dishId) => shown.has(dishId)),
      } as C['DraftCategory'];
    });
    return ok({
      menu: {
        organization_id: id,
        version: menu.version,
        published_at: menu.published_at,
        categories,
        dishes: dishes.map(dishView),
      },
    } satisfies C['PublishedMenuResponse']);
  },

  listNotifications({ runtime, query }) {
    const notifications = runtime.state.notifications.filter(
      (n) =>
        (query.order_id === undefined || n.order_id === query.order_id) &&
        (query.channel === undefined || n.channel === query.channel),
    );
    return ok({ notifications } satisfies C['NotificationListResponse']);
  },

  getClock({ runtime }) {
    return ok(clockView(runtime));
  },

  async setClock({ runtime, body }) {
    const input = body!;
    await runtime.clock.set(new Date(input.now), input.frozen ?? runtime.clock.frozen);
    await callbackDispatcherOf(runtime)?.settled();
    return ok(clockView(runtime));
  },

  async advanceClock({ runtime, body }) {
    const dispatcher = callbackDispatcherOf(runtime);
    if (dispatcher) await dispatcher.advance(body!.ms);
    else await runtime.clock.advance(body!.ms);
    return ok(clockView(runtime));
  },

  getConfig({ runtime }) {
    return ok({ ...runtime.config } satisfies C['Config']);
  },

  updateConfig({ runtime, body }) {
    // In place: the engine and every handler hold this very object.
    Object.assign(runtime.config, body);
    return ok({ ...runtime.config } satisfies C['Config']);
  },

  listFaults({ faults }) {
    return ok({ faults: faults.list() } satisfies C['FaultListResponse']);
  },

  addFault({ runtime, body, faults }) {
    const input = body!;
    const problems: FieldProblem[] = [];
    if (input.path.startsWith('/__'))
      problems.push({ pointer: '/path', detail: 'Faults apply to the service API only, never to /__mock.' });
    if (input.status === undefined && input.latencyMs === undefined) {
      problems.push({ pointer: '/status', code: 'required', detail: 'A fault needs a status, a latencyMs or both.' });
    }
    if (problems.length > 0) throw unprocessable(problems);
    return { status: 201, body: { fault: faults.add(input, runtime.nowIso()) } satisfies C['FaultResponse'] };
  },

  clearFaults({ faults }) {
    faults.clear();
    return noContent();
  },

  deleteFault({ faults, params }) {
    const id = params.id as number;
    if (!faults.remove(id))
      throw new HttpError(404, [
        errorObject(404, 'not_found', 'Not found', `Fault ${id} does not exist.`, { parameter: 'id' }),
      ]);
    return noContent();
  },
};

function jsonResponse(status: number, body: unknown, headers: Record<string, string>): Response {
  return new Response(body === undefined ? null : JSON.stringify(body), {
    status,
    headers: body === undefined ? headers : { 'Content-Type': 'application/json; charset=utf-8', ...headers },
  });
}

/**
 * The control API under `/__mock`, routed and validated with its own document
 * (`openapi/control/control.yaml`). Errors are thrown as {@link HttpError}s, which the engine turns
 * into the service's error body.
 */
export function createControlRoute(options: ControlRouteOptions): EngineRoute {
  const route = async (request: Request, url: URL, engine: MockEngine): Promise<Response | undefined> => {
    if (url.pathname !== PREFIX && !url.pathname.startsWith(`${PREFIX}/`)) return undefined;
    const api = controlApiValidator();
    const router = controlRouter();
    const match = router.match(request.method, url.pathname);
    if (!match) {
      const allowed = router.allowedMethods(url.pathname);
      if (allowed.length > 0) {
        throw methodNotAllowed(request.method, url.pathname, allowed);
      }
      // Other routes live under /__mock too (uploaded photos); the engine answers 404 if none takes it.
      return undefined;
    }
    const op = match.operation;
    const { runtime } = engine;
    // A state export may be larger than any request body of the service itself.
    const limit =
      op.operationId === 'replaceMockState' || op.operationId === 'resetMock'
        ? Number.MAX_SAFE_INTEGER
        : runtime.config.maxBodyBytes;
    const body = await readBody(fromFetchRequest(request, url), op, limit);
    const validated = api.validateRequest(op.operationId, {
      params: match.params,
      malformed: match.malformed,
      query: url.search,
      headers: request.headers,
      contentType: body.kind === 'none' ? undefined : body.kind === 'json' ? 'application/json' : body.mediaType,
      body: body.kind === 'json' ? body.value : undefined,
    });
    if (!validated.valid) throw fromIssues(validated.issues);
    await runtime.clock.runDue();
    const handler = handlers[op.operationId as ControlOperationId] as (
      ctx: ControlContext<ControlOperationId>,
    ) => ControlResult | Promise<ControlResult>;
    const result = await handler({
      engine,
      runtime,
      params: validated.value.params,
      query: validated.value.query,
      body: (body.kind === 'json' ? body.value : undefined) as never,
      faults: options.faults,
    });
    if (request.method !== 'GET') runtime.changed();
    if (runtime.config.validateResponses) assertDocumentedResponse(api, op.operationId, result.status, result.body);
    return jsonResponse(result.status, result.body, { 'X-Request-Id': requestId(), ...result.headers });
  };
  // Only /__mock paths can reach it: the engine skips it (and building a fetch Request) for the service API.
  return Object.assign(route, { pathPrefix: PREFIX });
}
