import { decodeStrict } from './strict-parameters.js';

/** HTTP methods an OpenAPI path item can hold. */
export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'head', 'options', 'trace'] as const;
/** One of {@link HTTP_METHODS}. */
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** A parameter of an operation, with `$ref`s resolved. */
export interface ParameterInfo {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required: boolean;
  /** JSON Pointer of the parameter's schema in the document. */
  schemaPointer: string;
  /** The resolved parameter object. */
  raw: Record<string, unknown>;
}

/** A response of an operation, keyed by status (`200`, `4XX`, `default`), with `$ref`s resolved. */
export interface ResponseInfo {
  status: string;
  /** Media type → JSON Pointer of its schema (absent when the media type has no schema). */
  content: Record<string, string | undefined>;
  /** JSON Pointer of the resolved response object. */
  pointer: string;
  raw: Record<string, unknown>;
}

/** Path prefix of the carrier API's operations: they sit at `{base_url}/api-delivery/…` under the one server. */
export const CARRIER_PATH_PREFIX = '/api-delivery';

/** Everything the toolkit needs to know about one operation of the document. */
export interface OperationInfo {
  operationId: string;
  method: HttpMethod;
  /** Path template as the document writes it, e.g. `/api/orders/{id}`. */
  path: string;
  /** Path prefix contributed by the operation's server (`''` when the server is `{base_url}`, as for every operation here). */
  serverPath: string;
  /** Which API the operation belongs to: the carrier API's paths start with {@link CARRIER_PATH_PREFIX}. */
  api: 'main' | 'carrier';
  /** Full path templates that reach this operation: `serverPath + path` first, then the `x-aliases`. */
  routes: string[];
  /** `paths` for API operations, `webhooks` for callbacks the service sends. */
  kind: 'paths' | 'webhooks';
  tags: string[];
  /** Whether a session token is required. */
  authenticated: boolean;
  parameters: ParameterInfo[];
  /** Media type → JSON Pointer of the request body schema. */
  requestBody?: { required: boolean; content: Record<string, string | undefined> };
  responses: ResponseInfo[];
  /** `x-spec-ref` of the operation. */
  specRef?: string;
  /** `x-decision` of the operation itself, when the whole operation is decided. */
  decision?: string;
  /** JSON Pointer of the operation object. */
  pointer: string;
  raw: Record<string, unknown>;
}

