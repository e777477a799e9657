/* eslint-disable @typescript-eslint/no-explicit-any */
import * as fc from 'fast-check';
import {
  CARRIER_PATH_PREFIX,
  getAtPointer,
  listDecisions,
  openapiDocument,
  type ApiDescription,
  type OperationInfo,
} from '@restoapi/openapi';
import { CheckFailure, type Client, type TestContext } from '../runner/context.js';
import type { Rec } from '../runner/fixtures.js';
import type { ApiResponse } from '../runner/http.js';
import { ABSENT_ENDPOINT_STATUSES, NOT_SHOWN_ENDPOINTS } from '../runner/request-shapes.js';
import type { ContractTest } from '../runner/context.js';
import type { Need } from '../runner/types.js';
import { handedOverOrder } from './carrier.js';
import { component, defineTest } from './define.js';
import { photoForm } from './menu.js';

/** One invalid request variant. */
export interface Mutation {
  kind:
    | 'wrongType'
    | 'missingRequired'
    | 'unknownField'
    | 'outOfRange'
    | 'malformedJson'
    | 'contentType'
    | 'rootType'
    | 'pathParam'
    | 'queryParam';
  /** What was changed, for the failure message. */
  label: string;
  params?: Record<string, string>;
  /** Path parameters written into the path as they are (a malformed percent-encoding), not encoded. */
  rawParams?: Record<string, string>;
  query?: Record<string, unknown>;
  body?: unknown;
  /** A raw body (malformed JSON). */
  raw?: string;
  contentType?: string | null;
  /** Invalid only by a decision of the document (a range or enum the spec does not state). */
  decidedOnly?: boolean;
}

type Json = any;

/** Every x-decision pointer of the document. */
const DECIDED = new Set(listDecisions(openapiDocument).map((d) => d.pointer));

/** The status the document decides for each kind (checked under `full`). */
const DECIDED_STATUS: Record<Mutation['kind'], number> = {
  wrongType: 422,
  missingRequired: 422,
  unknownField: 422,
  outOfRange: 422,
  rootType: 422,
  malformedJson: 400,
  contentType: 415,
  pathParam: 400,
  queryParam: 400,
};

/** Kinds every reading of the spec makes invalid (types, JSON, Content-Type); the rest are decisions. */
const SPEC_KINDS = new Set<Mutation['kind']>([
  'wrongType',
  'malformedJson',
  'contentType',
  'rootType',
  'pathParam',
  'queryParam',
]);

/**
 * Kinds the suite sends under `spec` that the spec's Errors section does not state as refused (it states
 * required fields on create, a non-simple area and JSON without its Content-Type): a service may coerce a
 * wrong type or ignore an unparsable parameter. Accepting one is a warning naming the decision that refuses
 * it; a 5xx still fails.
 */
const DECIDED_REFUSAL: Partial<Record<Mutation['kind'], string>> = {
  wrongType: '/components/responses/UnprocessableEntity',
  rootType: '/components/responses/UnprocessableEntity',
  pathParam: '/components/responses/BadRequest',
  queryParam: '/components/responses/BadRequest',
};

/** Required fields the spec itself states (Errors 3). */
const SPEC_REQUIRED: Record<string, string[][]> = {
  createDraftDish: [
    ['draft_dish', 'draft_category_id'],
    ['draft_dish', 'organization_id'],
    ['draft_dish', 'price'],
    ['draft_dish', 'name'],
  ],
  createDeliveryZone: [['organization_id'], ['restaurant_id'], ['name']],
};

// ---------------------------------------------------------------------------
// Schema helpers

interface Flat {
  types?: Set<string>;
  properties: Record<string, Json>;
  required: Set<string>;
  closed: boolean;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  items?: Json;
}

