/**
 * Hostile requests made from the API description: every operation of the service's API (main and carrier)
 * and of the mock's control API, each with exactly one defect the mock must refuse (4xx, nothing changed).
 * Choices come from a seeded generator, so a seed names the same requests on every run.
 */
import { createApiDescription, getAtPointer, type ApiDescription, type OperationInfo } from '@restoapi/openapi';
import { controlDocument } from '../../src/generated/control-document.js';

/** What is wrong with a request. */
export type Defect = 'encoding' | 'id' | 'type' | 'huge' | 'deep' | 'utf8' | 'content-type' | 'token';
/** Every {@link Defect}, in the order the generator draws from. */
export const DEFECTS: readonly Defect[] = ['encoding', 'id', 'type', 'huge', 'deep', 'utf8', 'content-type', 'token'];
// Large bodies cost the most to send and parse, and one in twenty is enough to find what they find.
const WEIGHTED: readonly Defect[] = DEFECTS.flatMap((d) => (d === 'huge' || d === 'deep' ? [d] : [d, d, d]));

// The large bodies are made once: building them per request cost more than sending them.
const memo = new Map<string, Buffer>();
const big = (key: string, make: () => string): Buffer => {
  let made = memo.get(key);
  if (!made) memo.set(key, (made = Buffer.from(make())));
  return made;
};

/** Who sends a request: a role's token, no token, or a bogus one. */
export type Role = 'anonymous' | 'dispatcher' | 'staff' | 'courier' | 'bogus';
/** Every {@link Role}. */
export const ROLES: readonly Role[] = ['anonymous', 'dispatcher', 'staff', 'courier', 'bogus'];

/** One request to send, with what makes it hostile. */
export interface HostileRequest {
  method: string;
  /** Path and query exactly as sent (already percent-encoded, or deliberately not well-formed). */
  target: string;
  headers: Record<string, string>;
  body?: Buffer;
  operationId: string;
  defect: Defect;
  role: Role;
  /** What the defect is, in a few words (shown with a failure). */
  detail: string;
}

/** Mulberry32: a small seeded generator; the fuzz needs reproducible choices, not statistical quality. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const MALFORMED = ['%E0', '%', '%zz', '%C3%28', '%ED%A0%80', '%F8%88%80%80%80', '%E2%82', '1%', '%%31'];
const HOSTILE_IDS = [
  '0x1',
  '+1',
  '%2B1',
  '01',
  '%201',
  '1%20',
  '%091',
  '1e3',
  '1E0',
  '1.0',
  '-0',
  '0',
  '-1',
  '99999999999999999999',
  '9007199254740992',
  'NaN',
  'Infinity',
  'null',
  'true',
  '%EF%BC%91',
  '0b1',
  '1_0',
  '5001abc',
];
const WRONG_VALUES: unknown[] = ['x', 12345, -1.5, true, null, [], {}, [1, 'a'], { nested: { deep: [] } }];
const FOREIGN_TYPES = [
  'text/plain',
  'application/xml',
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'application/jsonx',
  'image/png',
  'a/b/c',
  '',
];
const BASE_IDS = [1, 2, 11, 12, 101, 501, 1001, 5001, 5002, 10001];

type Rng = () => number;
const pick = <T>(rng: Rng, list: readonly T[]): T => list[Math.floor(rng() * list.length)]!;

/** The tokens a role sends; bogus ones are drawn per request. */
export interface Tokens {
  dispatcher: string;
  staff: string;
  courier: string;
  /** A real token whose session was ended (`DELETE /api/session`). */
  ended: string;
}

interface Target {
  op: OperationInfo;
  api: ApiDescription;
}

/** Every operation the fuzz reaches: the service's API (main and carrier) and the control API. */
export function fuzzTargets(): Target[] {
  const main = createApiDescription();
  const control = createApiDescription({ document: controlDocument });
  return [
    ...main.operations.filter((op) => op.kind === 'paths').map((op) => ({ op, api: main })),
    ...control.operations.map((op) => ({ op, api: control })),
  ];
}

