import {
  CARRIER_PATH_PREFIX,
  createDepartureClassifier,
  type ApiDescription,
  type ClassifiedIssue,
  type DecisionRef,
  type DepartureClassifier,
  type OperationInfo,
} from '@restoapi/openapi';
import { IncompleteSignal } from './budget.js';
import { NOT_SHOWN_ENDPOINTS } from './request-shapes.js';
import type { DecisionWarning, Profile, Violation } from './types.js';
import type { CheckName, VerdictSettings } from './verdict.js';

/** Query parameters; arrays are sent as repeated keys. */
export type QueryInput = Record<string, string | number | boolean | undefined | null | readonly (string | number)[]>;

/** Expected statuses: an exact code, a list, or a class (`2xx`, `4xx`). */
export type StatusExpectation = number | readonly number[] | '2xx' | '4xx';

/** One request of the suite. */
export interface RequestSpec {
  method?: string;
  /** Path below the API's base URL, starting with `/`. */
  path: string;
  query?: QueryInput;
  /** A JSON body, sent with `Content-Type: application/json` unless `contentType` says otherwise. */
  json?: unknown;
  /** A raw body (text, bytes, form). */
  body?: string | Uint8Array | FormData | URLSearchParams;
  /** Overrides the Content-Type; `null` sends none at all. */
  contentType?: string | null;
  headers?: Record<string, string>;
  /** Which API: the main one (default) or the carrier API. */
  api?: 'main' | 'carrier';
  /** The session token to send; none when absent. */
  token?: string;
  /** Where the token goes (Authentication 3): the `Authorization` header (default) or the `token` query parameter. */
  tokenIn?: 'header' | 'query';
  /** Sends the body exactly as given: no other request shape is tried when it is refused (request-shapes.ts). */
  exact?: boolean;
}

/** An answer, read completely. */
export interface ApiResponse {
  status: number;
  headers: Headers;
  contentType: string | null;
  /** Parsed JSON, or the text for other textual types, or undefined. */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
  text: string;
  bytes: Uint8Array;
  operationId: string | undefined;
  method: string;
  url: string;
}

/** Thrown when an operation answers 501 and the run treats that as "not implemented yet". */
export class NotImplementedSignal extends Error {
  constructor(readonly operationId: string) {
    super(`${operationId} answered 501 Not Implemented`);
  }
}

/** What the running test collects from its requests. */
export interface RequestSink {
  violations: Violation[];
  failures: string[];
  warnings: string[];
  /** The decision departures among `warnings`, structured. */
  decisionWarnings?: DecisionWarning[];
  requests: number;
  log: string[];
  /** Every request and its answer, in order (for curl reproducers and printed sequences). */
  exchanges?: Exchange[];
}

/** One request as sent and the answer as received (the answer's text cut to a readable length). */
export interface Exchange {
  method: string;
  url: string;
  headers: Record<string, string>;
  /** The body as text; binary parts are described, not included. */
  body?: string;
  /** Multipart fields: a string value or `@file` for an upload. */
  form?: [string, string][];
  status: number;
  answer: string;
  /** Whether the answer broke the document (schema, status) or was a 5xx. */
  faulty: boolean;
  /** The whole answer (`answer` is cut): an exported workflow checks the expected value in it. */
  fullAnswer?: string;
  /** Set for a call of the mock's control API: its path in the control document (`/__mock/reset`). */
  control?: string;
}

/** Per-operation call and status counts. */
export class CoverageRecorder {
  readonly calls = new Map<string, { calls: number; statuses: Map<string, number> }>();

  record(operationId: string, status: number): void {
    const entry = this.calls.get(operationId) ?? { calls: 0, statuses: new Map<string, number>() };
    entry.calls += 1;
    entry.statuses.set(String(status), (entry.statuses.get(String(status)) ?? 0) + 1);
    this.calls.set(operationId, entry);
  }
}

export interface HttpOptions {
  fetch: typeof fetch;
  baseUrl: string;
  carrierBaseUrl: string;
  validator: ApiDescription;
  profile: Profile;
  coverage: CoverageRecorder;
  requestMs: number;
  notImplemented: 'fail' | 'skip';
  /** Tells stated departures from decided ones; default one over `validator`. */
  classifier?: DepartureClassifier;
  /** Checks and decisions the configuration switched off, and extra statuses it accepts. */
  verdict?: VerdictSettings;
}

/** The check an issue of an answer belongs to. */
function checkOf(issue: ClassifiedIssue): CheckName {
  if (issue.keyword === 'status') return 'status_code_conformance';
  if (issue.keyword === 'contentType' || issue.keyword === 'body' || issue.keyword === 'json')
    return 'content_type_conformance';
  if (issue.in === 'header') return 'response_headers_conformance';
  return 'response_schema_conformance';
}

