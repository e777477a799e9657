import type { Ajv2020, ErrorObject, ValidateFunction } from 'ajv/dist/2020.js';
import { createAjv, describeAjvError } from './ajv.js';
import { openapiDocument } from './generated/document.js';
import { mediaTypeOf } from './media-type.js';
import {
  escapePointer,
  getAtPointer,
  listOperations,
  Router,
  type OperationInfo,
  type ParameterInfo,
  type RouteMatch,
} from './operations.js';
import {
  nonCanonical,
  nonCanonicalKeyword,
  parameterSyntax,
  parseQueryStrict,
  type ParameterSyntax,
} from './strict-parameters.js';

const DOCUMENT_ID = 'openapi.json';

/** Where a validation problem was found. */
export type IssueLocation = 'path' | 'query' | 'header' | 'body';

/** One readable validation problem. */
export interface ValidationIssue {
  in: IssueLocation;
  /** JSON Pointer into the body (for `body`), or `/<name>` for parameters. */
  pointer: string;
  /** Parameter or header name, for `path`, `query` and `header` issues. */
  name?: string;
  /** The JSON Schema keyword that failed (`required`, `type`, `enum`, `additionalProperties`, …). */
  keyword: string;
  /** Human-readable sentence naming the field. */
  message: string;
  /** The keyword's parameters, e.g. `{ allowedValues }` for `enum`. */
  params?: Record<string, unknown>;
}

/** The outcome of a validation: either valid, or the list of problems. */
export type ValidationResult<T = undefined> = { valid: true; value: T } | { valid: false; issues: ValidationIssue[] };

/** A request as seen by the validator. Body must already be parsed (JSON) or be a FormData/Blob. */
export interface RequestInput {
  params?: Record<string, string>;
  /** Path parameters whose percent-encoding is malformed ({@link RouteMatch}'s `malformed`): each is refused by name. */
  malformed?: readonly string[];
  /**
   * The query: parsed, or the raw query string (`url.search`), which is decoded strictly so that a malformed
   * percent-encoding is refused by name instead of read as U+FFFD.
   */
  query?: string | URLSearchParams | Record<string, string | string[] | undefined>;
  /** `Headers`, anything with its `get` (case-insensitive lookup), or a plain record. */
  headers?: Headers | { get(name: string): string | null } | Record<string, string | undefined>;
  /** The request's media type (`Content-Type` without parameters); absent when there is no body. */
  contentType?: string | null;
  body?: unknown;
}

/** Path and query parameters after coercion to their schema types, with defaults applied. */
export interface CoercedParameters {
  params: Record<string, unknown>;
  query: Record<string, unknown>;
}

/** A response as seen by the validator. Body must already be parsed when JSON. */
export interface ResponseInput {
  status: number;
  contentType?: string | null;
  body?: unknown;
  headers?: Headers | Record<string, string | undefined>;
}

/** Options of {@link createApiDescription}. */
export interface ApiDescriptionOptions {
  /** Another bundled document (for example a faulty variant in tests); defaults to this package's. */
  document?: Record<string, unknown>;
}

/** One OpenAPI document made usable: its operations, a router over them and validators for their messages. */
export interface ApiDescription {
  readonly document: Record<string, unknown>;
  readonly operations: readonly OperationInfo[];
  /** Looks an operation up by `operationId`; throws for unknown ids. */
  operation(operationId: string): OperationInfo;
  /** Finds the operation a method and path reach (server prefixes and `x-aliases` included). */
  match(method: string, pathname: string): RouteMatch | undefined;
  /** Methods served at a path, for `405 Method Not Allowed`. */
  allowedMethods(pathname: string): string[];
  /** Checks parameters and body of a request against an operation; returns coerced parameters. */
  validateRequest(operationId: string, request: RequestInput): ValidationResult<CoercedParameters>;
  /** Checks status, media type and body of a response against an operation. */
  validateResponse(operationId: string, response: ResponseInput): ValidationResult;
  /** Checks a value against a component schema, e.g. `validateSchema('MenuImport', body)`. */
  validateSchema(name: string, value: unknown): ValidationResult;
  /** Checks a value against the schema at a JSON Pointer of the document. */
  validateAt(pointer: string, value: unknown): ValidationResult;
}

