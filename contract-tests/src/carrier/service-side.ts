/**
 * The service side of a carrier conformance run: the mock engine with the demo world, served over HTTP at
 * the address the carrier is told to use, with a recorder of every carrier API call it answers.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Mock, MockStateJson } from '@restoapi/mock-server';
import type { Exchange } from '../runner/http.js';

/** One call of the carrier API as the service side saw it. */
export interface CarrierCall extends Exchange {
  /** When the request arrived (ms since the epoch). */
  at: number;
  /** When the answer was written (ms since the epoch). */
  answeredAt: number;
  /** `load` for `GET …/orders/{secure_id}`, `update` for `PUT …/delivery`, `other` for anything else. */
  kind: 'load' | 'update' | 'other';
  /** The `secure_id` of the path, when it names one. */
  secureId?: string;
  /** The request body parsed as JSON (updates), or `undefined` when it is not JSON. */
  json?: unknown;
  /** `Retry-After` of the answer, in seconds, when it had one. */
  retryAfter?: number;
}

/** A callback attempt of the mock's log (`GET /__mock/callbacks`). */
export interface CallbackAttemptLog {
  at: string;
  outcome: 'delivered' | 'failed';
  status: number | null;
  error: string | null;
  duration_ms: number;
}

/** A callback of the mock's log, with its delivery attempts. */
export interface CallbackLog {
  id: number;
  order_id: number;
  type: string;
  query: Record<string, string>;
  webhook_id?: string | null;
  duplicate_of: number | null;
  state: 'pending' | 'delivered' | 'failed';
  attempts: CallbackAttemptLog[];
}

/** The carrier under test as the service side registers it. */
export interface CarrierRegistration {
  callbackUrl: string;
  secret?: string;
  chaos?: Chaos;
}

/** Chaos options of a carrier registration (the control API's `CarrierChaos`). */
export interface Chaos {
  duplicate?: number;
  delayMs?: number;
  reorder?: boolean;
  seed?: number;
}

/** A running service side. */
export interface ServiceSide {
  /** Base URL of the service; the carrier API is at `${url}/api-delivery`. */
  url: string;
  mock: Mock;
  /** Every carrier API call answered since the last {@link ServiceSide.reset}. */
  calls: CarrierCall[];
  /** Listeners told of every carrier API call as it is answered. */
  onCall: Set<(call: CarrierCall) => void>;
  /** Removes every carrier and fault and forgets the calls so far, then registers the carrier anew. */
  reset(carrier: CarrierRegistration): Promise<void>;
  /** Removes every carrier and fault and registers the carrier anew, keeping the calls so far. */
  register(carrier: CarrierRegistration): Promise<void>;
  /** Places a storefront order that goes to the carrier; answers its id and `secure_id`. */
  placeOrder(): Promise<{ id: number; secureId: string }>;
  /**
   * Sets the main status of an order as the restaurant's staff would (`PUT /api/orders/{id}/status`); false
   * when the order's state does not allow it (409).
   */
  setOrderStatus(orderId: number, status: string): Promise<boolean>;
  /** Arms a fault of the control API (`POST /__mock/faults`). */
  addFault(fault: { method: string; path: string; status: number; retryAfter?: number; count?: number }): Promise<void>;
  /** The callback log of the current world. */
  callbacks(): Promise<CallbackLog[]>;
  /** The carrier view of an order as the service holds it (not recorded as a carrier call). */
  view(secureId: string): Promise<{ order_status: string; delivery: { status: string } } | undefined>;
  close(): Promise<void>;
}

/** Options of {@link startServiceSide}. */
export interface ServiceSideOptions {
  /** Where to listen, e.g. `http://127.0.0.1:4010` (port 0 picks a free one); the default is `http://127.0.0.1:0`. */
  serviceUrl?: string;
  /** How long the service waits for a callback's answer, in ms. */
  callbackTimeoutMs: number;
}

/** The demo world, open around the clock: the callbacks' timestamps must be real ones for signatures to verify. */
function openWorld(demoSeed: (now: Date) => MockStateJson): MockStateJson {
  const state = demoSeed(new Date());
  for (const zone of state.deliveryZones?.rows ?? []) zone.timetables = [];
  return state;
}