function deref(doc: Json, schema: Json, depth = 0): Json {
  let current = schema;
  while (current && typeof current === 'object' && typeof current.$ref === 'string' && depth < 30) {
    current = getAtPointer(doc, current.$ref.replace(/^#/, ''));
    depth += 1;
  }
  return current;
}

/** Flattens `$ref` and `allOf`; `oneOf`/`anyOf` contribute types and properties (not requirements). */
function flatten(doc: Json, schema: Json, depth = 0): Flat {
  const out: Flat = { properties: {}, required: new Set(), closed: false };
  const s = deref(doc, schema);
  if (!s || typeof s !== 'object' || depth > 12) return out;
  const addTypes = (types: Set<string> | undefined): void => {
    if (!types) return;
    out.types ??= new Set();
    for (const type of types) out.types.add(type);
  };
  if (s.type) addTypes(new Set(Array.isArray(s.type) ? s.type : [s.type]));
  Object.assign(out.properties, s.properties ?? {});
  for (const name of s.required ?? []) out.required.add(name);
  if (s.additionalProperties === false) out.closed = true;
  if (s.enum) out.enum = s.enum;
  if (typeof s.minimum === 'number') out.minimum = s.minimum;
  if (typeof s.maximum === 'number') out.maximum = s.maximum;
  if (s.items) out.items = s.items;
  for (const part of s.allOf ?? []) {
    const sub = flatten(doc, part, depth + 1);
    if (sub.types) {
      // allOf narrows: keep what every part allows.
      out.types = out.types ? new Set([...out.types].filter((t) => sub.types!.has(t))) : sub.types;
    }
    Object.assign(out.properties, sub.properties);
    for (const name of sub.required) out.required.add(name);
    out.closed ||= sub.closed;
    out.enum ??= sub.enum;
    out.items ??= sub.items;
  }
  const branches = [...(s.oneOf ?? []), ...(s.anyOf ?? [])];
  if (branches.length > 0) {
    const subs = branches.map((b: Json) => flatten(doc, b, depth + 1));
    if (!s.type && subs.every((sub: Flat) => sub.types))
      addTypes(new Set(subs.flatMap((sub: Flat) => [...sub.types!])));
    else if (!s.type) out.types = undefined;
    for (const sub of subs) {
      for (const [key, value] of Object.entries(sub.properties)) out.properties[key] ??= value;
      out.closed ||= sub.closed;
      out.items ??= sub.items;
      if (sub.minimum !== undefined) out.minimum = Math.max(out.minimum ?? -Infinity, sub.minimum);
    }
  }
  return out;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typeAllowed(types: Set<string>, value: unknown): boolean {
  const type = jsonType(value);
  return types.has(type) || (type === 'integer' && types.has('number'));
}

interface Slot {
  path: (string | number)[];
  value: unknown;
  schema: Flat;
  parent: Flat | undefined;
}

/** Every value of a body with the schema that applies to it. */
function slots(doc: Json, value: unknown, schema: Json, path: (string | number)[] = [], parent?: Flat): Slot[] {
  const flat = flatten(doc, schema);
  const out: Slot[] = [{ path, value, schema: flat, parent }];
  if (Array.isArray(value) && flat.items)
    value.forEach((item, i) => out.push(...slots(doc, item, flat.items, [...path, i], flat)));
  else if (value && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      const childSchema = flat.properties[key];
      if (childSchema) out.push(...slots(doc, child, childSchema, [...path, key], flat));
    }
  }
  return out;
}

function setAt(root: unknown, path: (string | number)[], value: unknown, remove = false): unknown {
  const copy = structuredClone(root);
  if (path.length === 0) return value;
  let node: any = copy;
  for (const key of path.slice(0, -1)) node = node[key];
  const last = path[path.length - 1]!;
  if (remove) {
    if (Array.isArray(node)) node.splice(Number(last), 1);
    else delete node[last];
  } else node[last] = value;
  return copy;
}

const pointer = (path: (string | number)[]): string => (path.length ? `/${path.join('/')}` : '(root)');

/**
 * Integers written any way but the canonical one, and malformed percent-encodings of a path segment: the
 * document decides (`x-decision` on `Id` and `BadRequest`) that each is a 400 naming the parameter, never
 * read as another id (`0x1` as 1).
 */
const NON_CANONICAL_INTEGERS = ['0x1', '+1', '01', ' 1', '1 ', '1e3', '1.0', '-0', '99999999999999999999'];
const MALFORMED_SEGMENTS = ['%E0', '%', '%C3%28'];
const REPLACEMENTS: unknown[] = [42, 1.5, 'text', true, null, [], {}];

/** Every invalid variant of a valid request, checked invalid against the document. */
export function mutationsFor(
  api: ApiDescription,
  op: OperationInfo,
  base: { params: Record<string, string>; query: Record<string, unknown>; body?: unknown },
): Mutation[] {
  const doc = api.document;
  const out: Mutation[] = [];
  const jsonBody = op.requestBody?.content['application/json'];
  const invalid = (body: unknown, params = base.params, query = base.query): boolean =>
    !api.validateRequest(op.operationId, {
      params,
      query: query as Record<string, string>,
      contentType: body === undefined ? undefined : 'application/json',
      body,
    }).valid;
  if (jsonBody && base.body !== undefined) {
    const schema = getAtPointer(doc, jsonBody);
    for (const slot of slots(doc, base.body, schema)) {
      if (slot.schema.types) {
        for (const replacement of REPLACEMENTS) {
          if (typeAllowed(slot.schema.types, replacement)) continue;
          const body = setAt(base.body, slot.path, replacement);
          if (invalid(body))
            out.push({
              kind: slot.path.length === 0 ? 'rootType' : 'wrongType',
              label: `${pointer(slot.path)} = ${JSON.stringify(replacement)}`,
              body,
            });
        }
      }
      if (slot.value && typeof slot.value === 'object' && !Array.isArray(slot.value)) {
        for (const name of slot.schema.required) {
          if (!(name in (slot.value as object))) continue;
          const body = setAt(base.body, [...slot.path, name], undefined, true);
          if (invalid(body))
            out.push({ kind: 'missingRequired', label: `without ${pointer([...slot.path, name])}`, body });
        }
        if (slot.schema.closed) {
          const body = setAt(base.body, [...slot.path, 'zz_unknown_field'], 'surprise');
          if (invalid(body))
            out.push({ kind: 'unknownField', label: `unknown ${pointer([...slot.path, 'zz_unknown_field'])}`, body });
        }
      }
      const bad: unknown[] = [];
      if (slot.schema.enum) bad.push('not-a-documented-value');
      if (typeof slot.value === 'number' && slot.schema.minimum !== undefined) bad.push(slot.schema.minimum - 1);
      if (typeof slot.value === 'number' && slot.schema.maximum !== undefined) bad.push(slot.schema.maximum + 1);
      for (const value of bad) {
        const body = setAt(base.body, slot.path, value);
        if (invalid(body))
          out.push({ kind: 'outOfRange', label: `${pointer(slot.path)} = ${JSON.stringify(value)}`, body });
      }
    }
    const text = JSON.stringify(base.body);
    for (const raw of [
      text.slice(0, Math.max(1, Math.floor(text.length / 2))),
      `${text}}`,
      "{'single': 'quotes'}",
      'not json at all',
      `${text.slice(0, -1)},}`,
    ]) {
      out.push({ kind: 'malformedJson', label: `malformed JSON ${JSON.stringify(raw.slice(0, 40))}`, raw });
    }
    for (const contentType of ['text/plain', 'application/x-www-form-urlencoded', null]) {
      out.push({
        kind: 'contentType',
        label: `valid JSON sent as ${contentType ?? '(no Content-Type)'}`,
        body: base.body,
        contentType,
      });
    }
  }
  for (const param of op.parameters) {
    if (param.in !== 'path' && param.in !== 'query') continue;
    const flat = flatten(doc, getAtPointer(doc, param.schemaPointer));
    const candidates: string[] = [];
    const numeric = flat.types?.has('integer') || flat.types?.has('number');
    if (numeric) candidates.push('abc', '1.5', 'true');
    if (flat.types?.has('boolean')) candidates.push('maybe');
    if (flat.enum || (flat.items && flatten(doc, flat.items).enum)) candidates.push('not-a-documented-value');
    if (numeric && flat.minimum !== undefined) candidates.push(String(flat.minimum - 1));
    if (numeric && flat.maximum !== undefined) candidates.push(String(flat.maximum + 1));
    for (const value of candidates) {
      const params = param.in === 'path' ? { ...base.params, [param.name]: value } : base.params;
      const query = param.in === 'query' ? { ...base.query, [param.name]: value } : base.query;
      if (!invalid(base.body, params, query)) continue;
      const typeOnly = ['abc', '1.5', 'true', 'maybe'].includes(value);
      out.push({
        kind: param.in === 'path' ? 'pathParam' : 'queryParam',
        label: `${param.in} ${param.name}=${value}${typeOnly ? '' : ' (out of range)'}`,
        params,
        query,
        ...(base.body !== undefined ? { body: base.body } : {}),
        ...(typeOnly ? {} : { decidedOnly: true }),
      });
    }
    const integer = flat.types?.has('integer') && !flat.types.has('string');
    for (const value of integer ? NON_CANONICAL_INTEGERS : []) {
      const params = param.in === 'path' ? { ...base.params, [param.name]: value } : base.params;
      const query = param.in === 'query' ? { ...base.query, [param.name]: value } : base.query;
      if (!invalid(base.body, params, query)) continue;
      out.push({
        kind: param.in === 'path' ? 'pathParam' : 'queryParam',
        label: `${param.in} ${param.name}=${JSON.stringify(value)} (not a canonical integer)`,
        params,
        query,
        ...(base.body !== undefined ? { body: base.body } : {}),
        decidedOnly: true,
      });
    }
    for (const segment of param.in === 'path' ? MALFORMED_SEGMENTS : []) {
      out.push({
        kind: 'pathParam',
        label: `path ${param.name}=${segment} (malformed percent-encoding)`,
        rawParams: { [param.name]: segment },
        ...(base.body !== undefined ? { body: base.body } : {}),
        decidedOnly: true,
      });
    }
  }
  return out;
}

/** Whether a mutation is invalid by the spec itself (else only by a decision of the document). */
export function isSpecMutation(op: string, mutation: Mutation): boolean {
  if (mutation.decidedOnly) return false;
  if (mutation.kind === 'missingRequired')
    return (SPEC_REQUIRED[op] ?? []).some((path) => mutation.label === `without /${path.join('/')}`);
  return SPEC_KINDS.has(mutation.kind);
}

// ---------------------------------------------------------------------------
// Targets: a valid base request per operation and how to re-read what it could change

interface Base {
  client: Client;
  params: Record<string, string>;
  query: Record<string, unknown>;
  body?: unknown;
  form?: () => FormData;
  reread: () => Promise<unknown>;
}

const VOLATILE = new Set(['expires_at', 'job_percent', 'last_used_at']);

function normalize(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalize);
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => !VOLATILE.has(k))
        .map(([k, v]) => [k, normalize(v)]),
    );
  return value;
}

