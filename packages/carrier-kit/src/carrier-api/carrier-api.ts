import { createCarrierClient, isRetryableStatus, parseRetryAfter, type FetchLike } from '@restoapi/sdk';
import type { components } from '@restoapi/openapi';

type Schemas = components['schemas'];
/** The order as the carrier sees it (`GET /orders/{secure_id}`), typed from the document. */
export type CarrierOrder = Schemas['CarrierOrder'];
/** The writable delivery block of a carrier order. */
export type Delivery = Schemas['Delivery'];
/** A delivery status: `idle`, `courier_assigned`, `delivering`, `delivered`, `problem`. */
export type DeliveryStatus = Schemas['DeliveryStatus'];
/** The body of `PUT /orders/{secure_id}/delivery`: the fields of the delivery block to change. */
export type DeliveryUpdate = Schemas['DeliveryUpdate'];
/** The order's status in the carrier view (`new` … `complete`, `cancelled`). */
export type CarrierOrderStatus = Schemas['CarrierOrderStatus'];

/** Per-call options of a {@link CarrierApi}. */
export interface CarrierCallOptions {
  signal?: AbortSignal;
}

/**
 * What the kit needs from the carrier API: read an order, update its delivery. The default
 * implementation sits on the SDK's typed carrier client; any object with these two methods fits
 * (the SDK's `createCarrierClient`, a test double, a client with its own auth proxy).
 */
export interface CarrierApi {
  /** `GET /orders/{secure_id}`: the order in the carrier view. */
  getOrder(secureId: string, options?: CarrierCallOptions): Promise<CarrierOrder>;
  /**
   * `PUT /orders/{secure_id}/delivery`: resolves once the service accepted the update (any 2xx). The spec shows
   * no answer body, so the order comes back only when the answer holds one (`undefined` otherwise).
   */
  updateDelivery(
    secureId: string,
    patch: DeliveryUpdate,
    options?: CarrierCallOptions,
  ): Promise<CarrierOrder | undefined>;
}

/** The names of the errors a bug in JavaScript code throws (a broken call, a number out of range…). */
const PROGRAMMING_ERRORS = new Set([
  'TypeError',
  'RangeError',
  'ReferenceError',
  'SyntaxError',
  'EvalError',
  'URIError',
]);
/**
 * What `fetch` throws when no answer came: a `TypeError` with one of these messages (undici, Chromium,
 * Firefox, Safari, React Native). Any other `TypeError` is a bug.
 */
const FETCH_FAILURE =
  /^(fetch failed|failed to fetch|networkerror when attempting to fetch resource\.?|load failed|network request failed)$/i;

/**
 * Whether an error is a bug in code (ours, a listener's, a custom {@link CarrierApi}'s) rather than a failed
 * exchange: a `TypeError` (other than `fetch`'s own "fetch failed"), `RangeError`, `ReferenceError`…
 * Retrying such an error only repeats the bug.
 */
export function isProgrammingError(error: unknown): boolean {
  if (!(error instanceof Error) || !PROGRAMMING_ERRORS.has(error.name)) return false;
  return !(error.name === 'TypeError' && FETCH_FAILURE.test(error.message));
}

/**
 * Whether a failed call is worth retrying: no answer (connection error, timeout), 408, 425, 429 or 5xx.
 * Works with the SDK's error classes (`ConnectionError`, `RateLimitError`, `InternalServerError`…), any
 * error with a numeric `status`, and plain `fetch` failures. A bug in code ({@link isProgrammingError}) never is.
 */
export function isRetryableError(error: unknown): boolean {
  if (!error || typeof error !== 'object') return false;
  const flagged = (error as { retryable?: unknown }).retryable;
  if (typeof flagged === 'boolean') return flagged;
  const status = (error as { status?: unknown }).status;
  if (typeof status === 'number') return status === 425 || isRetryableStatus(status);
  // No status: the request never got an answer (refused, reset, timed out), unless the error is a bug.
  return error instanceof Error && error.name !== 'AbortError' && !isProgrammingError(error);
}