/** The `default` of the schema at a pointer, following `$ref`s. */
function defaultOf(document: unknown, pointer: string): unknown {
  let schema = getAtPointer(document, pointer) as { $ref?: string; default?: unknown } | undefined;
  for (let hops = 0; schema?.$ref && schema.default === undefined && hops < 10; hops += 1) {
    schema = getAtPointer(document, schema.$ref.replace(/^#/, '')) as typeof schema;
  }
  return schema?.default;
}

function headerValue(headers: RequestInput['headers'], name: string): string | undefined {
  if (!headers) return undefined;
  if (typeof (headers as Headers).get === 'function')
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  const record = headers as Record<string, string | undefined>;
  const key = Object.keys(record).find((k) => k.toLowerCase() === name.toLowerCase());
  return key ? record[key] : undefined;
}

/**
 * The path or query parameters of an operation as one object schema, each parameter a `$ref` into the
 * document registered under `documentId`: what `validateRequest` checks (ajv with `coerceTypes: 'array'`
 * and `useDefaults`), and what code generated ahead of time (for runtimes without `eval`) compiles too.
 */
export function parameterSchema(
  document: unknown,
  op: OperationInfo,
  location: 'path' | 'query',
  documentId: string,
): { type: 'object'; properties: Record<string, object>; required: string[] } {
  const params = op.parameters.filter((p) => p.in === location);
  return {
    type: 'object',
    // ajv applies `default` only where the property is declared, not behind a $ref, so lift it here.
    properties: Object.fromEntries(
      params.map((p) => {
        const fallback = defaultOf(document, p.schemaPointer);
        return [
          p.name,
          { $ref: `${documentId}#${p.schemaPointer}`, ...(fallback === undefined ? {} : { default: fallback }) },
        ];
      }),
    ),
    required: params.filter((p) => p.required).map((p) => p.name),
  };
}

/** ajv's errors as {@link ValidationIssue}s of one location, each with a sentence naming the field. */
export function issuesOf(errors: ErrorObject[] | null | undefined, location: IssueLocation): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors ?? []) {
    let pointer = error.instancePath;
    if (error.keyword === 'required') pointer += `/${escapePointer(String(error.params.missingProperty))}`;
    if (error.keyword === 'additionalProperties')
      pointer += `/${escapePointer(String(error.params.additionalProperty))}`;
    const key = `${pointer}|${error.keyword}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const issue: ValidationIssue = {
      in: location,
      pointer,
      keyword: error.keyword,
      message: describeAjvError(error, location === 'body' ? pointer : (pointer.split('/')[1] ?? pointer)),
      params: error.params as Record<string, unknown>,
    };
    if (location !== 'body') issue.name = pointer.split('/')[1]?.replace(/~1/g, '/').replace(/~0/g, '~');
    issues.push(issue);
  }
  // Branch errors of oneOf/anyOf repeat the specific ones; keep the specific ones when there are any.
  const specific = issues.filter((issue) => !['oneOf', 'anyOf', 'if', 'not'].includes(issue.keyword));
  if (specific.length === 0) return issues;
  // A value that fails a keyword of one type (a pattern, a minimum, a member) at or below its place had the type of
  // the branch that checked it: the type errors of the other branches there (`must be null` beside a weight's
  // pattern) are not what is wrong with it. `enum` and `const` judge any type, so they prove nothing.
  const fitsABranch = (issue: ValidationIssue): boolean =>
    specific.some(
      (other) =>
        !['type', 'enum', 'const'].includes(other.keyword) &&
        (other.pointer === issue.pointer || other.pointer.startsWith(`${issue.pointer}/`)),
    );
  return specific.filter((issue) => issue.keyword !== 'type' || !fitsABranch(issue));
}

function parameterIssue(location: 'path' | 'query', name: string, keyword: string, problem: string): ValidationIssue {
  return { in: location, pointer: `/${escapePointer(name)}`, name, keyword, message: `${name} ${problem}` };
}

/** The items of a list parameter's values (`a,b` and repeated names alike), empty items left out. */
function splitList(values: readonly string[]): string[] {
  const items: string[] = [];
  for (const value of values) for (const item of value.split(',')) if (item !== '') items.push(item);
  return items;
}

/** Refuses a parameter (each item of an array one) not written in the canonical form of its type. */
function checkSyntax(
  location: 'path' | 'query',
  name: string,
  syntax: ParameterSyntax,
  value: unknown,
  issues: ValidationIssue[],
  refused: Set<string>,
): void {
  if (syntax === 'text' || value === undefined || refused.has(name)) return;
  for (const text of Array.isArray(value) ? value : [value]) {
    const problem = typeof text === 'string' ? nonCanonical(syntax, text) : undefined;
    if (problem === undefined) continue;
    refused.add(name);
    issues.push(parameterIssue(location, name, nonCanonicalKeyword(syntax, text), problem));
    return;
  }
}

/** Whether a media type is JSON: `application/json` or a structured `+json` type (RFC 6839). */
function isJsonMedia(mediaType: string | undefined): boolean {
  return !!mediaType && (mediaType.toLowerCase() === 'application/json' || mediaType.toLowerCase().endsWith('+json'));
}

function matchMedia<T>(content: Record<string, T>, mediaType: string | undefined): [string, T] | undefined {
  if (!mediaType) return undefined;
  for (const [key, value] of Object.entries(content)) {
    if (key.toLowerCase() === mediaType) return [key, value];
  }
  const [type] = mediaType.split('/');
  for (const [key, value] of Object.entries(content)) {
    if (key === '*/*' || key === `${type}/*`) return [key, value];
  }
  return undefined;
}

/**
 * Compiles validators and a router from the bundled OpenAPI document.
 * Schemas compile lazily per operation and are cached; calls with the same document object share one
 * description, so a process that runs the contract suite, a mock or a checker many times compiles each
 * validator once (ajv's compiling was 15% of the CPU of the contract tests' harness runs).
 * @example
 * const api = createApiDescription();
 * const result = api.validateRequest('createDraftDish', { contentType: 'application/json', body });
 * if (!result.valid) console.log(result.issues[0].pointer); // "/draft_dish/name"
 */
export function createApiDescription(options: ApiDescriptionOptions = {}): ApiDescription {
  const document = options.document ?? openapiDocument;
  let description = descriptions.get(document);
  if (!description) descriptions.set(document, (description = describe(document)));
  return description;
}

/** The description of each document object made so far (a validator holds no state between calls). */
const descriptions = new WeakMap<object, ApiDescription>();

function describe(document: Record<string, unknown>): ApiDescription {
  const operations = listOperations(document);
  const byId = new Map(operations.map((op) => [op.operationId, op]));
  const router = new Router(operations);

  const makeAjv = (coerce: boolean): Ajv2020 => {
    const ajv = createAjv(coerce ? { coerceTypes: 'array', useDefaults: true } : {});
    ajv.addSchema(document as object, DOCUMENT_ID);
    return ajv;
  };
  const bodyAjv = makeAjv(false);
  const paramAjv = makeAjv(true);
  const cache = new Map<string, ValidateFunction>();

  const compileRef = (ajv: Ajv2020, pointer: string, key: string): ValidateFunction => {
    const cached = cache.get(key);
    if (cached) return cached;
    const fn = ajv.compile({ $ref: `${DOCUMENT_ID}#${pointer}` });
    cache.set(key, fn);
    return fn;
  };

  const parameterValidator = (op: OperationInfo, location: 'path' | 'query'): ValidateFunction => {
    const key = `${op.operationId}|${location}`;
    const cached = cache.get(key);
    if (cached) return cached;
    const fn = paramAjv.compile(parameterSchema(document, op, location, DOCUMENT_ID));
    cache.set(key, fn);
    return fn;
  };

  const operation = (operationId: string): OperationInfo => {
    const op = byId.get(operationId);
    if (!op) throw new Error(`Unknown operationId ${operationId}`);
    return op;
  };

  const isArrayParam = (param: ParameterInfo): boolean => {
    const schema = paramAjv.getSchema(`${DOCUMENT_ID}#${param.schemaPointer}`)?.schema as
      { type?: unknown } | undefined;
    return schema?.type === 'array' || (Array.isArray(schema?.type) && schema.type.includes('array'));
  };

  /**
   * What `validateRequest` needs of an operation besides the request itself: its compiled parameter
   * checks, which query parameters are arrays (a schema lookup) and its header parameters. Worked out on
   * the operation's first request and kept, instead of on every request.
   */
  interface RequestPlan {
    pathCheck: ValidateFunction;
    queryCheck: ValidateFunction;
    /** Declared path parameters that must be written as canonical numbers. */
    pathSyntax: { name: string; syntax: ParameterSyntax }[];
    /** Declared query parameters, in order. */
    query: { name: string; array: boolean; syntax: ParameterSyntax }[];
    /** Query key → the parameters it feeds (index in `query`, and whether as `name[]`); a key can feed two. */
    queryKeys: Map<string, { index: number; bracketed: boolean }[]>;
    headers: ParameterInfo[];
    /** Whether the operation declares path (query) parameters: without any, their ajv check can only pass. */
    pathDeclared: boolean;
    queryDeclared: boolean;
    /** The body check of each media type sent so far (`null`: not accepted), found once per media type. */
    bodyChecks: Map<string, { check: ValidateFunction | undefined } | null>;
  }
  const plans = new Map<string, RequestPlan>();
  const planOf = (op: OperationInfo): RequestPlan => {
    const known = plans.get(op.operationId);
    if (known) return known;
    const pathCheck = parameterValidator(op, 'path');
    const resolve = (ref: string): unknown => getAtPointer(document, ref.replace(/^#/, ''));
    const syntaxOf = (p: ParameterInfo): ParameterSyntax =>
      parameterSyntax(getAtPointer(document, p.schemaPointer), resolve);
    const pathSyntax = op.parameters
      .filter((p) => p.in === 'path')
      .map((p) => ({ name: p.name, syntax: syntaxOf(p) }))
      .filter((p) => p.syntax !== 'text');
    const query = op.parameters
      .filter((p) => p.in === 'query')
      .map((p) => ({ name: p.name, array: isArrayParam(p), syntax: syntaxOf(p) }));
    const queryKeys = new Map<string, { index: number; bracketed: boolean }[]>();
    const feed = (key: string, index: number, bracketed: boolean): void => {
      const targets = queryKeys.get(key) ?? [];
      targets.push({ index, bracketed });
      queryKeys.set(key, targets);
    };
    query.forEach(({ name }, index) => {
      feed(name, index, false);
      feed(`${name}[]`, index, true);
    });
    const plan: RequestPlan = {
      pathCheck,
      pathSyntax,
      queryCheck: parameterValidator(op, 'query'),
      query,
      queryKeys,
      headers: op.parameters.filter((p) => p.in === 'header'),
      pathDeclared: op.parameters.some((p) => p.in === 'path'),
      queryDeclared: query.length > 0,
      bodyChecks: new Map(),
    };
    plans.set(op.operationId, plan);
    return plan;
  };

  /** The body check of a media type for an operation (`undefined` when its schema is not given), or `null` when the type is not accepted. */
  const bodyCheckOf = (
    plan: RequestPlan,
    op: OperationInfo,
    mediaType: string,
  ): { check: ValidateFunction | undefined } | null => {
    const known = plan.bodyChecks.get(mediaType);
    if (known !== undefined) return known;
    const found = matchMedia(op.requestBody!.content, mediaType);
    let entry: { check: ValidateFunction | undefined } | null = null;
    if (found) {
      // Form fields arrive as strings, so forms validate with coercion; JSON must match exactly.
      const isJson = found[0] === 'application/json' || found[0].endsWith('+json');
      entry = {
        check: found[1]
          ? compileRef(isJson ? bodyAjv : paramAjv, found[1], `body|${op.operationId}|${found[0]}`)
          : undefined,
      };
    }
    // Media types come from the caller's header: only so many are remembered, the rest looked up each time.
    if (plan.bodyChecks.size < 16) plan.bodyChecks.set(mediaType, entry);
    return entry;
  };

  const readQuery = (
    plan: RequestPlan,
    given: RequestInput['query'],
    issues: ValidationIssue[],
    refused: Set<string>,
  ): Record<string, unknown> => {
    const out: Record<string, unknown> = {};
    let query = given;
    if (typeof query === 'string') {
      const strict = parseQueryStrict(query);
      for (const name of strict.malformed) {
        refused.add(name);
        issues.push(parameterIssue('query', name, 'encoding', 'is not valid percent-encoded UTF-8'));
      }
      query = strict.params;
    }
    if (!query || plan.query.length === 0) return out;
    if (query instanceof URLSearchParams) {
      // One pass over the query: each declared parameter takes its `name` values, then its `name[]` values.
      const plain: (string[] | undefined)[] = [];
      const bracketed: (string[] | undefined)[] = [];
      for (const [key, value] of query) {
        for (const target of plan.queryKeys.get(key) ?? []) {
          const lists = target.bracketed ? bracketed : plain;
          (lists[target.index] ??= []).push(value);
        }
      }
      // A loop, not a `forEach` callback: a closure made on every request with a query.
      for (let index = 0; index < plan.query.length; index++) {
        const param = plan.query[index]!;
        const values = [...(plain[index] ?? []), ...(bracketed[index] ?? [])];
        if (values.length === 0) continue;
        out[param.name] = param.array ? splitList(values) : values[0];
      }
      return out;
    }
    for (const param of plan.query) {
      const value = query[param.name];
      if (value !== undefined) out[param.name] = value;
    }
    return out;
  };

  return {
    document,
    operations,
    operation,
    match: (method, pathname) => router.match(method, pathname),
    allowedMethods: (pathname) => router.allowedMethods(pathname),

    validateRequest(operationId, request) {
      const op = operation(operationId);
      const plan = planOf(op);
      const issues: ValidationIssue[] = [];
      const params: Record<string, unknown> = { ...(request.params ?? {}) };
      const { pathCheck, queryCheck } = plan;
      // Parameters refused here are left out of the schema checks, which would only repeat the refusal.
      const refused = new Set<string>();
      for (const name of request.malformed ?? []) {
        refused.add(name);
        issues.push(parameterIssue('path', name, 'encoding', 'is not valid percent-encoded UTF-8'));
      }
      for (const { name, syntax } of plan.pathSyntax) checkSyntax('path', name, syntax, params[name], issues, refused);
      if (plan.pathDeclared && !pathCheck(params))
        issues.push(...issuesOf(pathCheck.errors, 'path').filter((i) => !refused.has(i.name!)));
      const query = readQuery(plan, request.query, issues, refused);
      for (const { name, syntax } of plan.query) checkSyntax('query', name, syntax, query[name], issues, refused);
      if (plan.queryDeclared && !queryCheck(query))
        issues.push(...issuesOf(queryCheck.errors, 'query').filter((i) => !refused.has(i.name!)));
      for (const header of plan.headers) {
        const value = headerValue(request.headers, header.name);
        if (value === undefined) {
          if (header.required) {
            issues.push({
              in: 'header',
              pointer: `/${header.name}`,
              name: header.name,
              keyword: 'required',
              message: `header ${header.name} is required`,
            });
          }
          continue;
        }
        const check = compileRef(paramAjv, header.schemaPointer, `header|${op.operationId}|${header.name}`);
        const holder = { value };
        if (!check(holder.value)) {
          issues.push({
            in: 'header',
            pointer: `/${header.name}`,
            name: header.name,
            keyword: 'type',
            message: `header ${header.name} is invalid`,
          });
        }
      }
      const mediaType = mediaTypeOf(request.contentType);
      if (op.requestBody) {
        if (request.body === undefined || mediaType === undefined) {
          if (op.requestBody.required) {
            issues.push({ in: 'body', pointer: '', keyword: 'required', message: 'a request body is required' });
          }
        } else {
          const body = bodyCheckOf(plan, op, mediaType);
          if (!body) {
            issues.push({
              in: 'header',
              pointer: '/Content-Type',
              name: 'Content-Type',
              keyword: 'contentType',
              message: `Content-Type ${mediaType} is not accepted; use ${Object.keys(op.requestBody.content).join(' or ')}`,
              params: { allowed: Object.keys(op.requestBody.content) },
            });
          } else if (body.check && !body.check(request.body)) issues.push(...issuesOf(body.check.errors, 'body'));
        }
      } else if (request.body !== undefined && request.body !== null && request.body !== '') {
        issues.push({ in: 'body', pointer: '', keyword: 'body', message: 'this operation takes no request body' });
      }
      return issues.length ? { valid: false, issues } : { valid: true, value: { params, query } };
    },

    validateResponse(operationId, response) {
      const op = operation(operationId);
      const status = String(response.status);
      const declared =
        op.responses.find((r) => r.status === status) ??
        op.responses.find((r) => r.status.toUpperCase() === `${status[0]}XX`) ??
        op.responses.find((r) => r.status === 'default');
      if (!declared) {
        return {
          valid: false,
          issues: [
            {
              in: 'body',
              pointer: '',
              keyword: 'status',
              message: `status ${status} is not documented for ${operationId} (documented: ${op.responses.map((r) => r.status).join(', ')})`,
            },
          ],
        };
      }
      const mediaTypes = Object.keys(declared.content);
      const mediaType = mediaTypeOf(response.contentType);
      if (mediaTypes.length === 0) {
        const empty = response.body === undefined || response.body === null || response.body === '';
        return empty
          ? { valid: true, value: undefined }
          : {
              valid: false,
              issues: [
                {
                  in: 'body',
                  pointer: '',
                  keyword: 'body',
                  message: `status ${status} of ${operationId} has no body, but one was sent`,
                },
              ],
            };
      }
      const found = matchMedia(declared.content, mediaType);
      // JSON under another JSON media type (`application/vnd.api+json`) is still checked as the documented JSON.
      const asJson = !found && isJsonMedia(mediaType) ? mediaTypes.find(isJsonMedia) : undefined;
      const issues: ValidationIssue[] = [];
      if (!found)
        issues.push({
          in: 'header',
          pointer: '/Content-Type',
          name: 'Content-Type',
          keyword: 'contentType',
          message: `Content-Type ${mediaType ?? '(none)'} is not documented for ${operationId} ${status} (documented: ${mediaTypes.join(', ')})`,
          ...(asJson ? { params: { json: true } } : {}),
        });
      const [key, ref] = found ?? (asJson ? [asJson, declared.content[asJson]] : []);
      if (key && ref && isJsonMedia(key)) {
        const check = compileRef(bodyAjv, ref, `response|${op.operationId}|${declared.status}|${key}`);
        if (!check(response.body)) issues.push(...issuesOf(check.errors, 'body'));
      }
      return issues.length ? { valid: false, issues } : { valid: true, value: undefined };
    },

    validateSchema(name, value) {
      return this.validateAt(`/components/schemas/${escapePointer(name)}`, value);
    },

    validateAt(pointer, value) {
      const check = compileRef(bodyAjv, pointer, `schema|${pointer}`);
      return check(value)
        ? { valid: true, value: undefined }
        : { valid: false, issues: issuesOf(check.errors, 'body') };
    },
  };
}

/** @deprecated The description also routes: use {@link ApiDescription}. */
export type ApiValidator = ApiDescription;
/** @deprecated Use {@link ApiDescriptionOptions}. */
export type ApiValidatorOptions = ApiDescriptionOptions;
/** @deprecated Use {@link createApiDescription}. */
export const createApiValidator: (options?: ApiDescriptionOptions) => ApiDescription = createApiDescription;