/** How a decided departure names its decision in a message. */
export function describeDecision(decision: DecisionRef): string {
  return `decision ${decision.pointer} (openapi/${decision.entry}): ${decision.summary}`;
}

const TEXTUAL = /json|text|xml|html|javascript|x-www-form-urlencoded/i;

function mediaType(contentType: string | null): string | undefined {
  return contentType ? contentType.split(';')[0]!.trim().toLowerCase() : undefined;
}

function describeBody(spec: RequestSpec): Pick<Exchange, 'body' | 'form'> {
  if (spec.json !== undefined) return { body: JSON.stringify(spec.json) };
  const body = spec.body;
  if (body === undefined) return {};
  if (typeof body === 'string') return { body };
  if (body instanceof URLSearchParams) return { body: body.toString() };
  if (body instanceof FormData)
    return {
      form: [...body.entries()].map(([key, value]) =>
        typeof value === 'string' ? [key, value] : [key, `@${(value as File).name || 'upload.bin'}`],
      ),
    };
  return { body: `<${body.byteLength} bytes>` };
}

/**
 * Why a request got no answer. A stopped test's own signal passes through; a request that outlived `requestMs`
 * makes the test incomplete (the service is slow, which alone fails nothing); anything else is an error.
 */
function failedRequest(error: unknown, where: string, requestMs: number): Error {
  if (error instanceof IncompleteSignal) return error;
  if ((error as Error)?.name === 'TimeoutError')
    return new IncompleteSignal(`${where} got no answer within timeouts.requestMs (${requestMs} ms)`);
  return new Error(`${where} failed: ${(error as Error).message}`);
}

/**
 * The checking HTTP client: every answer of the main and carrier APIs is
 * validated against the OpenAPI document (status documented, media type,
 * body), recorded for coverage, and problems go to the running test.
 */
export class CheckingHttp {
  sink: RequestSink | undefined;
  readonly classifier: DepartureClassifier;

  constructor(readonly options: HttpOptions) {
    this.classifier = options.classifier ?? createDepartureClassifier(options.validator);
  }

  url(spec: RequestSpec): URL {
    const base = (spec.api === 'carrier' ? this.options.carrierBaseUrl : this.options.baseUrl).replace(/\/$/, '');
    const url = new URL(`${base}${spec.path}`);
    for (const [key, value] of Object.entries(spec.query ?? {})) {
      if (value === undefined || value === null) continue;
      if (Array.isArray(value)) for (const item of value) url.searchParams.append(key, String(item));
      else url.searchParams.append(key, String(value));
    }
    if (spec.token && spec.tokenIn === 'query') url.searchParams.set('token', spec.token);
    return url;
  }

