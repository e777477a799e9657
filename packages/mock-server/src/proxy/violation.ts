/**
 * Contract checks of the proxy: each request it forwards and each answer it returns, checked against the
 * API description, every problem one {@link Violation} that names where it is and what was expected.
 */
import {
  getAtPointer,
  mediaTypeOf,
  type ApiDescription,
  type ClassifiedIssue,
  type DecisionRef,
  type DepartureClassifier,
  type OperationInfo,
  type ValidationIssue,
} from '@restoapi/openapi';
import { formToObject } from '../engine/request-body.js';

/** Where a violation was seen: the client's request, the upstream's answer, or the upstream failing to answer. */
export type ViolationSide = 'request' | 'response' | 'upstream';

/** One problem the proxy saw, with everything the live output, the report and the 502 body show. */
export interface Violation {
  /** When it was seen (ISO 8601). */
  at: string;
  method: string;
  /** The request path as sent (no query). */
  path: string;
  /** The operation the request reached; `null` when no operation of the document matches. */
  operationId: string | null;
  side: ViolationSide;
  /** JSON Pointer into the body, `/<name>` for a parameter or header, `''` for the message as a whole. */
  pointer: string;
  /** What the document asks for, in words. */
  expected: string;
  /** What came instead (JSON text, shortened). */
  actual: string;
  /** The validator's keyword (`type`, `enum`, `status`, …) or the upstream failure (`unreachable`, `timeout`, `not_json`). */
  keyword: string;
  /** One sentence naming the field. */
  message: string;
  /**
   * For an answer that departs only from what the document decided where the spec says "not shown":
   * the decision (its `x-decision` pointer and openapi/DECISIONS.md entry). A warning under the `spec`
   * profile, a violation under `full`.
   */
  decision?: DecisionRef;
}

/** `spec`: only what the written spec states is a violation, decided departures are warnings; `full`: both are violations. */
export type ProxyProfile = 'spec' | 'full';

/** What the checks need of an exchange: the route, and the bodies as bytes (undefined when too large to check). */
export interface Exchange {
  method: string;
  url: URL;
  operation: OperationInfo | undefined;
  params: Record<string, string>;
  malformed?: readonly string[];
}