/** The pause the service asked for with `Retry-After` (429, 503), in milliseconds, when the error carries one. */
export function retryAfterOf(error: unknown): number | undefined {
  const own = (error as { retryAfterMs?: unknown } | undefined)?.retryAfterMs;
  if (typeof own === 'number' && Number.isFinite(own) && own >= 0) return own;
  const headers = (error as { headers?: unknown } | undefined)?.headers;
  return headers instanceof Headers ? parseRetryAfter(headers.get('retry-after')) : undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/** The header that names a mock server session, when there is one. */
function mockSessionHeader(session: string | undefined): Record<string, string> {
  return session === undefined ? {} : { 'X-Mock-Session': session };
}

/** Options of {@link createCarrierApi}. */
export interface CarrierApiOptions {
  /** Base address of the service (`{base_url}`); `/api-delivery` is added. */
  baseUrl: string;
  /** A `fetch` to use instead of the global one. */
  fetch?: typeof fetch;
  /** Time one call may take before it counts as a connection failure (default 10 s). */
  timeoutMs?: number;
  /**
   * Retries inside one call, by the SDK (default 0: the outbox and the agent retry on their own
   * schedule, which tests can drive with a manual clock).
   */
  maxRetries?: number;
  /** Headers added to every call. */
  headers?: Record<string, string>;
  /**
   * The mock server session to work in (sent as `X-Mock-Session`): the mock names it on the callbacks of
   * that session, and the carrier's calls must name it back to reach the same world.
   */
  mockSession?: string;
}

/**
 * The carrier API over the SDK's carrier client (`createCarrierClient`): typed calls, and on failure the
 * SDK's error classes (`NotFoundError`, `ConflictError`, `InternalServerError`, `ConnectionError`…).
 * @example
 * const api = createCarrierApi({ baseUrl: 'http://localhost:4010' });
 * const order = await api.getOrder('c9f3b2a4e1d84f0b9a7c6e5d4f3a2b1c');
 */
export function createCarrierApi(options: CarrierApiOptions): CarrierApi {
  const client = createCarrierClient({
    baseUrl: options.baseUrl,
    timeoutMs: options.timeoutMs ?? 10_000,
    maxRetries: options.maxRetries ?? 0,
    ...(options.fetch ? { fetch: options.fetch as FetchLike } : {}),
    ...(options.headers || options.mockSession !== undefined
      ? { headers: { ...options.headers, ...mockSessionHeader(options.mockSession) } }
      : {}),
  });
  return {
    async getOrder(secureId, callOptions) {
      const { order } = await client.getOrder(secureId, callOptions?.signal ? { signal: callOptions.signal } : {});
      return order;
    },
    async updateDelivery(secureId, patch, callOptions) {
      // No read-back here: the agent reads the order when it needs it, the outbox only needs the 2xx.
      const answer = await client.updateDelivery(secureId, patch, {
        readBack: false,
        ...(callOptions?.signal ? { signal: callOptions.signal } : {}),
      });
      return answer?.order;
    },
  };
}

/**
 * Adapts any client with `getOrder`/`updateDelivery` (for example the SDK's ergonomic carrier
 * client) to a {@link CarrierApi}, accepting answers that are the order or `{ order }`.
 */
export function asCarrierApi(client: {
  getOrder(secureId: string, ...rest: never[]): Promise<unknown>;
  updateDelivery(secureId: string, patch: DeliveryUpdate, ...rest: never[]): Promise<unknown>;
}): CarrierApi {
  const unwrap = (value: unknown): CarrierOrder | undefined => {
    if (!isObject(value)) return undefined;
    const wrapped = value as { order?: unknown; data?: { order?: unknown } };
    const order = wrapped.order ?? (isObject(wrapped.data) ? wrapped.data.order : undefined) ?? value;
    return isObject(order) && typeof order.secure_id === 'string' ? (order as unknown as CarrierOrder) : undefined;
  };
  return {
    getOrder: async (secureId) => {
      const answer = await client.getOrder(secureId);
      return unwrap(answer) ?? (answer as CarrierOrder);
    },
    // Any answer counts: an update's answer body is not shown by the spec (204, an empty body…).
    updateDelivery: async (secureId, patch) => unwrap(await client.updateDelivery(secureId, patch)),
  };
}
