import { isDeepStrictEqual } from 'node:util';
import type { ApiDescription } from '@restoapi/openapi';
import type { Credentials, ResolvedConfig, Role } from '../config.js';
import { ControlError, type ControlClient } from '../control.js';
import { Fixtures } from './fixtures.js';
import {
  describeDecision,
  type ApiResponse,
  type CheckingHttp,
  type RequestSpec,
  type StatusExpectation,
} from './http.js';

export type { StatusExpectation } from './http.js';
import {
  ABSENT_ENDPOINT_STATUSES,
  NOT_SHOWN_ENDPOINTS,
  pathFormOf,
  shapesOf,
  type RequestShape,
  type RequestShapeKey,
} from './request-shapes.js';
import type { Need, Profile, StatefulOptions, TestKind } from './types.js';
import type { VerdictSettings } from './verdict.js';

/** The decision on how an API key is sent (`api_key`, as a query or form parameter). */
const API_KEY_DECISION = '/components/parameters/ApiKeyCredential';

/** Thrown by `t.skip()`. */
export class SkipSignal extends Error {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** Thrown by failed checks. */
export class CheckFailure extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CheckFailure';
  }
}

/** The session body (`POST /api/session`). */
export interface SessionInfo {
  token: string;
  accountType: string;
  accountId: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

/** Shared between the tests of one run. */
export interface SuiteRuntime {
  config: ResolvedConfig;
  profile: Profile;
  seed: number;
  http: CheckingHttp;
  validator: ApiDescription;
  control: ControlClient | undefined;
  sessions: Map<Role, SessionInfo>;
  /** Checks and decisions the configuration switched off, and extra statuses it accepts. */
  verdict: VerdictSettings;
  /** Runs and sequence length of the stateful tests, and a sequence to replay. */
  stateful: Required<Omit<StatefulOptions, 'replay' | 'arazzo'>> & Pick<StatefulOptions, 'replay' | 'arazzo'>;
  /** The request shapes the service was found to take (request-shapes.ts), kept for the rest of the run. */
  shapes?: Map<RequestShapeKey, string>;
}

function matches(status: number, expected: StatusExpectation): boolean {
  if (expected === '2xx') return status >= 200 && status < 300;
  if (expected === '4xx') return status >= 400 && status < 500;
  if (typeof expected === 'number') return status === expected;
  return expected.includes(status);
}

/** Whether an expectation is a success (a 2xx among the expected statuses). */
function expectsSuccess(expected: StatusExpectation): boolean {
  if (expected === '2xx') return true;
  if (expected === '4xx') return false;
  return (typeof expected === 'number' ? [expected] : expected).some((status) => status >= 200 && status < 300);
}

function describeBody(response: ApiResponse): string {
  const body = typeof response.body === 'string' ? response.body : JSON.stringify(response.body);
  return body === undefined ? '' : ` ${String(body).slice(0, 400)}`;
}

/** A value as a failure message shows it: its JSON, cut short. */
function describeValue(value: unknown): string {
  if (value === undefined) return 'missing';
  const json = JSON.stringify(value);
  return json.length > 120 ? `${json.slice(0, 120)}…` : json;
}

/** An HTTP client bound to a session (or none). */
export class Client {
  constructor(
    private readonly t: TestContext,
    readonly role: Role | undefined,
    readonly session: SessionInfo | undefined,
    private readonly api: 'main' | 'carrier' = 'main',
  ) {}

  get token(): string | undefined {
    return this.session?.token;
  }

  request(spec: RequestSpec): Promise<ApiResponse> {
    return this.t.send({
      api: this.api,
      ...(this.session ? { token: this.session.token } : {}),
      ...spec,
    });
  }

  get(path: string, query?: RequestSpec['query']): Promise<ApiResponse> {
    return this.request({ method: 'GET', path, ...(query ? { query } : {}) });
  }

  post(path: string, json?: unknown, extra: Partial<RequestSpec> = {}): Promise<ApiResponse> {
    return this.request({ method: 'POST', path, ...(json !== undefined ? { json } : {}), ...extra });
  }