  /** The operation a request reaches, as the document routes it. */
  operationFor(method: string, url: URL, api: 'main' | 'carrier'): OperationInfo | undefined {
    const base = new URL(api === 'carrier' ? this.options.carrierBaseUrl : this.options.baseUrl);
    const prefix = base.pathname.replace(/\/$/, '');
    let path = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) || '/' : url.pathname;
    if (api === 'carrier') path = `${CARRIER_PATH_PREFIX}${path}`;
    const match = this.options.validator.match(method, path);
    if (!match) return undefined;
    // The carrier API lives under its own base; a main-API request must not be routed to it and vice versa.
    if (match.operation.api !== api) return undefined;
    return match.operation;
  }

  async request(spec: RequestSpec): Promise<ApiResponse> {
    const method = (spec.method ?? (spec.json !== undefined || spec.body !== undefined ? 'POST' : 'GET')).toUpperCase();
    const api = spec.api ?? 'main';
    const url = this.url(spec);
    const headers = new Headers(spec.headers ?? {});
    if (spec.token && spec.tokenIn !== 'query') headers.set('Authorization', `Token token="${spec.token}"`);
    let body: BodyInit | undefined;
    if (spec.json !== undefined) {
      const text = JSON.stringify(spec.json);
      body = spec.contentType === null ? new TextEncoder().encode(text) : text;
      if (spec.contentType !== null) headers.set('Content-Type', spec.contentType ?? 'application/json');
    } else if (spec.body !== undefined) {
      body =
        spec.contentType === null && typeof spec.body === 'string'
          ? new TextEncoder().encode(spec.body)
          : (spec.body as BodyInit);
      if (spec.contentType) headers.set('Content-Type', spec.contentType);
    }
    const op = this.operationFor(method, url, api);
    const sink = this.sink;
    if (sink) sink.requests += 1;
    let raw: Response;
    let bytes: Uint8Array;
    try {
      raw = await this.options.fetch(url.toString(), {
        method,
        headers,
        ...(body !== undefined ? { body } : {}),
        signal: AbortSignal.timeout(this.options.requestMs),
      });
      bytes = new Uint8Array(await raw.arrayBuffer());
    } catch (error) {
      throw failedRequest(error, `${method} ${url.pathname}${url.search}`, this.options.requestMs);
    }
    const contentType = raw.headers.get('content-type');
    const type = mediaType(contentType);
    const text = type === undefined || TEXTUAL.test(type) ? new TextDecoder().decode(bytes) : '';
    const response: ApiResponse = {
      status: raw.status,
      headers: raw.headers,
      contentType,
      body: undefined,
      text,
      bytes,
      operationId: op?.operationId,
      method,
      url: url.toString(),
    };
    const where = `${method} ${url.pathname}${url.search}`;
    sink?.log.push(`${where} → ${raw.status}`);
    const exchange: Exchange = {
      method,
      url: url.toString(),
      headers: Object.fromEntries(headers.entries()),
      ...describeBody(spec),
      status: raw.status,
      answer: text.slice(0, 600),
      fullAnswer: text,
      faulty: false,
    };
    sink?.exchanges?.push(exchange);
    const problemsBefore = sink ? sink.violations.length + sink.failures.length : 0;
    let parseProblem: string | undefined;
    if (type && (type === 'application/json' || type.endsWith('+json'))) {
      if (text.trim() !== '') {
        try {
          response.body = JSON.parse(text);
        } catch (error) {
          parseProblem = `the body is not valid JSON (${(error as Error).message})`;
          response.body = text;
        }
      }
    } else if (text !== '') response.body = text;
    if (!op) return response;

    this.options.coverage.record(op.operationId, raw.status);
    if (raw.status === 501) {
      if (this.options.notImplemented === 'skip') throw new NotImplementedSignal(op.operationId);
      // An endpoint the spec leaves "not shown" may be missing: the test that needs it skips (t.skipIfAbsent).
      if (NOT_SHOWN_ENDPOINTS[op.operationId]) return response;
      sink?.failures.push(`${where}: ${op.operationId} answered 501 Not Implemented`);
      exchange.faulty = true;
      return response;
    }
    const verdict = this.options.verdict;
    if (raw.status >= 500 && !verdict?.ignoresCheck('not_a_server_error')) {
      const detail =
        typeof response.body === 'object' ? JSON.stringify(response.body).slice(0, 300) : text.slice(0, 300);
      sink?.failures.push(`${where}: server error ${raw.status} ${detail}`);
    }
    const issues: ClassifiedIssue[] = [];
    const answer = { status: raw.status, contentType };
    if (parseProblem) {
      // An error body that is not JSON departs from the decided error format; a success body from the spec.
      const issue = { in: 'body' as const, pointer: '', keyword: 'json', message: parseProblem };
      issues.push(
        raw.status >= 400 ? this.classifier.classify(op.operationId, answer, issue) : { ...issue, basis: 'stated' },
      );
    } else {
      const result = this.classifier.checkResponse(op.operationId, {
        ...answer,
        headers: raw.headers,
        body:
          type && (type === 'application/json' || type.endsWith('+json'))
            ? response.body
            : bytes.byteLength === 0
              ? undefined
              : text || '<binary>',
      });
      issues.push(...result.issues);
    }
    for (const issue of issues) {
      if (verdict) {
        const check = checkOf(issue);
        if (check === 'status_code_conformance' && verdict.acceptsStatus(op.operationId, raw.status)) continue;
        if (verdict.ignoresCheck(check) || verdict.ignoresDecision(issue.decision?.pointer)) continue;
      }
      const message = `${issue.pointer ? `${issue.pointer}: ` : ''}${issue.message}`;
      const path = `${url.pathname}${url.search}`;
      if (!sink) continue;
      if (issue.basis === 'decided' && issue.decision && this.options.profile === 'spec') {
        sink.warnings.push(
          `${where} → ${raw.status}: ${message} (departs from the ${describeDecision(issue.decision)})`,
        );
        (sink.decisionWarnings ??= []).push({
          decision: issue.decision.pointer,
          entry: issue.decision.entry,
          summary: issue.decision.summary,
          operationId: op.operationId,
          method,
          path,
          status: raw.status,
          message,
        });
        continue;
      }
      const violation: Violation = {
        operationId: op.operationId,
        method,
        path,
        status: raw.status,
        message: issue.decision ? `${message} (breaks the ${describeDecision(issue.decision)})` : message,
        decisionOnly: issue.basis === 'decided',
        ...(issue.decision ? { decision: issue.decision } : {}),
      };
      sink.violations.push(violation);
    }
    if (sink && sink.violations.length + sink.failures.length > problemsBefore) exchange.faulty = true;
    return response;
  }
}