const STAFF = { login: 'admin@pizza.demo', password: 'demo' };
/** An order of the demo world: Pizza Piccolo delivers to Wiener Straße (see docs/guides/carriers.md). */
const ORDER = {
  organization_id: 1,
  latitude: 52.4975,
  longitude: 13.431,
  city: 'Berlin',
  address: 'Wiener Straße 18',
  contact_name: 'Jonas Becker',
  contact_phone: '+49 170 1112233',
  payment_source: 'cash',
  delivery_asap: true,
  items: [{ dish_id: 10001, amount: 1, config: [{ group: 'Size', items: ['40 cm'] }] }],
};

/** Headers every HTTP client sets by itself: left out of the record and so out of the curl reproducers. */
const TRANSPORT_HEADERS = new Set([
  'host',
  'connection',
  'content-length',
  'accept',
  'accept-encoding',
  'accept-language',
  'sec-fetch-mode',
  'user-agent',
]);

const LOAD = /^\/api-delivery\/orders\/([^/]+)$/;
const UPDATE = /^\/api-delivery\/orders\/([^/]+)\/delivery$/;

/** The service side cannot start where it was asked to listen. */
export class ServiceSideError extends Error {
  override name = 'ServiceSideError';
}

/** Starts the service side: the mock with the demo world, listening where the carrier is told to call. */
export async function startServiceSide(options: ServiceSideOptions): Promise<ServiceSide> {
  const bind = new URL(options.serviceUrl ?? 'http://127.0.0.1:0');
  // Loaded only here: the main suite's command and API need none of the mock.
  const [{ createMock, demoSeed }, { toFetchRequest, writeFetchResponse }] = await Promise.all([
    import('@restoapi/mock-server'),
    import('@restoapi/mock-server/node'),
  ]);
  const seed = openWorld(demoSeed);
  const mock = createMock({ state: structuredClone(seed), config: { callbackTimeoutMs: options.callbackTimeoutMs } });
  const calls: CarrierCall[] = [];
  const onCall = new Set<(call: CarrierCall) => void>();
  let origin = '';

  const server: Server = createServer((req, res) => {
    const at = Date.now();
    void (async () => {
      const request = toFetchRequest(req, origin);
      const url = new URL(request.url);
      const carrierPath = url.pathname.startsWith('/api-delivery/');
      const body = carrierPath && request.method !== 'GET' ? await request.clone().text() : undefined;
      const response = await mock.fetch(request);
      if (carrierPath) {
        const answer = await response.clone().text();
        const load = LOAD.exec(url.pathname);
        const update = UPDATE.exec(url.pathname);
        const headers: Record<string, string> = {};
        request.headers.forEach((value, name) => {
          if (!TRANSPORT_HEADERS.has(name)) headers[name] = value;
        });
        let json: unknown;
        try {
          json = body ? JSON.parse(body) : undefined;
        } catch {
          json = undefined;
        }
        const retryAfter = Number(response.headers.get('retry-after') ?? Number.NaN);
        const call: CarrierCall = {
          at,
          answeredAt: Date.now(),
          method: request.method,
          url: request.url,
          headers,
          ...(body !== undefined ? { body } : {}),
          status: response.status,
          answer,
          faulty: response.status >= 500,
          kind: request.method === 'GET' && load ? 'load' : request.method === 'PUT' && update ? 'update' : 'other',
          ...((load ?? update) ? { secureId: decodeURIComponent((load ?? update)![1]!) } : {}),
          ...(json !== undefined ? { json } : {}),
          ...(Number.isFinite(retryAfter) ? { retryAfter } : {}),
        };
        calls.push(call);
        for (const listener of onCall) listener(call);
      }
      await writeFetchResponse(response, res);
    })().catch((error: unknown) => {
      res.statusCode = 500;
      res.end(String(error));
    });
  });
  const host = bind.hostname.replace(/^\[|\]$/g, '');
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(Number(bind.port || 0), host, () => resolve());
    });
  } catch (error) {
    mock.close();
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE')
      throw new ServiceSideError(`port ${bind.port} on ${host} is already in use; choose another with --service-url`);
    throw new ServiceSideError(`the service side cannot listen at ${bind.origin}: ${(error as Error).message}`);
  }
  const { port } = server.address() as AddressInfo;
  origin = `${bind.protocol}//${bind.hostname}:${port}`;
  mock.runtime.baseUrl = origin;

  const local = (path: string, init: RequestInit = {}): Promise<Response> =>
    mock.fetch(`${origin}${path}`, {
      ...init,
      headers: { ...(init.body ? { 'Content-Type': 'application/json' } : {}), ...(init.headers ?? {}) },
    });
  const expect = async (response: Response, what: string): Promise<unknown> => {
    const text = await response.text();
    if (!response.ok) throw new Error(`the service side could not ${what}: ${response.status} ${text.slice(0, 300)}`);
    return text ? JSON.parse(text) : undefined;
  };
  // The first request of each operation compiles its validators: done now, so the first callback's answer
  // is not timed against that work.
  for (const init of [{}, { method: 'PUT', body: '{"status":"idle"}' }])
    await (await local(`/api-delivery/orders/warm-up${init.method ? '/delivery' : ''}`, init)).arrayBuffer();
  // Logged in ahead: a cancellation must follow its order at once for the callbacks to be reordered.
  const { meta } = (await expect(
    await local(
      `/api/session?login=${encodeURIComponent(STAFF.login)}&password=${encodeURIComponent(STAFF.password)}`,
      { method: 'POST' },
    ),
    'log in as staff',
  )) as { meta: { token: string } };
  const token = meta.token;

  const side: ServiceSide = {
    url: origin,
    mock,
    calls,
    onCall,

    async reset(carrier) {
      // The world stays (order ids never repeat, as on a real service); carriers, faults and the record go.
      calls.length = 0;
      await side.register(carrier);
    },

    async register(carrier) {
      const { carriers } = (await expect(await local('/__mock/carriers'), 'list the carriers')) as {
        carriers: { id: number }[];
      };
      for (const { id } of carriers)
        await expect(await local(`/__mock/carriers/${id}`, { method: 'DELETE' }), `remove carrier ${id}`);
      await expect(await local('/__mock/faults', { method: 'DELETE' }), 'clear the faults');
      await expect(
        await local('/__mock/carriers', {
          method: 'POST',
          body: JSON.stringify({
            name: 'Carrier under test',
            callback_url: carrier.callbackUrl,
            ...(carrier.secret ? { secret: carrier.secret } : {}),
            ...(carrier.chaos ? { chaos: carrier.chaos } : {}),
          }),
        }),
        `register the carrier at ${carrier.callbackUrl}`,
      );
    },

    async placeOrder() {
      const body = (await expect(
        await local('/__mock/orders', { method: 'POST', body: JSON.stringify(ORDER) }),
        'place a storefront order',
      )) as { order: { id: number } };
      const id = body.order.id;
      const created = (await side.callbacks()).find((c) => c.order_id === id && c.type === 'order_created');
      if (!created) throw new Error(`the service side handed order ${id} to no carrier`);
      return { id, secureId: created.query.order_secure_id! };
    },

    async setOrderStatus(orderId, status) {
      const response = await local(`/api/orders/${orderId}/status?status=${status}&send_sms=false`, {
        method: 'PUT',
        headers: { Authorization: `Token token="${token}"` },
      });
      // 409: the order is over already (a fast carrier delivered it); the caller decides what that means.
      if (response.status === 409) {
        await response.arrayBuffer();
        return false;
      }
      await expect(response, `set order ${orderId} to ${status}`);
      return true;
    },

    async addFault(fault) {
      await expect(await local('/__mock/faults', { method: 'POST', body: JSON.stringify(fault) }), 'arm a fault');
    },

    async callbacks() {
      const body = (await expect(await local('/__mock/callbacks'), 'read the callback log')) as {
        callbacks: CallbackLog[];
      };
      return body.callbacks;
    },

    async view(secureId) {
      const response = await local(`/api-delivery/orders/${encodeURIComponent(secureId)}`);
      if (!response.ok) return undefined;
      return ((await response.json()) as { order: { order_status: string; delivery: { status: string } } }).order;
    },

    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      mock.close();
    },
  };
  return side;
}