  put(path: string, json?: unknown, extra: Partial<RequestSpec> = {}): Promise<ApiResponse> {
    return this.request({ method: 'PUT', path, ...(json !== undefined ? { json } : {}), ...extra });
  }

  delete(path: string, extra: Partial<RequestSpec> = {}): Promise<ApiResponse> {
    return this.request({ method: 'DELETE', path, ...extra });
  }
}

/* A test and its context refer to each other, so both live in this module. */

/** One named contract test. */
export interface ContractTest {
  /** Unique, stable id (`session.token-invalid-after-delete`). */
  id: string;
  /** Readable title, starting with the clause it checks (`Limits 1: one menu import per organization at a time`). */
  title: string;
  /** Clause ids of the specification it covers (see `CLAUSES`). */
  clauses: string[];
  /**
   * Those of `clauses` the test checks only under the `full` profile (a spec-profile test whose commands on
   * them are decided): a spec run does not count them as covered by this test.
   */
  fullOnlyClauses?: string[];
  profile: Profile;
  /** For `full` tests: JSON Pointers of the `x-decision` markers checked (from `listDecisions()`). */
  decisions?: string[];
  /** operationIds the test exercises. */
  operations: string[];
  kind: TestKind;
  needs?: Need[];
  /** Per-test time limit in milliseconds (default from the config). */
  timeoutMs?: number;
  run(t: TestContext): Promise<void>;
}

/** Everything a test works with. */
export class TestContext {
  readonly fixtures: Fixtures;
  private readonly cleanups: (() => Promise<void>)[] = [];
  private counter = 0;

  constructor(
    readonly runtime: SuiteRuntime,
    readonly test: ContractTest,
  ) {
    this.fixtures = new Fixtures(this);
  }

  get config(): ResolvedConfig {
    return this.runtime.config;
  }

  get profile(): Profile {
    return this.runtime.profile;
  }

  /** Seed of the property-based tests of this run. */
  get seed(): number {
    return this.runtime.seed;
  }

  get validator(): ApiDescription {
    return this.runtime.validator;
  }

  /** The control API, or a skip when the implementation has none. */
  get control(): ControlClient {
    if (!this.runtime.control) this.skip('needs the control API (capabilities.controlApi)');
    return this.runtime.control;
  }

  get hasControl(): boolean {
    return this.runtime.control !== undefined;
  }

  /** A unique marker for records this test creates. */
  unique(prefix = 'ct'): string {
    this.counter += 1;
    return `${prefix}-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e6).toString(36)}-${this.counter}`;
  }

  /** Runs after the test, passed or not (restores what a test changed on a shared service). */
  cleanup(fn: () => Promise<void>): void {
    this.cleanups.unshift(fn);
  }

  /** Runs the cleanups registered so far, each once. */
  async runCleanups(): Promise<void> {
    for (const fn of this.cleanups.splice(0)) {
      try {
        await fn();
      } catch {
        // cleanup is best effort
      }
    }
  }

  /**
   * Sends a request. A JSON body whose shape rests on a decision (request-shapes.ts) goes in the shape the
   * configuration names or the service was found to take; under `spec`, when the decided shape is refused,
   * the other shapes the spec allows are tried and the accepted one is kept for the run, with a warning
   * naming the decision and the configuration key.
   */
  async send(spec: RequestSpec): Promise<ApiResponse> {
    const method = (spec.method ?? (spec.json !== undefined ? 'POST' : 'GET')).toUpperCase();
    const found = spec.exact || (spec.api ?? 'main') !== 'main' ? undefined : pathFormOf(spec.path, method);
    if (!found || found.written === spec.path) return this.sendShaped(spec, method);
    // The spec writes this method's path in the other form; the document decided both forms answer.
    const { form, written } = found;
    const known = (this.runtime.shapes ??= new Map());
    const configured = this.config.requests?.[form.key];
    if ((configured ?? known.get(form.key)) === 'as-written') {
      const response = await this.sendShaped({ ...spec, path: written }, method);
      this.pathWarning(form.decision, form.key, spec.path, response);
      return response;
    }
    const response = await this.sendShaped(spec, method);
    if (configured || !ABSENT_ENDPOINT_STATUSES.includes(response.status)) return response;
    const retry = await this.sendShaped({ ...spec, path: written }, method);
    if (ABSENT_ENDPOINT_STATUSES.includes(retry.status)) return response;
    known.set(form.key, 'as-written');
    this.pathWarning(form.decision, form.key, spec.path, retry);
    return retry;
  }

