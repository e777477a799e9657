import { createApiDescription, openapiDocument, type ApiDescription } from '@restoapi/openapi';
import type { CallbackDispatcher } from '../callbacks/callback-dispatcher.js';
import { webhookSecretKey } from '../callbacks/webhook-signature.js';
import type { EngineRequest, MockEngine } from '../engine/engine.js';
import { created, noContent, ok, type HandlerResult } from '../engine/handler.js';
import { HttpError, conflict, errorObject, notFound, unprocessable, type FieldProblem } from '../engine/http-error.js';
import type { OperationSet } from '../engine/pipeline.js';
import type { MockRuntime } from '../engine/runtime.js';
import { controlDocument } from '../generated/control-document.js';
import type { controlComponents as components, controlOperations as operations } from '@restoapi/openapi';
import { dishView } from '../menu/menu-views.js';
import { orderResponse } from '../orders/order-views.js';
import { demoSeed } from '../seeds/demo-seed.js';
import { TABLE_NAMES, type CallbackRecord, type CarrierRecord, type MockStateJson } from '../state/mock-state.js';
import { DEFAULT_SESSION, type SessionRegistry } from '../sessions/session-registry.js';
import type { FaultInjector } from './faults.js';
import { urlProblem } from '../net/outbound-policy.js';
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

/** What the control API's handlers need besides the runtime: handed to them as `ctx.services`. */
export interface ControlServices {
  /** The instance's fault injector (the same one plugged into the engine's `preflight`). */
  readonly faults: FaultInjector;
  /** The instance's callback dispatcher, set once it is attached (the clock is driven through it). */
  callbacks?: CallbackDispatcher;
  /** The sessions of the mock the instance belongs to (the same registry for every session). */
  sessions?: SessionRegistry;
}

/** What a control handler receives from the pipeline. */
interface ControlContext<Op extends ControlOperationId> {
  engine: MockEngine;
  runtime: MockRuntime;
  params: Record<string, unknown>;
  query: Record<string, unknown>;
  body: ControlBody<Op> | undefined;
  services: ControlServices;
}

type ControlHandlers = {
  [Op in ControlOperationId]: (ctx: ControlContext<Op>) => HandlerResult | Promise<HandlerResult>;
};

const PREFIX = '/__mock';
/**
 * The control document's router and ajv validators, shared by every instance (schemas compile once):
 * createApiDescription answers the same description for the same document.
 */