async function read(t: TestContext, client: Client, path: string, query?: Record<string, any>): Promise<unknown> {
  const response = await client.get(path, query);
  return { status: response.status, body: normalize(response.body) };
}

/**
 * The import's job state once no job is running: a job started before the refused request (by another test, or a
 * retry) moves from `queued` to `working` to its end on its own, which a re-read must not take for a change the
 * refused request made. Waits at most 10 s, then reads whatever the state is.
 */
async function settledImport(t: TestContext, client: Client, path: string): Promise<unknown> {
  const until = Date.now() + 10_000;
  for (;;) {
    const state = await read(t, client, path);
    const job = (state as { body?: { job_status?: unknown } }).body?.job_status;
    if ((job !== 'queued' && job !== 'working') || Date.now() > until) return state;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function firstId(t: TestContext, client: Client, path: string, key: string): Promise<number> {
  const response = await client.get(path, { organization_id: t.fixtures.orgId });
  t.status(response, 200, `listing ${key}`);
  const id = (response.body?.[key] as Rec[] | undefined)?.[0]?.id as number | undefined;
  if (id === undefined) t.skip(`no ${key} in organization ${t.fixtures.orgId}`);
  return id;
}

const PATH_COLLECTIONS: Record<string, [string, string]> = {
  restaurants: ['/api/restaurants', 'restaurants'],
  draft_categories: ['/api/draft_categories', 'draft_categories'],
  draft_dishes: ['/api/draft_dishes', 'draft_dishes'],
  delivery_zones: ['/api/delivery_zones', 'delivery_zones'],
  couriers: ['/api/couriers', 'couriers'],
};

const BODIES: Record<string, (t: TestContext) => Promise<unknown>> = {
  updateOrganization: async () => ({
    organization: { about: 'Negative test', name: 'Negative test', social_network: { vk: 'https://vk.com/x' } },
  }),
  importMenu: async (t) => ({
    categories: [{ name: 'Negative', external_id: 'neg', menu_order: 1 }],
    dishes: [
      {
        name: 'Negative dish',
        price: 5,
        weight: 100,
        category_external_id: 'neg',
        availability: [{ restaurant_id: (await t.fixtures.restaurantIds())[0], status: 'available' }],
        modifiers: [{ name: 'Size', multiple: false, items: [{ name: 'S', price: 0 }] }],
      },
    ],
    config: { destroy_menu: false, publish_menu: false },
  }),
  importClients: async () => ({
    clients: [
      {
        external_id: 'negative',
        name: 'Negative',
        email: 'negative@example.com',
        gender: 'female',
        birthdate: '01/02/1990',
        tags: ['x'],
        is_blacklisted: false,
      },
    ],
  }),
  importOrders: async (t) => {
    const order = (await t.fixtures.orderDraft({ change: 10, total: 12, client_external_id: 'negative-client' })) as {
      buddies?: { items?: Record<string, unknown>[] }[];
    };
    // A line with its chosen add-ons, so that the decided shape of `config` is tried too.
    const line = order.buddies?.[0]?.items?.[0];
    if (line) line.config = [{ name: 'Size', items: [{ name: 'L', price: 0 }] }];
    return { orders: [order] };
  },
  updateRestaurant: async () => ({ restaurant: { name: 'Negative', phone: '+49 30 0', address: 'Negative 1' } }),
  createDraftCategory: async (t) => ({
    draft_category: { name: 'Negative', organization_id: t.fixtures.orgId, menu_order: 3 },
  }),
  updateDraftCategory: async () => ({ draft_category: { name: 'Negative', menu_order: 3 } }),
  createDraftDish: async (t) => ({
    draft_dish: {
      name: 'Negative',
      price: '5.00',
      draft_category_id: (await t.fixtures.category()).id,
      organization_id: t.fixtures.orgId,
      is_hidden: false,
      menu_order: 1,
      weight: 100,
    },
  }),
  updateDraftDish: async () => ({ draft_dish: { name: 'Negative', price: '5.00', is_hidden: false, menu_order: 2 } }),
  createDeliveryZone: async (t) => ({
    organization_id: t.fixtures.orgId,
    restaurant_id: (await t.fixtures.restaurantIds())[0],
    name: 'Negative',
    delivery_time: 30,
    price: 2,
    timetables: [{ day: 1, open_at: '2000-01-01T10:00:00Z', close_at: '2000-01-01T20:00:00Z' }],
  }),
  updateDeliveryZone: async () => ({
    name: 'Negative',
    delivery_time: 30,
    price: 2,
    timetables: [{ day: 2, open_at: '2000-01-01T10:00:00Z', close_at: '2000-01-01T20:00:00Z' }],
  }),
  // The fixture order is imported as pending: sending its status again changes nothing, and puts the decided list
  // of statuses among the values tried.
  updateOrder: async () => ({
    order: { contact_name: 'Negative', description: 'Negative', delivery_price: '1.00', status: 'pending' },
  }),
  updateCarrierDelivery: async () => ({
    status: 'idle',
    message: 'Negative',
    courier_external_id: 1,
    lat: 52.5,
    lon: 13.4,
  }),
};

const QUERIES: Record<string, Record<string, unknown>> = {
  setOrderStatus: { status: 'delivery' },
  listOrders: { page: 1, per_page: 10 },
  importOrders: { existing: 'ignore' },
  importClients: { from_scratch: false },
  updateOrder: { send_sms: false },
};

async function baseFor(t: TestContext, op: OperationInfo): Promise<Base> {
  const staff = await t.as('staffMember');
  const params: Record<string, string> = {};
  const segments = op.path.split('/').filter(Boolean);
  const query = { ...(QUERIES[op.operationId] ?? {}) };
  let client: Client = staff;
  let reread: () => Promise<unknown> = async () => null;
  const org = t.fixtures.orgId;
  if (op.api === 'carrier') {
    const handed = await handedOverOrder(t);
    params.secure_id = handed.secureId;
    client = t.carrier();
    reread = () => read(t, client, `/orders/${encodeURIComponent(handed.secureId)}`);
  } else if (segments[1] === 'organizations' && op.path.includes('{id}')) {
    params.id = String(org);
    const kind = segments[4];
    reread = async () =>
      kind === 'orders'
        ? read(t, staff, '/api/orders', t.listPage)
        : kind
          ? [
              await settledImport(t, staff, `/api/organizations/${org}/import/${kind}`),
              await read(t, staff, '/api/draft_dishes', { organization_id: org }),
            ]
          : read(t, staff, `/api/organizations/${org}`);
  } else if (segments[1] === 'orders') {
    const order =
      op.operationId === 'setOrderStatus' || op.operationId === 'confirmOrder'
        ? await t.fixtures.courierOrder()
        : (((await staff.get('/api/orders', { per_page: 1 })).body?.orders?.[0] as Rec | undefined) ??
          (await t.fixtures.createOrder()));
    if (op.path.includes('{id}')) params.id = String(order.id);
    reread = () =>
      read(
        t,
        staff,
        op.path.includes('{id}') ? `/api/orders/${order.id}` : '/api/orders',
        op.path.includes('{id}') ? undefined : t.listPage,
      );
  } else if (segments[1] === 'session') {
    client = t.anon();
  } else if (PATH_COLLECTIONS[segments[1] ?? '']) {
    const [path, key] = PATH_COLLECTIONS[segments[1]!]!;
    if (op.path.includes('{id}')) {
      const id = op.operationId.startsWith('delete')
        ? String(
            (segments[1] === 'draft_dishes'
              ? await t.fixtures.createDish()
              : segments[1] === 'draft_categories'
                ? await t.fixtures.createCategory()
                : await t.fixtures.createZone()
            ).id,
          )
        : String(await firstId(t, staff, path, key));
      params.id = id;
      reread = () => read(t, staff, `${path}/${id}`);
    } else reread = () => read(t, staff, path, { organization_id: org });
  }
  const body = BODIES[op.operationId] ? await BODIES[op.operationId]!(t) : undefined;
  const multipart =
    op.requestBody?.content['multipart/form-data'] && !op.requestBody?.content['application/x-www-form-urlencoded'];
  return { client, params, query, body, ...(multipart ? { form: photoForm } : {}), reread };
}

function hash(text: string): number {
  let h = 2166136261;
  for (const char of text) h = Math.imul(h ^ char.charCodeAt(0), 16777619);
  return h >>> 0;
}

async function send(op: OperationInfo, base: Base, mutation: Mutation): Promise<ApiResponse> {
  const params = mutation.params ?? base.params;
  // The carrier client's base is `{base_url}/api-delivery`, so its paths are relative to it.
  const template = op.api === 'carrier' ? op.path.slice(CARRIER_PATH_PREFIX.length) : op.routes[0]!;
  const path = template.replace(
    /\{(\w+)\}/g,
    (_, name: string) => mutation.rawParams?.[name] ?? encodeURIComponent(params[name] ?? ''),
  );
  const query = (mutation.query ?? base.query) as Record<string, string>;
  const method = op.method.toUpperCase();
  if (mutation.raw !== undefined)
    return base.client.request({ method, path, query, body: mutation.raw, contentType: 'application/json' });
  if (base.form && mutation.body === undefined && mutation.kind !== 'contentType')
    return base.client.request({ method, path, query, body: base.form() });
  if (mutation.kind === 'contentType' && base.form)
    return base.client.request({ method, path, query, json: { file: 'not a file' } });
  if (mutation.kind === 'contentType')
    return base.client.request({ method, path, query, json: mutation.body, contentType: mutation.contentType ?? null });
  return base.client.request({ method, path, query, ...(mutation.body !== undefined ? { json: mutation.body } : {}) });
}

function needsOf(op: OperationInfo): Need[] {
  const needs: Need[] = [];
  if (op.method !== 'get') needs.push('mutations');
  if (op.operationId === 'importMenu') needs.push('menuImport');
  if (op.api === 'carrier') needs.push('carrierApi');
  return needs;
}

function negativeTest(op: OperationInfo, profile: 'spec' | 'full'): ContractTest {
  const jsonPointerOfBody = op.requestBody?.content['application/json'];
  const bodySchemaName = jsonPointerOfBody
    ? String((op.raw as Rec).requestBody?.content?.['application/json']?.schema?.$ref ?? '')
        .split('/')
        .pop()
    : undefined;
  return defineTest({
    id: `${profile === 'spec' ? 'negative' : 'negative-decided'}.${op.operationId}`,
    title:
      profile === 'spec'
        ? `Negative (property-based): ${op.operationId} refuses wrong types, malformed JSON, a wrong Content-Type and invalid parameters with a 4xx, never a 5xx, and changes nothing`
        : `Negative (decided): ${op.operationId} answers the documented 400/415/422 to invalid bodies and parameters (unknown fields, ranges, enums, required fields) and changes nothing`,
    clauses: [
      'Data format rules 8',
      'Errors 5',
      ...(op.operationId === 'createDraftDish' || op.operationId === 'createDeliveryZone' ? ['Errors 3'] : []),
      ...(op.operationId === 'createSession' ? ['Data format rules 10'] : []),
    ].filter(
      (c, i, all) => all.indexOf(c) === i && (jsonPointerOfBody || !['Data format rules 8', 'Errors 5'].includes(c)),
    ),
    profile,
    ...(profile === 'full'
      ? {
          decisions: [
            component('responses', 'BadRequest'),
            component('responses', 'UnprocessableEntity'),
            component('responses', 'UnsupportedMediaType'),
            ...(bodySchemaName && DECIDED.has(component('schemas', bodySchemaName))
              ? [component('schemas', bodySchemaName)]
              : []),
            ...[...DECIDED].filter((pointer) => pointer.startsWith(`${op.pointer}/parameters/`)),
          ],
        }
      : {}),
    kind: 'negative',
    needs: needsOf(op),
    timeoutMs: 60_000,
    operations: [op.operationId],
    async run(t) {
      const base = await baseFor(t, op);
      // A read the spec leaves "not shown" is tried unchanged first: a service without it (404, 405 or 501) would
      // "refuse" every variant, which says nothing, so the test skips naming the decision (a failure under full).
      if (NOT_SHOWN_ENDPOINTS[op.operationId] && op.method === 'get')
        t.skipIfAbsent(await send(op, base, { kind: 'queryParam', label: 'the request unchanged' }));
      const all = mutationsFor(t.validator, op, { params: base.params, query: base.query, body: base.body });
      const chosen = all.filter((m) => isSpecMutation(op.operationId, m) === (profile === 'spec'));
      if (base.form && profile === 'spec')
        chosen.push({
          kind: 'contentType',
          label: 'JSON instead of multipart/form-data',
          contentType: 'application/json',
        });
      if (op.operationId === 'createSession') {
        const credentials = t.credentials('staffMember');
        chosen.push(
          {
            kind: 'contentType',
            label: 'credentials as a JSON body',
            body: credentials,
            contentType: 'application/json',
            decidedOnly: true,
          },
          {
            kind: 'missingRequired',
            label: 'login without password',
            query: { login: 'login' in credentials ? credentials.login : 'x' },
            decidedOnly: true,
          },
        );
      }
      if (chosen.length === 0) t.skip('no invalid variant of this kind exists for the operation');
      // Under `full`, each decision that alone refuses a variant is tried once whatever the seed (below), and
      // a service that takes such a variant fails naming that decision.
      const decisions = new Map<Mutation, string>();
      // A wrong type or an unparsable parameter keeps naming the decision that refuses its kind (DECIDED_REFUSAL).
      for (const mutation of t.full ? chosen.filter((m) => m.decidedOnly || !DECIDED_REFUSAL[m.kind]) : []) {
        const decision = decisionOf(t, op, base, mutation);
        if (decision) decisions.set(mutation, decision);
      }
      const seed = (t.seed + hash(op.operationId)) | 0;
      // Each kind of fault is equally likely, whatever the number of variants of each kind.
      const kinds = [...new Set(chosen.map((m) => m.kind))].map((kind) =>
        fc.constantFrom(...chosen.filter((m) => m.kind === kind)),
      );
      // A 501 of an endpoint the spec leaves "not shown": the service has no such endpoint (skipped below).
      let absent: ApiResponse | undefined;
      // Whether every variant was answered as a missing endpoint answers (404, 405 or 501).
      let onlyMissing = true;
      const property = fc.asyncProperty(fc.oneof(...kinds), async (mutation) => {
        const before = await base.reread();
        const response = await send(op, base, mutation);
        if (!ABSENT_ENDPOINT_STATUSES.includes(response.status)) onlyMissing = false;
        if (response.status === 501 && NOT_SHOWN_ENDPOINTS[op.operationId]) {
          absent = response;
          return;
        }
        if (response.status >= 500)
          throw new CheckFailure(
            `${mutation.label}: answered ${response.status} (a server error) ${response.text.slice(0, 200)}`,
          );
        const decision = decisions.get(mutation);
        if (response.status < 400 && decision) {
          t.decided(
            decision,
            false,
            `${mutation.label}: accepted with ${response.status}; the document refuses it with ${DECIDED_STATUS[mutation.kind]}`,
            response,
          );
          return;
        }
        const leniency = DECIDED_REFUSAL[mutation.kind];
        if (response.status < 400 && leniency) {
          // Under `spec` a warning; under `full` a failure naming the decision that refuses it.
          t.decided(
            leniency,
            false,
            `${mutation.label}: accepted with ${response.status}; the spec does not state that it is refused`,
            response,
          );
          return;
        }
        const expected = t.full ? DECIDED_STATUS[mutation.kind] : undefined;
        if (expected !== undefined && response.status !== expected)
          throw new CheckFailure(
            `${mutation.label}: answered ${response.status}, the document decides ${expected}${decision ? ` (the decision ${decision} refuses it)` : ''}. ${response.text.slice(0, 200)}`,
          );
        if (response.status < 400 || response.status >= 500)
          throw new CheckFailure(
            `${mutation.label}: answered ${response.status}, expected a 4xx refusal. ${response.text.slice(0, 200)}`,
          );
        const after = await base.reread();
        if (JSON.stringify(after) !== JSON.stringify(before))
          throw new CheckFailure(
            `${mutation.label}: refused with ${response.status}, but a re-read shows a change:\nbefore ${JSON.stringify(before).slice(0, 300)}\nafter  ${JSON.stringify(after).slice(0, 300)}`,
          );
      });
      try {
        // Tried first, whatever the seed: a number for a name, the refusal a lenient service is most likely to
        // skip by coercing it (a warning under spec, naming the decision).
        const coercible = chosen.find((m) => m.kind === 'wrongType' && /\/name = 42$/.test(m.label));
        const examples = [...(coercible ? [coercible] : []), ...firstOfEach(decisions)].map((m) => [m] as [Mutation]);
        await fc.assert(property, {
          seed,
          ...(examples.length ? { examples } : {}),
          // fast-check counts the examples among the runs: they come on top of the random ones.
          numRuns: Math.min(t.config.propertyRuns, chosen.length * 3) + examples.length,
          endOnFailure: true,
          verbose: 0,
        });
      } catch (error) {
        const message = (error as Error).message
          .split('\n')
          .filter((line) => !line.startsWith('    at '))
          .join('\n');
        // fast-check keeps the check's own message (what was expected, the decision it breaks) as the cause.
        const cause = (error as Error).cause;
        const reason = cause instanceof Error && !message.includes(cause.message) ? `\n${cause.message}` : '';
        t.fail(`${message}${reason}\nreproduce with --seed ${t.seed} (property seed ${seed})`);
      }
      if (absent) t.skipIfAbsent(absent);
      // A write the spec leaves "not shown" that refused every variant as a missing endpoint would: tried unchanged
      // last (a read is tried first; a write would change what the variants are checked against), and a 404, 405
      // or 501 to it too means the service has no such endpoint, which refused nothing (skipped naming the decision).
      if (NOT_SHOWN_ENDPOINTS[op.operationId] && op.method !== 'get' && onlyMissing)
        t.skipIfAbsent(await send(op, base, { kind: 'queryParam', label: 'the request unchanged' }));
    },
  });
}

/**
 * The decision that alone makes a variant invalid (an unknown field of a decided body, a value outside a
 * decided list), when every problem the document finds in it is decided by that one marker.
 */
function decisionOf(t: TestContext, op: OperationInfo, base: Base, mutation: Mutation): string | undefined {
  if (mutation.raw !== undefined || mutation.rawParams || mutation.kind === 'contentType' || base.form)
    return undefined;
  const body = mutation.body ?? base.body;
  // Validation may coerce what it reads: it gets a copy.
  const result = t.validator.validateRequest(op.operationId, {
    params: mutation.params ?? base.params,
    query: (mutation.query ?? base.query) as Record<string, string>,
    contentType: body === undefined ? undefined : 'application/json',
    body: structuredClone(body),
  });
  if (result.valid) return undefined;
  // One fault: the deepest issue, the others on its way (a nullable configurator's `type` above its item).
  const deepest = result.issues.reduce((a, b) => (b.pointer.length > a.pointer.length ? b : a));
  const onTheWay = result.issues.every(
    (issue) => issue.in === deepest.in && `${deepest.pointer}/`.startsWith(`${issue.pointer}/`),
  );
  return onTheWay ? t.runtime.http.classifier.requestDecision(op.operationId, deepest)?.pointer : undefined;
}

/** The first variant of each decision and kind (an unknown field, a missing one, a value out of range), in order. */
function firstOfEach(decisions: ReadonlyMap<Mutation, string>): Mutation[] {
  const seen = new Set<string>();
  const key = (mutation: Mutation, decision: string): string => `${mutation.kind} ${decision}`;
  return [...decisions]
    .filter(([mutation, decision]) => !seen.has(key(mutation, decision)) && seen.add(key(mutation, decision)))
    .map(([mutation]) => mutation);
}

/** Property-based negative tests for every operation with parameters or a body. */
export function negativeTests(operations: readonly OperationInfo[]): ContractTest[] {
  const out: ContractTest[] = [];
  for (const op of operations) {
    if (op.kind !== 'paths') continue;
    const hasInput = op.requestBody !== undefined || op.parameters.some((p) => p.in === 'path' || p.in === 'query');
    if (!hasInput || op.operationId === 'getCarrierOrder') continue;
    if (op.operationId !== 'createSession') out.push(negativeTest(op, 'spec'));
    out.push(negativeTest(op, 'full'));
  }
  return out;
}