  /** The warning (under `full` the failure) of a request sent to the form of its path the spec writes. */
  private pathWarning(decision: string, key: RequestShapeKey, listed: string, response: ApiResponse): void {
    this.decided(
      decision,
      false,
      `${response.method} sent to ${new URL(response.url).pathname}, the form the spec writes, as the service does not answer on ${listed} (requests.${key} of the configuration: "as-written")`,
      response,
    );
  }

  /** Sends a request whose JSON body may rest on a decided shape (see {@link send}). */
  private async sendShaped(spec: RequestSpec, method: string): Promise<ApiResponse> {
    const http = this.runtime.http;
    const shapes =
      spec.json === undefined || spec.exact
        ? []
        : shapesOf(http.operationFor(method, http.url(spec), spec.api ?? 'main')?.operationId);
    if (shapes.length === 0) return http.request(spec);
    const known = (this.runtime.shapes ??= new Map());
    let json = spec.json;
    const used: [RequestShape, string][] = [];
    for (const shape of shapes) {
      const choice = this.config.requests?.[shape.key] ?? known.get(shape.key);
      const changed = choice && choice !== shape.decided ? shape.alternatives[choice]?.(json) : undefined;
      if (changed === undefined) continue;
      json = changed;
      used.push([shape, choice!]);
    }
    const response = await http.request({ ...spec, json });
    for (const [shape, choice] of used) this.shapeWarning(shape, choice, response);
    const refused = response.status === 400 || response.status === 415 || response.status === 422;
    if (!refused) return response;
    // The decided shape was refused: the service may take another shape the spec allows (under `full` that
    // fails, naming the decision, instead of a bare refusal).
    const accepted = (retry: ApiResponse) => retry.status >= 200 && retry.status < 300;
    /** The first applicable alternative of each shape, tried together when none is taken alone. */
    const firsts: [RequestShape, string][] = [];
    for (const shape of shapes) {
      // A shape set by the configuration or already found stays; another field's shape may still differ.
      if (this.config.requests?.[shape.key] || used.some(([taken]) => taken.key === shape.key)) continue;
      for (const [name, alternative] of Object.entries(shape.alternatives)) {
        const other = alternative(json);
        if (other === undefined) continue;
        if (!firsts.some(([first]) => first === shape)) firsts.push([shape, name]);
        const retry = await http.request({ ...spec, json: other });
        if (!accepted(retry)) continue;
        known.set(shape.key, name);
        this.shapeWarning(shape, name, retry);
        return retry;
      }
    }
    // A service may take only another shape of two fields at once (a dish's price and weight both as numbers).
    if (firsts.length < 2) return response;
    const other = firsts.reduce((body, [shape, name]) => shape.alternatives[name]!(body) ?? body, json);
    const retry = await http.request({ ...spec, json: other });
    if (!accepted(retry)) return response;
    for (const [shape, name] of firsts) {
      known.set(shape.key, name);
      this.shapeWarning(shape, name, retry);
    }
    return retry;
  }

  /** The warning (under `full` the failure) of a request sent in a shape other than the decided one. */
  private shapeWarning(shape: RequestShape, choice: string, response: ApiResponse): void {
    this.decided(
      shape.decision,
      false,
      `${response.method} ${new URL(response.url).pathname} sent with the body shape "${choice}" (requests.${shape.key} of the configuration), not the decided "${shape.decided}"`,
      response,
    );
  }

  /** A client without a session. */
  anon(): Client {
    return new Client(this, undefined, undefined);
  }