export function controlApiDescription(): ApiDescription {
  return createApiDescription({ document: controlDocument });
}

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
  resetMock({ engine, runtime, body, services }) {
    if (body?.seed !== undefined && body.state !== undefined) {
      throw unprocessable([{ pointer: '/state', detail: 'Send either seed or state, not both.' }]);
    }
    const source = body?.state !== undefined ? 'state' : (body?.seed ?? 'demo');
    const json: MockStateJson =
      source === 'state' ? body!.state! : source === 'demo' ? demoSeed(runtime.clock.now()) : { version: 1 };
    engine.loadState(json);
    // A fresh world starts without the faults armed for the previous one.
    services.faults.clear();
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
    const unreachable = urlProblem(input.callback_url, runtime.outbound.callbacks.rule, '--callbacks');
    if (unreachable)
      problems.push({ pointer: '/callback_url', detail: `The mock may not call this callback_url: ${unreachable}.` });
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

  deleteCarrier({ runtime, params, services }) {
    const id = params.id as number;
    if (!runtime.state.carriers.has(id))
      throw new HttpError(404, [
        errorObject(404, 'not_found', 'Not found', `Carrier ${id} does not exist.`, { parameter: 'id' }),
      ]);
    services.callbacks?.dropCarrier(id);
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
    return created(orderResponse(runtime, order), `/api/orders/${order.id}`);
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

  async setClock({ runtime, body, services }) {
    const input = body!;
    await runtime.clock.set(new Date(input.now), input.frozen ?? runtime.clock.frozen);
    await services.callbacks?.settled();
    return ok(clockView(runtime));
  },

  async advanceClock({ runtime, body, services }) {
    const dispatcher = services.callbacks;
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

  listFaults({ services: { faults } }) {
    return ok({ faults: faults.list() } satisfies C['FaultListResponse']);
  },

  addFault({ runtime, body, services: { faults } }) {
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

  clearFaults({ services: { faults } }) {
    faults.clear();
    return noContent();
  },

  listMockSessions({ services: { sessions } }) {
    return ok({
      sessions: sessions?.list() ?? [],
      max_sessions: sessions?.max ?? 0,
      ttl_ms: sessions?.ttlMs ?? 0,
    } satisfies C['MockSessionListResponse']);
  },

  deleteMockSession({ services: { sessions }, params }) {
    const name = params.name as string;
    if (name === DEFAULT_SESSION)
      throw conflict('default_session', 'The default session cannot be dropped; reset it with POST /__mock/reset.', {
        parameter: 'name',
      });
    if (!sessions?.drop(name))
      throw new HttpError(404, [
        errorObject(404, 'not_found', 'Not found', `Session ${name} does not exist.`, { parameter: 'name' }),
      ]);
    return noContent();
  },

  deleteFault({ services: { faults }, params }) {
    const id = params.id as number;
    if (!faults.remove(id))
      throw new HttpError(404, [
        errorObject(404, 'not_found', 'Not found', `Fault ${id} does not exist.`, { parameter: 'id' }),
      ]);
    return noContent();
  },
};

/** Bodies that may be larger than any request of the service itself: a whole state export. */
const UNLIMITED_BODY = new Set<string>(['replaceMockState', 'resetMock']);
/** The control operations that add records (`maxRecords`); the other POSTs reset the state or move the clock. */
const GROWING = new Set<string>(['placeStorefrontOrder', 'registerCarrier', 'addFault']);

/** The header a client without `Authorization` may send the control token in. */
export const CONTROL_TOKEN_HEADER = 'X-Mock-Control-Token';

/** Compares two strings in a time that does not depend on where they differ (the token must not leak by timing). */
function sameSecret(given: string, expected: string): boolean {
  let differ = given.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) differ |= (given.charCodeAt(i) || 0) ^ expected.charCodeAt(i);
  return differ === 0;
}

/** The token a control request carries: `Authorization: Bearer <token>` or `X-Mock-Control-Token: <token>`. */
function tokenOf(request: EngineRequest): string | undefined {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.get('authorization') ?? '')?.[1];
  return bearer ?? request.headers.get(CONTROL_TOKEN_HEADER)?.trim() ?? undefined;
}

/** 401 for a control request without the right token (the control document's `ControlToken` scheme). */
function controlUnauthorized(given: boolean): HttpError {
  return new HttpError(
    401,
    [
      errorObject(
        401,
        'control_token_required',
        'Control token required',
        given
          ? 'The control token is wrong. Send the token the mock was started with (--control-token or RESTOAPI_MOCK_CONTROL_TOKEN).'
          : 'This mock protects /__mock with a control token: send Authorization: Bearer <token> (or X-Mock-Control-Token); ' +
              'whoever started the mock has it (--control-token or RESTOAPI_MOCK_CONTROL_TOKEN).',
        { header: 'Authorization' },
      ),
    ],
    { 'WWW-Authenticate': 'Bearer realm="restoapi-mock control"' },
  );
}

/**
 * The control API under `/__mock`: its own document (`openapi/control/control.yaml`) and handler map,
 * answered by the engine's one pipeline like the service API. Errors are thrown as {@link HttpError}s.
 * With a `token`, every control operation requires it (401 otherwise); without one the API is open.
 */
export function createControlApi(services: ControlServices, token?: string): OperationSet<ControlServices> {
  return {
    description: controlApiDescription(),
    handlers,
    pathPrefix: PREFIX,
    services,
    bodyLimit: (operationId, config) =>
      UNLIMITED_BODY.has(operationId) ? Number.MAX_SAFE_INTEGER : config.maxBodyBytes,
    growsState: (operationId) => GROWING.has(operationId),
    ...(token
      ? {
          authorize(request: EngineRequest) {
            const given = tokenOf(request);
            if (given === undefined || !sameSecret(given, token)) throw controlUnauthorized(given !== undefined);
          },
        }
      : {}),
  };
}