function schemaAt(api: ApiDescription, pointer: string): Record<string, unknown> {
  let node = getAtPointer(api.document, pointer) as Record<string, unknown> | undefined;
  for (let hops = 0; typeof node?.$ref === 'string' && hops < 10; hops += 1)
    node = getAtPointer(api.document, (node.$ref as string).replace(/^#/, '')) as Record<string, unknown>;
  return node ?? {};
}

const typesOf = (schema: Record<string, unknown>): unknown[] =>
  Array.isArray(schema.type) ? schema.type : [schema.type];

/** A value of a parameter that its schema accepts (the baseline the defect is added to). */
function validValue(api: ApiDescription, pointer: string, rng: Rng): string {
  const schema = schemaAt(api, pointer);
  const types = typesOf(schema);
  if (Array.isArray(schema.enum)) return String(schema.enum[0]);
  if (types.includes('array')) {
    const items = schema.items as { $ref?: string } | undefined;
    return items?.$ref ? validValue(api, items.$ref.replace(/^#/, ''), rng) : '1';
  }
  if (types.includes('integer')) return String(pick(rng, BASE_IDS));
  if (types.includes('boolean')) return 'false';
  return 'abc123';
}

/** A value no parameter of this schema accepts, or undefined when any string passes. */
function invalidValue(api: ApiDescription, pointer: string, rng: Rng): string | undefined {
  const schema = schemaAt(api, pointer);
  const types = typesOf(schema);
  if (Array.isArray(schema.enum)) return pick(rng, ['not_a_value', 'PENDING', '', '%E0']);
  if (types.includes('array')) {
    const items = schema.items as { $ref?: string } | undefined;
    return items?.$ref ? invalidValue(api, items.$ref.replace(/^#/, ''), rng) : undefined;
  }
  if (types.includes('integer') || types.includes('number')) return pick(rng, ['abc', '', '1,5', '[1]', '{}']);
  if (types.includes('boolean')) return pick(rng, ['maybe', 'TRUE', '1', 'yes', '']);
  if (typeof schema.minLength === 'number' && schema.minLength > 0) return '';
  return undefined;
}

function firstJsonExample(api: ApiDescription, op: OperationInfo): unknown {
  const pointer = op.requestBody?.content['application/json'];
  if (!pointer) return undefined;
  const media = getAtPointer(api.document, pointer.replace(/\/schema$/, '')) as {
    examples?: Record<string, { value?: unknown }>;
    example?: unknown;
  };
  const first = media.examples ? Object.values(media.examples)[0]?.value : media.example;
  return first ?? {};
}

/** Every JSON Pointer inside a value, the root excluded. */
function pointersOf(value: unknown, at = ''): string[] {
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, child]) => {
    const here = `${at}/${key}`;
    return [here, ...pointersOf(child, here)];
  });
}

function replaceAt(value: unknown, pointer: string, replacement: unknown): unknown {
  const copy = structuredClone(value) as Record<string, unknown>;
  const keys = pointer.split('/').slice(1);
  let node = copy;
  for (const key of keys.slice(0, -1)) node = node[key] as Record<string, unknown>;
  node[keys.at(-1)!] = replacement;
  return copy;
}

/** A JSON body the operation's schema refuses: the example with one value of the wrong type. */
function wrongTypeBody(target: Target, rng: Rng, params: Record<string, string>): unknown {
  const example = firstJsonExample(target.api, target.op);
  const pointers = pointersOf(example);
  for (let attempt = 0; attempt < 12; attempt += 1) {
    const candidate =
      pointers.length > 0 && attempt < 10
        ? replaceAt(example, pick(rng, pointers), pick(rng, WRONG_VALUES))
        : pick(rng, [[], 'text', 42, null, [example]]);
    const result = target.api.validateRequest(target.op.operationId, {
      params,
      contentType: 'application/json',
      body: candidate,
    });
    if (!result.valid && result.issues.some((issue) => issue.in === 'body')) return candidate;
  }
  return undefined;
}

function bogusAuthorization(rng: Rng, tokens: Tokens): { header?: string; query?: string } {
  switch (Math.floor(rng() * 8)) {
    case 0:
      return { header: `Token token="${'A'.repeat(43)}"` };
    case 1:
      return { header: 'Token token=""' };
    case 2:
      return { header: `Bearer ${tokens.staff}` };
    case 3:
      return { header: `Token token="${tokens.ended}"` };
    case 4:
      return { header: `Token token="${tokens.dispatcher}x"` };
    case 5:
      return { header: `Token token="${'z'.repeat(6000)}"` };
    case 6:
      return { query: `token=${pick(rng, ['%E0', 'bogus', '', tokens.ended])}` };
    default:
      return { header: `Token ${'\u00ff'.repeat(3)}` };
  }
}

function nested(depth: number, open: string, close: string): string {
  return open.repeat(depth) + close.repeat(depth);
}

/**
 * Draws one hostile request: an operation, a route, a role and a defect, then a baseline the operation
 * would accept with the defect added. A defect that the operation cannot carry (no integer parameter for
 * `id`, no session for `token`) becomes a malformed encoding, which every operation can carry.
 */
export function hostileRequest(
  rng: Rng,
  targets: readonly Target[],
  tokens: Tokens,
  maxBodyBytes: number,
): HostileRequest {
  const target = pick(rng, targets);
  const { op, api } = target;
  let defect = pick(rng, WEIGHTED);
  let role = pick(rng, ROLES);
  const method = op.method.toUpperCase();
  const route = pick(rng, op.routes);
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const queryParams = op.parameters.filter((p) => p.in === 'query');
  const params: Record<string, string> = {};
  const rawPath: Record<string, string> = {};
  for (const p of pathParams) params[p.name] = rawPath[p.name] = validValue(api, p.schemaPointer, rng);
  const query: [string, string][] = queryParams
    .filter((p) => p.required)
    .map((p) => [p.name, validValue(api, p.schemaPointer, rng)]);
  const headers: Record<string, string> = {};
  let body: Buffer | undefined;
  let detail = '';
  const jsonBody = (value: unknown): void => {
    body = Buffer.from(JSON.stringify(value));
    headers['Content-Type'] = 'application/json';
  };
  const acceptsJson = op.requestBody?.content['application/json'] !== undefined;
  const integerParams = [...pathParams, ...queryParams].filter((p) => {
    const schema = schemaAt(api, p.schemaPointer);
    const items = schema.items as { $ref?: string } | undefined;
    const inner =
      typesOf(schema).includes('array') && items?.$ref ? schemaAt(api, items.$ref.replace(/^#/, '')) : schema;
    return typesOf(inner).includes('integer');
  });
  const setParam = (name: string, location: string, value: string): void => {
    if (location === 'path') rawPath[name] = value;
    else {
      const index = query.findIndex(([key]) => key === name);
      if (index >= 0) query[index] = [name, value];
      else query.push([name, value]);
    }
  };

  if (defect === 'token' && !op.authenticated) defect = 'encoding';
  if (defect === 'token') role = 'bogus';
  if (defect === 'id' && integerParams.length === 0) defect = 'encoding';
  if (defect === 'type') {
    const candidates = [...pathParams, ...queryParams]
      .map((p) => ({ p, value: invalidValue(api, p.schemaPointer, rng) }))
      .filter((c): c is { p: (typeof pathParams)[number]; value: string } => c.value !== undefined)
      .filter((c) => !(c.p.in === 'path' && c.value === ''));
    const wrong = acceptsJson && rng() < 0.6 ? wrongTypeBody(target, rng, params) : undefined;
    if (wrong !== undefined) {
      jsonBody(wrong);
      detail = 'body value of the wrong type';
    } else if (candidates.length > 0) {
      const { p, value } = pick(rng, candidates);
      setParam(p.name, p.in, encodeURIComponent(value));
      detail = `${p.in} ${p.name}=${JSON.stringify(value)}`;
    } else defect = 'encoding';
  }

  switch (defect) {
    case 'encoding': {
      const bad = pick(rng, MALFORMED);
      const inPath = pathParams.length > 0 && rng() < 0.6;
      const name = inPath ? pick(rng, pathParams).name : pick(rng, [...queryParams.map((p) => p.name), 'q', '%E0']);
      setParam(name, inPath ? 'path' : 'query', bad);
      detail = `${inPath ? 'path' : 'query'} ${name}=${bad}`;
      break;
    }
    case 'id': {
      const p = pick(rng, integerParams);
      const value = pick(rng, HOSTILE_IDS);
      setParam(p.name, p.in, value);
      detail = `${p.in} ${p.name}=${value}`;
      break;
    }
    case 'huge': {
      const variant = Math.floor(rng() * 4);
      if (variant === 0 && rng() < 0.15) {
        body = big(`over ${maxBodyBytes}`, () => ' '.repeat(maxBodyBytes + 1));
        headers['Content-Type'] = Object.keys(op.requestBody?.content ?? {})[0] ?? 'application/json';
        detail = `body of ${maxBodyBytes + 1} bytes`;
      } else if (variant <= 1 && (integerParams.length > 0 || pathParams.length > 0)) {
        const p = integerParams.length > 0 ? pick(rng, integerParams) : pick(rng, pathParams);
        setParam(p.name, p.in, '9'.repeat(4000));
        detail = `${p.in} ${p.name} of 4000 digits`;
      } else if (variant === 2 || !acceptsJson) {
        body = big('array', () => `[${'1,'.repeat(50_000)}1]`);
        headers['Content-Type'] = 'application/json';
        detail = 'a JSON array of 50001 numbers';
      } else {
        const wrong = wrongTypeBody(target, rng, params) ?? [];
        jsonBody({ ...(typeof wrong === 'object' && wrong !== null ? wrong : {}), padding: 'x'.repeat(250_000) });
        const check = api.validateRequest(op.operationId, {
          params,
          contentType: 'application/json',
          body: JSON.parse(body!.toString()),
        });
        if (check.valid) body = big('strings', () => `[${'"x",'.repeat(50_000)}"x"]`);
        detail = 'a JSON body of 250 kB with a wrong field';
      }
      break;
    }
    case 'deep': {
      const depth = pick(rng, [1_000, 20_000, 100_000]);
      const arrays = rng() < 0.5;
      body = big(`${arrays} ${depth}`, () =>
        arrays ? nested(depth, '[', ']') : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`,
      );
      headers['Content-Type'] = 'application/json';
      detail = `JSON nested ${depth} deep`;
      break;
    }
    case 'utf8': {
      const form = op.requestBody?.content['application/x-www-form-urlencoded'] !== undefined && rng() < 0.5;
      const bad = pick(rng, [[0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xe2, 0x82]]);
      body = form
        ? Buffer.concat([Buffer.from('login='), Buffer.from(bad), Buffer.from('&password=demo')])
        : Buffer.concat([Buffer.from('{"name":"'), Buffer.from(bad), Buffer.from('"}')]);
      headers['Content-Type'] = form ? 'application/x-www-form-urlencoded' : 'application/json';
      detail = `non-UTF-8 bytes ${Buffer.from(bad).toString('hex')} in a ${form ? 'form' : 'JSON'} body`;
      break;
    }
    case 'content-type': {
      const accepted = Object.keys(op.requestBody?.content ?? {});
      const type = pick(
        rng,
        FOREIGN_TYPES.filter((t) => !accepted.includes(t)),
      );
      body = Buffer.from(JSON.stringify(firstJsonExample(api, op) ?? { name: 'x' }));
      if (type !== '') headers['Content-Type'] = type;
      detail = `body sent as ${type || '(no Content-Type)'}`;
      break;
    }
    case 'token':
    case 'type':
      break;
  }

  // The defect comes with an otherwise acceptable body, so it alone must stop the request.
  if (body === undefined && acceptsJson && (defect === 'encoding' || defect === 'id' || defect === 'token'))
    jsonBody(firstJsonExample(api, op));
  if (defect === 'token') detail ||= 'bogus token';
  let authQuery: string | undefined;
  if (role === 'bogus') {
    const bogus = bogusAuthorization(rng, tokens);
    if (bogus.header !== undefined) headers.Authorization = bogus.header;
    authQuery = bogus.query;
  } else if (role !== 'anonymous') {
    if (rng() < 0.1) authQuery = `token=${tokens[role]}`;
    else headers.Authorization = `Token token="${tokens[role]}"`;
  }
  const path = route.replace(/\{([^}]+)\}/g, (_, name: string) => rawPath[name] ?? '1');
  const pairs = query.map(([key, value]) => `${key}=${value}`);
  if (authQuery) pairs.push(authQuery);
  return {
    method,
    target: pairs.length > 0 ? `${path}?${pairs.join('&')}` : path,
    headers,
    ...(body !== undefined ? { body } : {}),
    operationId: op.operationId,
    defect,
    role,
    detail,
  };
}

/** A shell line that sends the request again with curl (a large body is described, not printed). */
export function curlLine(baseUrl: string, request: HostileRequest): string {
  // Long runs of one character (a 4000-digit id) are written as the shell's printf of that run.
  const quote = (text: string): string =>
    `'${text.replace(/'/g, `'\\''`).replace(/([^'\\%])\1{49,}/g, (run, char: string) => `'"$(printf '${char}%.0s' {1..${run.length}})"'`)}'`;
  const parts = ['curl', '-sS', '-i', '--path-as-is', '-X', request.method, quote(`${baseUrl}${request.target}`)];
  for (const [name, value] of Object.entries(request.headers))
    parts.push('-H', quote(`${name}: ${value.length > 200 ? `${value.slice(0, 200)}…` : value}`));
  if (request.body) {
    const text = request.body.toString('utf8');
    if (request.body.length <= 2000 && Buffer.from(text).equals(request.body)) parts.push('--data-binary', quote(text));
    else parts.push('--data-binary', `@body.bin  # ${request.body.length} bytes: ${request.detail}`);
  }
  return parts.join(' ');
}