  /** A client of the carrier API (no session: the secure_id is the credential). */
  carrier(): Client {
    if (!this.config.capabilities.carrierApi) this.skip('the carrier API is not available (capabilities.carrierApi)');
    return new Client(this, undefined, undefined, 'carrier');
  }

  credentials(role: Role): Credentials {
    const credentials = this.config.accounts[role];
    if (!credentials) this.skip(`needs an account for the role ${role} in the configuration`);
    return credentials;
  }

  /** Logs in with the role's credentials and returns a fresh session (not cached). */
  async login(role: Role, where: 'form' | 'query' | 'multipart' = 'form'): Promise<SessionInfo> {
    const credentials = this.credentials(role);
    const fields: Record<string, string> =
      'apiKey' in credentials
        ? { api_key: credentials.apiKey }
        : { login: credentials.login, password: credentials.password };
    let response: ApiResponse;
    if ('apiKey' in credentials && credentials.apiKeyHeader) {
      // How the key is sent is not shown: this service takes it in a header (the configuration says which).
      response = await this.runtime.http.request({
        method: 'POST',
        path: '/api/session',
        headers: { [credentials.apiKeyHeader]: credentials.apiKey },
      });
      this.decided(
        API_KEY_DECISION,
        false,
        `POST /api/session sent the API key of ${role} in the ${credentials.apiKeyHeader} header (accounts.${role}.apiKeyHeader of the configuration), not as the decided api_key parameter`,
        response,
      );
    } else if (where === 'query')
      response = await this.runtime.http.request({ method: 'POST', path: '/api/session', query: fields });
    else if (where === 'multipart') {
      const form = new FormData();
      for (const [key, value] of Object.entries(fields)) form.set(key, value);
      response = await this.runtime.http.request({ method: 'POST', path: '/api/session', body: form });
    } else {
      response = await this.runtime.http.request({
        method: 'POST',
        path: '/api/session',
        body: new URLSearchParams(fields).toString(),
        contentType: 'application/x-www-form-urlencoded',
      });
    }
    const refused = response.status < 200 || response.status >= 300 || typeof response.body?.meta?.token !== 'string';
    if (
      refused &&
      'apiKey' in credentials &&
      !credentials.apiKeyHeader &&
      response.status >= 400 &&
      response.status < 500
    ) {
      // The service may take the key another way (not shown): warn under spec and skip, fail under full.
      const message = `cannot log in as ${role} with its API key as the api_key parameter (${where}): POST /api/session answered ${response.status}; if the service takes the key in a header, name it in accounts.${role}.apiKeyHeader of the configuration`;
      this.decided(API_KEY_DECISION, false, message, response);
      this.skip(`${message} (decision ${API_KEY_DECISION})`);
    }
    if (refused) {
      this.fail(
        `cannot log in as ${role} (credentials as ${where}): POST /api/session answered ${response.status}${describeBody(response)}`,
      );
    }
    return {
      token: response.body?.meta?.token,
      accountType: String(response.body?.api_user?.account?.type),
      accountId: Number(response.body?.api_user?.account?.id),
      body: response.body,
    };
  }

  /** A client logged in as a role; the session is shared by the tests until the state is reset. */
  async as(role: Role): Promise<Client> {
    let session = this.runtime.sessions.get(role);
    if (!session) {
      session = await this.login(role);
      this.runtime.sessions.set(role, session);
    }
    return new Client(this, role, session);
  }

  /** A client with a given session. */
  withSession(session: SessionInfo, role?: Role): Client {
    return new Client(this, role, session);
  }

  skip(reason: string): never {
    throw new SkipSignal(reason);
  }

  fail(message: string): never {
    throw new CheckFailure(message);
  }

  check(condition: unknown, message: string): void {
    if (!condition) this.fail(message);
  }

  /** The value, or a failure when it is missing. */
  present<T>(value: T | undefined | null | false | '' | 0, message: string): T {
    if (!value) this.fail(message);
    return value;
  }

