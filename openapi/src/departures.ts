import { createAjv } from './ajv.js';
import { decisionAnchor } from './decisions.js';
import { mediaTypeOf } from './media-type.js';
import { escapePointer, getAtPointer, type OperationInfo, type ResponseInfo } from './operations.js';
import type { ApiDescription, ResponseInput, ValidationIssue } from './validators.js';

/**
 * Whether a departure from the document breaks what the written spec states, or only what the document
 * decided where the spec says "not shown" (an `x-decision` marker covers it).
 */
export type DepartureBasis = 'stated' | 'decided';

/** The decision a decided departure breaks: its marker's pointer and its entry in DECISIONS.md. */
export interface DecisionRef {
  /** JSON Pointer of the `x-decision` marker in the bundled document (as {@link listDecisions} gives it). */
  pointer: string;
  /** Anchor of the decision's entry in openapi/DECISIONS.md (see `decisionAnchor`). */
  anchor: string;
  /** Link to the entry, relative to the openapi package: `DECISIONS.md#<anchor>`. */
  entry: string;
  /** The decision's first sentence, short enough for one line of a report. */
  summary: string;
}

/** A validation issue of a response, classified as stated or decided. */
export interface ClassifiedIssue extends ValidationIssue {
  basis: DepartureBasis;
  /** For `decided` issues: the innermost decision that covers it. */
  decision?: DecisionRef;
}

/** The outcome of {@link DepartureClassifier.checkResponse}: every issue of the response, classified. */
export interface ClassifiedResponse {
  /** true when the response matches the document completely. */
  valid: boolean;
  issues: ClassifiedIssue[];
  /** Issues that break what the spec states: failures under every profile. */
  stated: ClassifiedIssue[];
  /** Issues that break only decisions: warnings under `spec`, failures under `full`. */
  decided: ClassifiedIssue[];
}

/** Tells stated departures of a response from decided ones, naming the decision. */
export interface DepartureClassifier {
  /** Validates a response (status, media type, body and declared headers) and classifies each issue. */
  checkResponse(operationId: string, response: ResponseInput): ClassifiedResponse;
  /** Classifies one issue of {@link ApiDescription.validateResponse} (or of a header check) for that response. */
  classify(
    operationId: string,
    response: Pick<ResponseInput, 'status' | 'contentType'>,
    issue: ValidationIssue,
  ): ClassifiedIssue;
  /** The decision marker at a pointer, as a {@link DecisionRef}; undefined when there is none. */
  decisionAt(pointer: string): DecisionRef | undefined;
  /**
   * The decision that fixes an operation's answer with `status` (documented or not): for a 4xx always one,
   * since the spec shows no error status; for a 2xx when the success answer is decided.
   */
  statusDecision(operationId: string, status: number): DecisionRef | undefined;
  /**
   * The decision that makes a request invalid, for one issue of {@link ApiDescription.validateRequest}: the
   * innermost marker on the way to the body member or the parameter (an unknown field of a decided body, a
   * value outside a decided enum); undefined when the spec states the rule.
   */
  requestDecision(operationId: string, issue: ValidationIssue): DecisionRef | undefined;
}

/** Keywords about one value (not about the shape around it): stated by the value's own schema wherever it appears. */
const VALUE_KEYWORDS = new Set([
  'type',
  'enum',
  'const',
  'format',
  'pattern',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'minLength',
  'maxLength',
  'multipleOf',
]);

/** The marker of the API-wide decision on error statuses (the spec's Errors: "HTTP status codes … not shown"). */
const ERROR_STATUSES = '/components/schemas/Error/properties/status';
/** The marker of the media type JSON answers carry (`application/json`; the spec does not show it). */
export const JSON_MEDIA_TYPE = '/x-json-media-type';

type Node = Record<string, unknown>;
interface Located {
  node: Node;
  pointer: string;
  /** Reached through a `oneOf`/`anyOf` branch at this instance location (not the node that chose the branches). */
  branch?: boolean;
}