/** JSON text of a value, cut to a readable length. */
export function shortJson(value: unknown, max = 120): string {
  if (value === undefined) return '(absent)';
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** What a failed keyword expected, in words (the validator's sentence when no shorter form fits). */
function expectedOf(issue: ValidationIssue): string {
  const params = issue.params ?? {};
  switch (issue.keyword) {
    case 'required':
      return 'present (required)';
    case 'type':
      return params.type !== undefined ? `type ${String(params.type)}` : issue.message;
    case 'enum':
      return `one of ${shortJson(params.allowedValues, 200)}`;
    case 'const':
      return `exactly ${shortJson(params.allowedValue)}`;
    case 'additionalProperties':
      return 'no such property';
    case 'format':
      return `format ${String(params.format)}`;
    case 'pattern':
      return `matching ${String(params.pattern)}`;
    case 'minimum':
    case 'maximum':
    case 'exclusiveMinimum':
    case 'exclusiveMaximum':
    case 'minLength':
    case 'maxLength':
    case 'minItems':
    case 'maxItems':
      return `${issue.keyword} ${String(params.limit)}`;
    default:
      return issue.message;
  }
}

/** The value an issue points at, in the body or among the parameters and headers. */
function actualOf(issue: ValidationIssue, body: unknown, sources: Record<string, unknown>): string {
  if (issue.keyword === 'required') return '(absent)';
  if (issue.in === 'body') {
    const value = issue.pointer === '' ? body : getAtPointer(body, issue.pointer);
    if (issue.keyword === 'additionalProperties' && value === undefined) return '(present)';
    return shortJson(value);
  }
  return shortJson(sources[issue.name ?? issue.pointer.slice(1)]);
}

function toViolation(
  exchange: Exchange,
  side: ViolationSide,
  issue: ValidationIssue,
  body: unknown,
  sources: Record<string, unknown>,
  expected?: string,
  actual?: string,
): Violation {
  return {
    at: new Date().toISOString(),
    method: exchange.method,
    path: exchange.url.pathname,
    operationId: exchange.operation?.operationId ?? null,
    side,
    pointer: issue.pointer,
    expected: expected ?? expectedOf(issue),
    actual: actual ?? actualOf(issue, body, sources),
    keyword: issue.keyword,
    message: issue.message,
  };
}

/** A violation that is not a schema issue: an upstream failure or an unreadable body. */
export function plainViolation(
  exchange: Exchange,
  side: ViolationSide,
  keyword: string,
  expected: string,
  actual: string,
  message: string,
  pointer = '',
): Violation {
  return toViolation(exchange, side, { in: 'body', pointer, keyword, message }, undefined, {}, expected, actual);
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true });

/** Whether a media type is JSON (`application/json`, `application/problem+json`, …). */
export function isJsonMedia(mediaType: string | undefined): boolean {
  return mediaType === 'application/json' || (mediaType?.endsWith('+json') ?? false);
}

/** Parses JSON bytes strictly (UTF-8, JSON); `undefined` with the reason when they are not. */
export function parseJson(bytes: Uint8Array): { value: unknown } | { error: string } {
  try {
    return { value: JSON.parse(STRICT_UTF8.decode(bytes)) };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

/** A request body as the validator takes it: parsed JSON, a form as an object, or `undefined`. */
async function requestBodyOf(
  bytes: Uint8Array,
  contentType: string | null,
): Promise<{ body: unknown } | { error: string; expected: string }> {
  const mediaType = mediaTypeOf(contentType) || undefined;
  if (bytes.byteLength === 0) return { body: undefined };
  if (isJsonMedia(mediaType)) {
    const parsed = parseJson(bytes);
    return 'value' in parsed ? { body: parsed.value } : { error: parsed.error, expected: 'a JSON body' };
  }
  if (mediaType === 'application/x-www-form-urlencoded') {
    return { body: Object.fromEntries(new URLSearchParams(Buffer.from(bytes).toString('utf8'))) };
  }
  if (mediaType === 'multipart/form-data') {
    try {
      const form = await new Response(bytes as BodyInit, { headers: { 'content-type': contentType! } }).formData();
      return { body: formToObject(form) };
    } catch {
      return { error: 'the multipart body cannot be read', expected: 'a multipart/form-data body with its boundary' };
    }
  }
  return { body: bytes };
}

/**
 * Checks a request against its operation: parameters, headers and body. `bytes` undefined means the body
 * was too large to hold, and only the parameters are checked.
 */
export async function checkRequest(
  api: ApiDescription,
  exchange: Exchange,
  headers: { get(name: string): string | null },
  bytes: Uint8Array | undefined,
): Promise<Violation[]> {
  const op = exchange.operation;
  if (!op) return [];
  const contentType = headers.get('content-type');
  const read = bytes === undefined ? { body: undefined } : await requestBodyOf(bytes, contentType);
  if ('error' in read)
    return [plainViolation(exchange, 'request', 'body', read.expected, read.error, `the request body: ${read.error}`)];
  const result = api.validateRequest(op.operationId, {
    params: exchange.params,
    malformed: exchange.malformed,
    query: exchange.url.search === '' ? undefined : exchange.url.search,
    headers,
    contentType: read.body === undefined ? undefined : contentType,
    body: read.body,
  });
  if (result.valid) return [];
  // A body too large to hold was not read: it is neither missing nor of a wrong type.
  const issues =
    bytes === undefined
      ? result.issues.filter((issue) => issue.in !== 'body' && issue.keyword !== 'contentType')
      : result.issues;
  if (issues.length === 0) return [];
  const sources: Record<string, unknown> = {
    ...Object.fromEntries(exchange.url.searchParams),
    ...exchange.params,
  };
  for (const issue of issues)
    if (issue.in === 'header' && issue.name) sources[issue.name] = headers.get(issue.name) ?? undefined;
  return issues.map((issue) => toViolation(exchange, 'request', issue, read.body, sources));
}

/** The upstream answer as the checks see it: status, media type and (when held and JSON) the parsed body. */
export interface AnswerInput {
  status: number;
  contentType: string | null;
  /** The body's bytes, decoded from any Content-Encoding; undefined when too large to hold. */
  bytes: Uint8Array | undefined;
  /** The answer's headers (lower-case names), for the headers the document declares. */
  headers?: Record<string, string | undefined>;
}

/** Whether the operation documents a JSON body for this status (so a body that is no JSON is an upstream failure). */
export function documentsJson(op: OperationInfo, status: number): boolean {
  const text = String(status);
  const declared =
    op.responses.find((r) => r.status === text) ??
    op.responses.find((r) => r.status.toUpperCase() === `${text[0]}XX`) ??
    op.responses.find((r) => r.status === 'default');
  return Object.keys(declared?.content ?? {}).some((media) => isJsonMedia(media));
}

/** How answers are judged: the classifier that tells stated departures from decided ones, and the profile. */
export interface Judge {
  classifier: DepartureClassifier;
  profile: ProxyProfile;
}

/**
 * Checks an answer against its operation. Returns the violations, the warnings (decided departures under
 * the `spec` profile) and the parsed JSON body (for the recorder), or `notJson` when the document
 * promises JSON and the body does not parse.
 */
export function checkResponse(
  api: ApiDescription,
  exchange: Exchange,
  answer: AnswerInput,
  judge?: Judge,
): { violations: Violation[]; warnings: Violation[]; json?: unknown; notJson?: string } {
  const op = exchange.operation;
  if (!op) return { violations: [], warnings: [] };
  const mediaType = mediaTypeOf(answer.contentType) || undefined;
  let body: unknown;
  let json: unknown;
  if (answer.bytes !== undefined && answer.bytes.byteLength > 0) {
    if (documentsJson(op, answer.status) || isJsonMedia(mediaType)) {
      const parsed = parseJson(answer.bytes);
      if ('error' in parsed) {
        if (documentsJson(op, answer.status))
          return {
            violations: [],
            warnings: [],
            notJson: `${mediaType ?? 'no Content-Type'}, ${answer.bytes.byteLength} bytes that are not JSON (${parsed.error})`,
          };
        body = answer.bytes;
      } else body = json = parsed.value;
    } else body = Buffer.from(answer.bytes).toString('utf8');
  }
  if (answer.bytes === undefined && !documentsJson(op, answer.status)) body = undefined;
  // Too large to hold: the status and media type are still checked, the body is not.
  const input = {
    status: answer.status,
    contentType: answer.contentType,
    ...(answer.bytes === undefined ? {} : { body }),
  };
  // With a judge every issue comes classified, the declared headers checked too.
  const classified = judge
    ? judge.classifier.checkResponse(op.operationId, {
        ...input,
        ...(answer.headers ? { headers: answer.headers } : {}),
      }).issues
    : undefined;
  const result = classified ? undefined : api.validateResponse(op.operationId, input);
  const issues: (ValidationIssue | ClassifiedIssue)[] = classified ?? (result!.valid ? [] : result!.issues);
  if (issues.length === 0) return { violations: [], warnings: [], json };
  const violations: Violation[] = [];
  const warnings: Violation[] = [];
  for (const issue of issues) {
    // A body too large to hold reads as absent; its schema is not checked.
    if (answer.bytes === undefined && issue.in === 'body' && issue.keyword !== 'status') continue;
    let violation: Violation;
    if (issue.keyword === 'status')
      violation = toViolation(
        exchange,
        'response',
        issue,
        body,
        {},
        `a documented status (${op.responses.map((r) => r.status).join(', ')})`,
        String(answer.status),
      );
    else if (issue.keyword === 'contentType')
      violation = toViolation(
        exchange,
        'response',
        issue,
        body,
        {},
        issue.message.replace(/^.*\(documented: (.*)\)$/, '$1'),
        mediaType ?? '(none)',
      );
    else if (issue.in === 'header')
      violation = toViolation(
        exchange,
        'response',
        issue,
        body,
        { [issue.name ?? '']: answer.headers?.[issue.name?.toLowerCase() ?? ''] },
        issue.keyword === 'required' ? 'present (required)' : `a ${issue.name} header as documented`,
      );
    else violation = toViolation(exchange, 'response', issue, body, {});
    if ('basis' in issue && issue.basis === 'decided' && issue.decision) {
      violation.decision = issue.decision;
      if (judge!.profile === 'spec') {
        warnings.push(violation);
        continue;
      }
    }
    violations.push(violation);
  }
  return { violations, warnings, json };
}