  /**
   * The value at `path` in an answer's body (neither missing nor `null`), or a failure naming what the test
   * expected there and where the answer stops short of it (a missing field, `null`, a value of another type).
   * @example const error = t.dig(answer.body, ['organization_import', 0, 'errors', 0], 'the failed order\'s error');
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  dig<T = any>(body: unknown, path: readonly (string | number)[], what: string): T {
    let node: unknown = body;
    for (const [i, step] of path.entries()) {
      const container = typeof step === 'number' ? Array.isArray(node) : node !== null && typeof node === 'object';
      const value = container ? (node as Record<string | number, unknown>)[step] : undefined;
      if (value === undefined || value === null) {
        const at = path.slice(0, i).join('.') || 'the body';
        const found = !container
          ? `it is ${describeValue(node)}`
          : value === null
            ? `${JSON.stringify(step)} is null`
            : `it has no ${JSON.stringify(step)}`;
        this.fail(`expected ${what} at ${path.join('.')} of the answer, but at ${at} ${found}`);
      }
      node = value;
    }
    return node as T;
  }

  /**
   * The array at `path` in an answer's body, or a failure naming what the test expected (see {@link dig}).
   * With `optional`, an answer with nothing at the last step of `path` (a sideload left out) gives `[]`.
   */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  list<T = any>(body: unknown, path: readonly (string | number)[], what: string, optional = false): T[] {
    if (optional && path.length) {
      const holder = this.dig<unknown>(body, path.slice(0, -1), what);
      if (holder !== null && typeof holder === 'object' && (holder as Record<string, unknown>)[path.at(-1)!] == null)
        return [];
    }
    const value = this.dig<unknown>(body, path, what);
    if (!Array.isArray(value))
      this.fail(
        `expected ${what} at ${path.join('.')} of the answer to be an array, but it is ${describeValue(value)}`,
      );
    return value as T[];
  }