function isRecord(value: unknown): value is Node {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The aspects a marker fixes: `undefined` means everything at and below its node (no `x-decided` list). */
function decidedAspects(node: Node): readonly string[] | undefined {
  const list = node['x-decided'];
  return Array.isArray(list) ? list.map(String) : undefined;
}

/** Whether a marker on `node` covers `aspect` at that node (or, with `below`, anything beneath it). */
function covers(node: Node, aspect: string | undefined): boolean {
  if (typeof node['x-decision'] !== 'string') return false;
  const aspects = decidedAspects(node);
  if (aspects === undefined) return true;
  return aspect !== undefined && aspects.includes(aspect);
}

function firstSentence(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  const end = flat.search(/\.(\s|$)/);
  return end === -1 ? flat : flat.slice(0, end + 1);
}

function unescape(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}

/**
 * Classifies departures from the document by the decided nodes (`x-decision`) on their way: the
 * operation's response, its schema path (through `$ref`, `allOf`, `oneOf`, `anyOf`, `properties` and
 * `items`) and the declared headers. A marker covers everything at and below its node, unless it lists
 * the aspects it fixes in `x-decided` (JSON Schema keywords such as `minimum`; `status`, `body` and
 * `headers` on a response); then only those, at that node. A missing member is decided by a marker on the
 * member as its holder writes it (with no list, or `presence` in it), not by one on the schema it refers to.
 * Everything not covered is stated.
 * @example
 * const classifier = createDepartureClassifier(createApiDescription());
 * const { stated, decided } = classifier.checkResponse('getMenuImport', { status: 200, contentType: 'application/json', body });
 * decided[0]?.decision?.pointer; // "/components/schemas/ImportJobStatus"
 */
export function createDepartureClassifier(description: ApiDescription): DepartureClassifier {
  let classifier = classifiers.get(description);
  if (!classifier) classifiers.set(description, (classifier = classify(description)));
  return classifier;
}

/**
 * The classifier of each description made so far: a new one compiles ajv's meta-schema and the document's header
 * schemas again (half the CPU of a short contract run), and a classifier holds no state between calls.
 */
const classifiers = new WeakMap<ApiDescription, DepartureClassifier>();

function classify(description: ApiDescription): DepartureClassifier {
  const document = description.document;
  const refs = new Map<string, DecisionRef | undefined>();
  const headerAjv = createAjv({ coerceTypes: true });
  headerAjv.addSchema(document as object, 'openapi.json');

  const decisionAt = (pointer: string): DecisionRef | undefined => {
    if (refs.has(pointer)) return refs.get(pointer);
    const node = getAtPointer(document, pointer);
    const why = isRecord(node) ? node['x-decision'] : undefined;
    const ref =
      typeof why === 'string'
        ? {
            pointer,
            anchor: decisionAnchor(pointer),
            entry: `DECISIONS.md#${decisionAnchor(pointer)}`,
            summary: firstSentence(why),
          }
        : undefined;
    refs.set(pointer, ref);
    return ref;
  };

  /** The node and every node a `$ref` or a combinator reaches from it without consuming instance data. */
  const expand = (start: Located[]): Located[] => {
    const out: Located[] = [];
    const seen = new Set<string>();
    const queue = [...start];
    while (queue.length > 0) {
      const item = queue.shift()!;
      if (seen.has(item.pointer)) continue;
      seen.add(item.pointer);
      out.push(item);
      const { node, pointer } = item;
      const inBranch = item.branch === true;
      if (typeof node.$ref === 'string' && node.$ref.startsWith('#')) {
        const target = node.$ref.slice(1);
        const value = getAtPointer(document, target);
        if (isRecord(value)) queue.push({ node: value, pointer: target, branch: inBranch });
      }
      for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
        const list = node[key];
        if (Array.isArray(list))
          list.forEach((branch, index) => {
            if (isRecord(branch))
              queue.push({ node: branch, pointer: `${pointer}/${key}/${index}`, branch: inBranch || key !== 'allOf' });
          });
      }
      for (const key of ['then', 'else'] as const) {
        const branch = node[key];
        if (isRecord(branch)) queue.push({ node: branch, pointer: `${pointer}/${key}`, branch: true });
      }
    }
    return out;
  };

  /**
   * One instance step down from every node: a property, an array item or an additional property, as written in
   * its holder (before following a `$ref` or a combinator).
   */
  const stepOwn = (nodes: Located[], segment: string): Located[] => {
    const next: Located[] = [];
    for (const { node, pointer } of nodes) {
      const properties = node.properties;
      if (isRecord(properties) && isRecord(properties[segment])) {
        next.push({ node: properties[segment], pointer: `${pointer}/properties/${escapePointer(segment)}` });
        continue;
      }
      if (/^\d+$/.test(segment)) {
        const prefix = node.prefixItems;
        const index = Number(segment);
        if (Array.isArray(prefix) && isRecord(prefix[index])) {
          next.push({ node: prefix[index], pointer: `${pointer}/prefixItems/${index}` });
          continue;
        }
        if (isRecord(node.items)) {
          next.push({ node: node.items, pointer: `${pointer}/items` });
          continue;
        }
      }
      if (isRecord(node.additionalProperties))
        next.push({ node: node.additionalProperties, pointer: `${pointer}/additionalProperties` });
    }
    return next;
  };

  /** The innermost marker among `nodes` that covers `aspect` (deepest pointer wins). */
  const innermost = (nodes: Located[], aspect: string | undefined): DecisionRef | undefined => {
    let found: Located | undefined;
    for (const item of nodes) if (covers(item.node, aspect)) found = item;
    return found ? decisionAt(found.pointer) : undefined;
  };

  /** A decision covering a schema issue: markers on the way cover their subtree, the last node the keyword. */
  const schemaDecision = (root: Located, issue: ValidationIssue): DecisionRef | undefined => {
    const segments = issue.pointer === '' ? [] : issue.pointer.split('/').slice(1).map(unescape);
    // `required` and `additionalProperties` sit on the object; the pointer names the member.
    const member = issue.keyword === 'required' || issue.keyword === 'additionalProperties';
    const objectDepth = member ? segments.length - 1 : segments.length;
    let nodes = expand([root]);
    let own: Located[] = [];
    let decision: DecisionRef | undefined;
    for (let depth = 0; depth <= segments.length; depth += 1) {
      if (depth > 0) {
        own = stepOwn(nodes, segments[depth - 1]!);
        nodes = expand(own);
      }
      if (nodes.length === 0) break;
      // A value of none of a oneOf's types departs from the marker that chose the alternatives, not from the
      // marker of one alternative (a WKT string for a position decided as `null` or an object).
      const outer = issue.keyword === 'type' ? nodes.filter((item) => !item.branch) : [];
      const atKeyword =
        depth === objectDepth ? (innermost(outer, issue.keyword) ?? innermost(nodes, issue.keyword)) : undefined;
      // A member that is missing is decided when the member as its holder writes it is: a marker there with no
      // `x-decided` list or with `presence` in it (a decided field missing). A marker on the schema the member
      // refers to decides its value, not whether it is there. An extra member is decided by its own node.
      const atMember =
        member && depth === segments.length
          ? issue.keyword === 'required'
            ? innermost(own, 'presence')
            : innermost(nodes, issue.keyword)
          : undefined;
      const below = depth < objectDepth ? innermost(nodes, undefined) : undefined;
      decision = atMember ?? atKeyword ?? below ?? decision;
    }
    return decision;
  };

  const declaredResponse = (op: OperationInfo, status: number): ResponseInfo | undefined => {
    const code = String(status);
    return (
      op.responses.find((r) => r.status === code) ??
      op.responses.find((r) => r.status.toUpperCase() === `${code[0]}XX`) ??
      op.responses.find((r) => r.status === 'default')
    );
  };

  /** A marker on the response (where the operation lists it, or the component it refers to) covering `aspect`. */
  const responseDecision = (op: OperationInfo, response: ResponseInfo, aspect: string): DecisionRef | undefined => {
    const site = `${op.pointer}/responses/${escapePointer(response.status)}`;
    for (const pointer of [response.pointer, site]) {
      const node = getAtPointer(document, pointer);
      if (isRecord(node) && covers(node, aspect)) return decisionAt(pointer);
    }
    if (aspect !== 'status' && covers(op.raw, aspect)) return decisionAt(op.pointer);
    return undefined;
  };

  /**
   * A status: a 4xx (the spec shows no error status) or a 2xx where the success answer is decided. A documented
   * 4xx names its response's decision; an undocumented one the decision on error statuses as a whole, never the
   * decision of a neighbouring status (a 418 is not about rate limits).
   */
  const statusDecision = (op: OperationInfo, status: number): DecisionRef | undefined => {
    const family = Math.floor(status / 100);
    if (family === 4) {
      const declared = declaredResponse(op, status);
      const own = declared && declared.status !== 'default' ? responseDecision(op, declared, 'status') : undefined;
      return own ?? decisionAt(ERROR_STATUSES);
    }
    if (family !== 2) return undefined;
    // Another 2xx departs from the success answer the document decided (publish answering 204 for 200).
    const candidates = op.responses
      .filter((r) => r.status.startsWith('2'))
      .sort((a, b) => Math.abs(Number(a.status) - status) - Math.abs(Number(b.status) - status));
    for (const response of candidates) {
      const decision = responseDecision(op, response, 'status');
      if (decision) return decision;
    }
    // A 2xx of an operation whose answer the spec does not show at all.
    if (covers(op.raw, 'status')) return decisionAt(op.pointer);
    return undefined;
  };

  const classify: DepartureClassifier['classify'] = (operationId, response, issue) => {
    const op = description.operation(operationId);
    const stated: ClassifiedIssue = { ...issue, basis: 'stated' };
    const decided = (decision: DecisionRef | undefined): ClassifiedIssue =>
      decision ? { ...issue, basis: 'decided', decision } : stated;
    if (issue.keyword === 'status') return decided(statusDecision(op, response.status));
    const declared = declaredResponse(op, response.status);
    if (!declared) return stated;
    if (issue.in === 'header' && issue.name && issue.name.toLowerCase() !== 'content-type') {
      const site = getAtPointer(document, `${declared.pointer}/headers/${escapePointer(issue.name)}`);
      const target =
        isRecord(site) && typeof site.$ref === 'string'
          ? site.$ref.slice(1)
          : `${declared.pointer}/headers/${escapePointer(issue.name)}`;
      const header = getAtPointer(document, target);
      return decided(
        (isRecord(header) && covers(header, undefined) ? decisionAt(target) : undefined) ??
          responseDecision(op, declared, 'headers'),
      );
    }
    const whole = responseDecision(op, declared, 'body');
    // JSON under another JSON media type departs only from the decided media type of JSON answers.
    if (issue.keyword === 'contentType' && issue.params?.json) return decided(decisionAt(JSON_MEDIA_TYPE) ?? whole);
    if (issue.keyword === 'body' || issue.keyword === 'contentType') return decided(whole);
    const mediaType = mediaTypeOf(response.contentType);
    const schemaPointer =
      (mediaType && Object.entries(declared.content).find(([key]) => key.toLowerCase() === mediaType)?.[1]) ??
      Object.values(declared.content).find((pointer) => pointer !== undefined);
    const schema = schemaPointer ? getAtPointer(document, schemaPointer) : undefined;
    if (!schemaPointer || !isRecord(schema)) return decided(whole);
    const root = { node: schema, pointer: schemaPointer };
    // A decided success body (its shape is not shown) still carries records whose values the spec states:
    // a value inside it (an enum, a type, a format) is judged by the markers of its own schema only, so a
    // carrier status outside the stated list fails wherever it appears. Its shape (members missing or
    // extra, the body itself) stays with the response's decision.
    if (whole && response.status < 400 && !(VALUE_KEYWORDS.has(issue.keyword) && issue.pointer !== ''))
      return decided(whole);
    // An error answer's body departs from the decided error format (ErrorBody) more precisely than from
    // the response that decided its status.
    return decided(schemaDecision(root, issue) ?? (response.status < 400 ? undefined : whole));
  };

  /** Declared headers of the response that are required but absent, or present but invalid. */
  const headerIssues = (op: OperationInfo, response: ResponseInput): ValidationIssue[] => {
    if (!response.headers) return [];
    const declared = declaredResponse(op, response.status);
    const headers = isRecord(declared?.raw.headers) ? declared.raw.headers : {};
    const get = (name: string): string | undefined => {
      const source = response.headers!;
      if (typeof (source as Headers).get === 'function') return (source as Headers).get(name) ?? undefined;
      const record = source as Record<string, string | undefined>;
      const key = Object.keys(record).find((k) => k.toLowerCase() === name.toLowerCase());
      return key ? record[key] : undefined;
    };
    const issues: ValidationIssue[] = [];
    for (const [name, raw] of Object.entries(headers)) {
      if (name.toLowerCase() === 'content-type') continue;
      const pointer =
        isRecord(raw) && typeof raw.$ref === 'string'
          ? raw.$ref.slice(1)
          : `${declared!.pointer}/headers/${escapePointer(name)}`;
      const header = getAtPointer(document, pointer);
      if (!isRecord(header)) continue;
      const value = get(name);
      if (value === undefined) {
        if (header.required === true)
          issues.push({
            in: 'header',
            pointer: `/${name}`,
            name,
            keyword: 'required',
            message: `header ${name} is missing`,
          });
        continue;
      }
      if (!isRecord(header.schema)) continue;
      const check =
        headerAjv.getSchema(`openapi.json#${pointer}/schema`) ??
        headerAjv.compile({ $ref: `openapi.json#${pointer}/schema` });
      if (!check(value))
        issues.push({
          in: 'header',
          pointer: `/${name}`,
          name,
          keyword: 'type',
          message: `header ${name} is invalid: ${JSON.stringify(value)}`,
        });
    }
    return issues;
  };

  const requestDecision: DepartureClassifier['requestDecision'] = (operationId, issue) => {
    const op = description.operation(operationId);
    if (issue.in === 'body') {
      const pointer = op.requestBody?.content['application/json'];
      const schema = pointer ? getAtPointer(document, pointer) : undefined;
      return isRecord(schema) ? schemaDecision({ node: schema, pointer: pointer! }, issue) : undefined;
    }
    const parameter = op.parameters.find((p) => p.in === issue.in && p.name === issue.name);
    if (!parameter) return undefined;
    // A marker on the parameter covers its values; else the markers of its schema (`/status/0` is an item).
    const at = parameter.schemaPointer.replace(/\/schema$/, '');
    const node = getAtPointer(document, at);
    if (isRecord(node) && covers(node, undefined)) return decisionAt(at);
    const schema = getAtPointer(document, parameter.schemaPointer);
    const inner = issue.pointer.split('/').slice(2).join('/');
    return isRecord(schema)
      ? schemaDecision(
          { node: schema, pointer: parameter.schemaPointer },
          { ...issue, pointer: inner ? `/${inner}` : '' },
        )
      : undefined;
  };

  return {
    decisionAt,
    classify,
    requestDecision,
    statusDecision: (operationId, status) => statusDecision(description.operation(operationId), status),
    checkResponse(operationId, response) {
      const op = description.operation(operationId);
      const result = description.validateResponse(operationId, response);
      const raw = [...(result.valid ? [] : result.issues), ...headerIssues(op, response)];
      const issues = raw.map((issue) => classify(operationId, response, issue));
      return {
        valid: issues.length === 0,
        issues,
        stated: issues.filter((issue) => issue.basis === 'stated'),
        decided: issues.filter((issue) => issue.basis === 'decided'),
      };
    },
  };
}