type Doc = Record<string, unknown>;

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Escapes one JSON Pointer segment (RFC 6901). */
export function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Reads the value at a JSON Pointer of the document. */
export function getAtPointer(document: unknown, pointer: string): unknown {
  if (pointer === '' || pointer === '#') return document;
  const segments = pointer.replace(/^#/, '').split('/').slice(1);
  let node: unknown = document;
  for (const raw of segments) {
    const segment = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (Array.isArray(node)) node = node[Number(segment)];
    else if (isRecord(node)) node = node[segment];
    else return undefined;
  }
  return node;
}

/** Follows `$ref` chains of non-schema objects (parameters, responses, request bodies). */
function deref(document: Doc, value: unknown, pointer: string): { value: Record<string, unknown>; pointer: string } {
  let current = value;
  let where = pointer;
  for (let hops = 0; isRecord(current) && typeof current.$ref === 'string'; hops += 1) {
    if (hops > 20) throw new Error(`ref cycle at ${pointer}`);
    where = current.$ref.replace(/^#/, '');
    current = getAtPointer(document, where);
  }
  if (!isRecord(current)) throw new Error(`unresolvable object at ${pointer}`);
  return { value: current, pointer: where };
}

function contentPointers(content: unknown, pointer: string): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  if (!isRecord(content)) return out;
  for (const [mediaType, media] of Object.entries(content)) {
    out[mediaType] =
      isRecord(media) && media.schema !== undefined ? `${pointer}/${escapePointer(mediaType)}/schema` : undefined;
  }
  return out;
}

function serverPrefix(servers: unknown): string | undefined {
  if (!Array.isArray(servers) || servers.length === 0) return undefined;
  const first = servers[0] as { url?: string };
  const url = String(first.url ?? '');
  const path = url.replace(/^\{base_url\}/, '').replace(/^[a-z]+:\/\/[^/]+/i, '');
  return path.replace(/\/$/, '');
}

/** Lists every operation (and webhook) of a bundled document with refs resolved. */
export function listOperations(document: Doc): OperationInfo[] {
  const operations: OperationInfo[] = [];
  const globalSecurity = Array.isArray(document.security) ? document.security : [];
  const rootPrefix = serverPrefix(document.servers) ?? '';
  for (const kind of ['paths', 'webhooks'] as const) {
    const items = isRecord(document[kind]) ? (document[kind] as Record<string, unknown>) : {};
    for (const [path, rawItem] of Object.entries(items)) {
      const itemPointer = `/${kind}/${escapePointer(path)}`;
      const { value: item } = deref(document, rawItem, itemPointer);
      const itemParams = Array.isArray(item.parameters) ? item.parameters : [];
      const aliases = Array.isArray(item['x-aliases']) ? (item['x-aliases'] as string[]) : [];
      for (const method of HTTP_METHODS) {
        const op = item[method];
        if (!isRecord(op)) continue;
        const pointer = `${itemPointer}/${method}`;
        const serverPath = serverPrefix(op.servers) ?? serverPrefix(item.servers) ?? rootPrefix;
        const byKey = new Map<string, ParameterInfo>();
        const collect = (list: unknown[], base: string): void => {
          list.forEach((param, index) => {
            const { value, pointer: at } = deref(document, param, `${base}/${index}`);
            const name = String(value.name);
            const location = value.in as ParameterInfo['in'];
            byKey.set(`${location}:${name}`, {
              name,
              in: location,
              required: value.required === true,
              schemaPointer: `${at}/schema`,
              raw: value,
            });
          });
        };
        collect(itemParams, `${itemPointer}/parameters`);
        collect(Array.isArray(op.parameters) ? op.parameters : [], `${pointer}/parameters`);
        let requestBody: OperationInfo['requestBody'];
        if (op.requestBody !== undefined) {
          const { value, pointer: at } = deref(document, op.requestBody, `${pointer}/requestBody`);
          requestBody = { required: value.required === true, content: contentPointers(value.content, `${at}/content`) };
        }
        const responses: ResponseInfo[] = [];
        for (const [status, response] of Object.entries(isRecord(op.responses) ? op.responses : {})) {
          const { value, pointer: at } = deref(document, response, `${pointer}/responses/${escapePointer(status)}`);
          responses.push({ status, content: contentPointers(value.content, `${at}/content`), pointer: at, raw: value });
        }
        const security = Array.isArray(op.security) ? op.security : globalSecurity;
        operations.push({
          operationId: String(op.operationId ?? `${method} ${path}`),
          method,
          path,
          serverPath: kind === 'webhooks' ? '' : serverPath,
          api: kind === 'paths' && `${serverPath}${path}`.startsWith(`${CARRIER_PATH_PREFIX}/`) ? 'carrier' : 'main',
          routes: kind === 'webhooks' ? [] : [`${serverPath}${path}`, ...aliases],
          kind,
          tags: Array.isArray(op.tags) ? (op.tags as string[]) : [],
          authenticated:
            kind === 'paths' &&
            security.length > 0 &&
            !security.some((s) => isRecord(s) && Object.keys(s).length === 0),
          parameters: [...byKey.values()],
          ...(requestBody ? { requestBody } : {}),
          responses,
          ...(typeof op['x-spec-ref'] === 'string' ? { specRef: op['x-spec-ref'] } : {}),
          ...(typeof op['x-decision'] === 'string' ? { decision: op['x-decision'] } : {}),
          pointer,
          raw: op,
        });
      }
    }
  }
  return operations;
}

/** A compiled route: which operation a concrete method and path reach. */
export interface RouteMatch {
  operation: OperationInfo;
  /** Raw (still string) path parameters, decoded. */
  params: Record<string, string>;
  /**
   * Path parameters whose percent-encoding is malformed (`%E0`, a lone `%`): their text in `params` is left
   * as sent. Pass this list to `validateRequest` (as `malformed`), which refuses each one by name.
   */
  malformed?: string[];
}

interface CompiledRoute {
  operation: OperationInfo;
  regex: RegExp;
  names: string[];
  literalSegments: number;
  segments: number;
}

/**
 * How many segments a route regex (`^/seg/…/seg/?$`, segments non-empty and free of `/`) can see in a
 * path: its slashes, less one for a trailing slash. Only routes with that many segments can match.
 */
function segmentCount(pathname: string): number {
  let slashes = 0;
  for (let i = 0; i < pathname.length; i += 1) if (pathname.charCodeAt(i) === 47) slashes += 1;
  return pathname.endsWith('/') ? slashes - 1 : slashes;
}

/** Matches concrete request paths to operations, static segments before templated ones. */
export class Router {
  private readonly routes: CompiledRoute[] = [];
  private readonly byMethod = new Map<string, CompiledRoute[]>();
  /**
   * The same lists split by segment count, still in priority order, so that a request tries only the
   * few regexes that can match (`GET /api/orders/5001` ran 20 of 29 before). Absent when a template has
   * no segment at all (`/`, whose regex also matches `//`), where the count would not decide.
   */
  private readonly bySegments: Map<string, Map<number, CompiledRoute[]>> | undefined;

  constructor(operations: OperationInfo[]) {
    for (const operation of operations) {
      for (const template of operation.routes) {
        const names: string[] = [];
        const segments = template.split('/').filter(Boolean);
        let literalSegments = 0;
        const pattern = segments
          .map((segment) =>
            segment.replace(/\{([^}]+)\}|[^{]+/g, (part, name?: string) => {
              if (name) {
                names.push(name);
                return '([^/]+)';
              }
              literalSegments += 1;
              return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
            }),
          )
          .join('/');
        this.routes.push({
          operation,
          regex: new RegExp(`^/${pattern}/?$`),
          names,
          literalSegments,
          segments: segments.length,
        });
      }
    }
    this.routes.sort((a, b) => b.literalSegments - a.literalSegments || a.names.length - b.names.length);
    for (const route of this.routes) {
      const list = this.byMethod.get(route.operation.method) ?? [];
      list.push(route);
      this.byMethod.set(route.operation.method, list);
    }
    if (this.routes.every((route) => route.segments > 0)) {
      this.bySegments = new Map();
      for (const [method, list] of this.byMethod) {
        const byCount = new Map<number, CompiledRoute[]>();
        for (const route of list) byCount.set(route.segments, [...(byCount.get(route.segments) ?? []), route]);
        this.bySegments.set(method, byCount);
      }
    }
  }

  /** Finds the operation for a method and a path (without query string). */
  match(method: string, pathname: string): RouteMatch | undefined {
    const lower = method.toLowerCase();
    const candidates = this.bySegments
      ? this.bySegments.get(lower)?.get(segmentCount(pathname))
      : this.byMethod.get(lower);
    for (const route of candidates ?? []) {
      const found = route.regex.exec(pathname);
      if (!found) continue;
      const params: Record<string, string> = {};
      let malformed: string[] | undefined;
      // A loop, not a `forEach` callback: a closure made on every request routed.
      for (let index = 0; index < route.names.length; index++) {
        const name = route.names[index]!;
        const raw = found[index + 1] ?? '';
        const decoded = decodeStrict(raw);
        if (decoded === undefined) (malformed ??= []).push(name);
        params[name] = decoded ?? raw;
      }
      return malformed ? { operation: route.operation, params, malformed } : { operation: route.operation, params };
    }
    return undefined;
  }

  /** Methods that some operation serves at this path (for 405 answers and `Allow`). */
  allowedMethods(pathname: string): string[] {
    const methods = new Set<string>();
    for (const route of this.routes) if (route.regex.test(pathname)) methods.add(route.operation.method.toUpperCase());
    return [...methods];
  }
}