  equal<T>(actual: T, expected: T, message: string): void {
    if (!isDeepStrictEqual(actual, expected))
      this.fail(`${message}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
  }

  notEqual<T>(actual: T, unexpected: T, message: string): void {
    if (isDeepStrictEqual(actual, unexpected)) this.fail(`${message}: got ${JSON.stringify(actual)}`);
  }

  /**
   * Skips the test (a warning under `spec`, a failure naming the decision under `full`) when an endpoint the spec
   * leaves "not shown" answers 404, 405 or 501: a service may not have it.
   */
  skipIfAbsent(response: ApiResponse): void {
    const absent = response.operationId ? NOT_SHOWN_ENDPOINTS[response.operationId] : undefined;
    if (!absent || !ABSENT_ENDPOINT_STATUSES.includes(response.status)) return;
    const message = `${response.method} ${new URL(response.url).pathname} answered ${response.status}: the service has no ${response.operationId}, an endpoint the spec does not show`;
    this.decided(absent, false, message, response);
    this.skip(`${message} (decision ${absent})`);
  }

  /** Checks a status; the message names the request and the body. */
  status(response: ApiResponse, expected: StatusExpectation, what = ''): void {
    if (expectsSuccess(expected)) this.skipIfAbsent(response);
    const success = response.status >= 200 && response.status < 300;
    const decided =
      success && expectsSuccess(expected) && response.operationId && !matches(response.status, expected)
        ? this.runtime.http.classifier.statusDecision(response.operationId, response.status)
        : undefined;
    if (decided) {
      // Another success status where the document decided the status (a session created with 201).
      const label = typeof expected === 'object' ? expected.join(' or ') : String(expected);
      this.decided(
        decided.pointer,
        false,
        `${what ? `${what}: ` : ''}${response.method} ${new URL(response.url).pathname} answered ${response.status}, the document decided ${label}`,
        response,
      );
      return;
    }
    if (
      !matches(response.status, expected) &&
      !this.runtime.verdict.acceptsStatus(response.operationId, response.status)
    ) {
      const label = typeof expected === 'object' ? expected.join(' or ') : String(expected);
      // A refusal of another 4xx than a decided one: the failure names the decision of the expected status.
      const refusal =
        typeof expected === 'number' &&
        expected >= 400 &&
        expected < 500 &&
        response.status >= 400 &&
        response.operationId
          ? this.runtime.http.classifier.statusDecision(response.operationId, expected)
          : undefined;
      this.fail(
        `${what ? `${what}: ` : ''}${response.method} ${new URL(response.url).pathname}${new URL(response.url).search} answered ${response.status}, expected ${label}${refusal ? ` (the ${describeDecision(refusal)})` : ''}.${describeBody(response)}`,
      );
    }
  }

  /**
   * A refusal: a 4xx. The spec shows no error status, so under `spec` another 4xx than the decided one is a
   * warning naming the decision of that status; under `full` it fails.
   */
  refused(response: ApiResponse, decided: StatusExpectation, what = ''): void {
    const statuses = typeof decided === 'number' ? [decided] : Array.isArray(decided) ? decided : [];
    const decision =
      statuses.length > 0 && response.operationId && response.status >= 400 && response.status < 500
        ? this.runtime.http.classifier.statusDecision(response.operationId, statuses[0]!)
        : undefined;
    if (!decision || statuses.includes(response.status)) {
      this.status(response, this.full ? decided : '4xx', what);
      return;
    }
    this.decided(
      decision.pointer,
      false,
      `${what ? `${what}: ` : ''}${response.method} ${new URL(response.url).pathname} refused with ${response.status}, the document decided ${statuses.join(' or ')}`,
      response,
    );
  }

  /**
   * Whether the service refused (4xx) a request that rests on `decision` (a shape or value the spec does not
   * show): under `spec` a warning naming the decision, under `full` a failure. A 2xx or 5xx answers false, for
   * the caller to check as usual.
   * @example if (!t.declined(answer, COURIER_ID, 'unassigning with courier_id: null')) t.status(answer, 200);
   */
  declined(response: ApiResponse, decision: string, what: string): boolean {
    if (response.status < 400 || response.status >= 500) return false;
    this.decided(
      decision,
      false,
      `${what}: ${response.method} ${new URL(response.url).pathname} refused with ${response.status}`,
      response,
    );
    return true;
  }

  /** Whether the run checks decisions too. */
  get full(): boolean {
    return this.profile === 'full';
  }

  /** Adds a remark to the result. */
  warn(message: string): void {
    this.runtime.http.sink?.warnings.push(message);
  }

  /**
   * Checks what only a decision of the document fixes (a default, a limit, an order, a convention): a
   * failure under `full`; under `spec` a warning naming the decision, kept with the result's decision warnings.
   * @param decision JSON Pointer of the `x-decision` marker (as openapi/DECISIONS.md lists it).
   */
  decided(decision: string, condition: unknown, message: string, response?: ApiResponse): void {
    if (condition) return;
    const ref = this.runtime.http.classifier.decisionAt(decision);
    if (!ref) throw new Error(`${decision} is not an x-decision of the document`);
    if (this.runtime.verdict.ignoresDecision(decision)) return;
    if (this.full) this.fail(`${message} (breaks the ${describeDecision(ref)})`);
    const sink = this.runtime.http.sink;
    if (!sink) return;
    const request = response ? new URL(response.url) : undefined;
    sink.warnings.push(`${message} (departs from the ${describeDecision(ref)})`);
    (sink.decisionWarnings ??= []).push({
      decision: ref.pointer,
      entry: ref.entry,
      summary: ref.summary,
      operationId: response?.operationId ?? this.test.operations[0] ?? '',
      method: response?.method ?? '',
      path: request ? `${request.pathname}${request.search}` : '',
      status: response?.status ?? 0,
      message,
    });
  }

  /**
   * The `per_page` to list with when a test reads every page: the decided maximum under `full`; under
   * `spec` none (the service's own default), since the spec shows neither default nor maximum.
   */
  get listPage(): { per_page?: number } {
    return this.full ? { per_page: 100 } : {};
  }

  /** Runs a control-API step; a failure skips the test (the capability is missing or broken). */
  async setup<T>(what: string, fn: () => Promise<T>): Promise<T> {
    try {
      return await fn();
    } catch (error) {
      if (error instanceof ControlError) this.skip(`cannot set up ${what}: ${error.message}`);
      throw error;
    }
  }
}
