import type { controlComponents } from '@restoapi/openapi';
import { errorObject } from '../engine/http-error.js';

/** A fault as the control API describes it (`Fault`). */
export type Fault = controlComponents['schemas']['Fault'];

/** What `POST /__mock/faults` takes (`FaultCreate`). */
export type FaultInput = controlComponents['schemas']['FaultCreate'];

/** Fault injection for one mock instance: plug {@link FaultInjector.beforeRequest} into the engine. */
export interface FaultInjector {
  /** The engine hook: delays and/or answers the next matching requests of the service's API. */
  beforeRequest(request: Request, url: URL): Promise<Response | undefined>;
  /**
   * {@link FaultInjector.beforeRequest} from the method and URL alone, which is all a fault reads (the
   * engine's `preflight`, so no fetch `Request` is built per request). `undefined` at once when no fault is armed.
   */
  intercept(method: string, url: URL, signal?: AbortSignal): Promise<Response | undefined> | undefined;
  /** Arms a fault; `now` is the creation time shown in the list. */
  add(input: FaultInput, now: string): Fault;
  /** The armed faults, oldest first. */
  list(): Fault[];
  /** Disarms one fault; returns whether it existed. */
  remove(id: number): boolean;
  /** Disarms every fault. */
  clear(): void;
}

const CODES: Record<number, [code: string, title: string]> = {
  400: ['invalid_parameter', 'Bad request'],
  401: ['unauthenticated', 'Authentication required'],
  403: ['forbidden', 'Action not allowed for this account'],
  404: ['not_found', 'Not found'],
  409: ['conflict', 'Conflict with the current state'],
  413: ['too_large', 'Request body too large'],
  415: ['unsupported_media_type', 'Unsupported Content-Type'],
  422: ['invalid_value', 'Invalid value'],
  429: ['rate_limited', 'Too many requests'],
  503: ['unavailable', 'Service temporarily unavailable'],
};

/** Whether a path belongs to the mock's own routes (`/__mock`, and other `/__…` tooling), which faults never touch. */
function isMockPath(pathname: string): boolean {
  return pathname.startsWith('/__');
}

function globToRegExp(glob: string): RegExp {
  const escaped = glob.split('*').map((part) => part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return new RegExp(`^${escaped.join('.*')}$`);
}

/** The error answer of a fault: the service's error body, with `Retry-After` where the document promises it. */
export function faultResponse(fault: Fault, request: { method: string }): Response {
  const status = fault.status ?? 500;
  const [code, title] =
    CODES[status] ?? (status >= 500 ? ['internal', 'Internal error'] : ['invalid_value', 'Request refused']);
  const headers: Record<string, string> = {
    'Content-Type': 'application/json; charset=utf-8',
    'X-Request-Id': `req_fault_${fault.id}_${fault.remaining}`,
  };
  if (fault.retryAfter !== null) headers['Retry-After'] = String(fault.retryAfter);
  const detail =
    status === 429 || status === 503
      ? `Injected fault ${fault.id} for ${request.method} ${fault.path}: retry after ${fault.retryAfter ?? 1} s.`
      : `Injected fault ${fault.id} for ${request.method} ${fault.path}.`;
  return new Response(JSON.stringify({ errors: [errorObject(status, code, title, detail)] }), { status, headers });
}

/** Waits `ms`, or less when `signal` aborts first (resolves either way: the caller checks the signal). */
function delay(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = (): void => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
  });
}

/**
 * Creates the fault injector of `POST /__mock/faults`. Latency is real time (it is what the client
 * under test waits), not virtual time. The oldest matching fault applies, and each matching request
 * uses up one of its `count`.
 */
export function createFaultInjector(): FaultInjector {
  const faults: (Fault & { pattern: RegExp })[] = [];
  let nextId = 1;

  const view = ({ pattern: _pattern, ...fault }: Fault & { pattern: RegExp }): Fault => ({ ...fault });

  const apply = async (
    fault: Fault & { pattern: RegExp },
    method: string,
    signal: AbortSignal | undefined,
  ): Promise<Response | undefined> => {
    const snapshot = view(fault);
    if (fault.latencyMs > 0) await delay(fault.latencyMs, signal);
    // A caller that gave up during the latency never sees this answer; the request must not take effect either.
    if (signal?.aborted) return faultResponse({ ...snapshot, status: 503 }, { method });
    return snapshot.status === null ? undefined : faultResponse(snapshot, { method });
  };

  const intercept = (method: string, url: URL, signal?: AbortSignal): Promise<Response | undefined> | undefined => {
    if (faults.length === 0 || isMockPath(url.pathname)) return undefined;
    const upper = method.toUpperCase();
    const index = faults.findIndex((f) => (f.method === '*' || f.method === upper) && f.pattern.test(url.pathname));
    if (index < 0) return undefined;
    const fault = faults[index]!;
    // Used up synchronously, before any latency: concurrent requests each take their own share of `count`.
    fault.remaining -= 1;
    if (fault.remaining <= 0) faults.splice(index, 1);
    return apply(fault, method, signal);
  };

  return {
    async beforeRequest(request, url) {
      return intercept(request.method, url, request.signal);
    },

    intercept,

    add(input, now) {
      const status = input.status ?? null;
      const fault = {
        id: nextId++,
        method: input.method.toUpperCase(),
        path: input.path,
        status,
        latencyMs: input.latencyMs ?? 0,
        retryAfter: status === 429 || status === 503 ? (input.retryAfter ?? 1) : null,
        remaining: input.count ?? 1,
        created_at: now,
        pattern: globToRegExp(input.path),
      };
      faults.push(fault);
      return view(fault);
    },

    list() {
      return faults.map(view);
    },

    remove(id) {
      const index = faults.findIndex((f) => f.id === id);
      if (index < 0) return false;
      faults.splice(index, 1);
      return true;
    },

    clear() {
      faults.length = 0;
    },
  };
}
