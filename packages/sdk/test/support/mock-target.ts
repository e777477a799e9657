/**
 * Test support: the mock server reached in-process (`mock.fetch`) or over HTTP on loopback, with its control
 * client, and SDK clients signed in as the demo users.
 */
import {
  createControlClient,
  createMock,
  type ControlClient,
  type MockOptions,
  type MockEngine,
} from '@restoapi/mock-server';
import { createMockServer } from '@restoapi/mock-server/node';
import { createIndependentService } from '../../../../scripts/testing/independent-service.js';
import { expect } from 'vitest';
import {
  createCarrierClient,
  createRestoClient,
  RestoApiError,
  UnprocessableEntityError,
  type CarrierClient,
  type CarrierClientOptions,
  type RestoClient,
  type RestoClientOptions,
} from '@restoapi/sdk';

/**
 * How the SDK reaches the service: the mock in-process or over HTTP, or `independent`: the independent
 * implementation (`scripts/testing/independent-service.ts`, every departure on) in front of the mock, in-process.
 */
export type Transport = 'in-process' | 'http' | 'independent';
/** Both transports to the mock, for `describe.each`. */
export const TRANSPORTS: Transport[] = ['in-process', 'http', 'independent'];
/** The mock and an independent implementation deciding differently where the spec says "not shown". */
export const ANY_SERVICE: Transport[] = ['in-process', 'independent'];

/** Friday 20 November 2026, 18:30 in Berlin: every demo zone is open (11:00–23:00). */
export const FRIDAY_EVENING = '2026-11-20T18:30:00+01:00';

/** A running mock and how to reach it. */
export interface MockTarget {
  transport: Transport;
  /**
   * Whether the service makes our document's decisions where the spec says "not shown" (the mock); `false` for
   * the independent implementation, where a test checks only what the spec states.
   */
  ours: boolean;
  baseUrl: string;
  /** `mock.fetch` in-process; `undefined` over HTTP (the global fetch). */
  fetch: ((input: string | Request, init?: RequestInit) => Promise<Response>) | undefined;
  mock: MockEngine;
  control: ControlClient;
  /** URLs of the carrier callbacks the mock sent (captured, never really sent). */
  callbacks: URL[];
  /** A client of the main API (not signed in) with extra options. */
  client(options?: Partial<RestoClientOptions>): RestoClient;
  /** A client signed in as a demo user (password `demo`). */
  signIn(login?: string, options?: Partial<RestoClientOptions>): Promise<RestoClient>;
  /** A carrier API client. */
  carrier(options?: Partial<CarrierClientOptions>): CarrierClient;
  close(): Promise<void>;
}

const IN_PROCESS_BASE = 'http://localhost:4010';

/** Starts a demo-world mock (answers checked against the document) reached through `transport`. */
export async function startMock(
  transport: Transport,
  options: MockOptions & { frozenAt?: string } = {},
): Promise<MockTarget> {
  const callbacks: URL[] = [];
  const callbackFetch = (async (input: RequestInfo | URL) => {
    callbacks.push(new URL(input instanceof Request ? input.url : String(input)));
    return new Response(null, { status: 204 });
  }) as typeof fetch;
  const { frozenAt, ...mockOptions } = options;
  const settings: MockOptions = { validateResponses: true, callbackFetch, ...mockOptions };
  let mock: MockEngine;
  let baseUrl: string;
  let close: () => Promise<void>;
  let sdkFetch: MockTarget['fetch'];
  if (transport === 'in-process') {
    mock = createMock(settings);
    baseUrl = IN_PROCESS_BASE;
    sdkFetch = (request, init) => mock.fetch(request, init);
    close = async () => mock.close();
  } else if (transport === 'independent') {
    const service = createIndependentService({ mock: settings });
    mock = service.mock;
    baseUrl = IN_PROCESS_BASE;
    sdkFetch = (request, init) => service.fetch(request, init);
    close = () => service.close();
  } else {
    const server = await createMockServer({ port: 0, ...settings });
    mock = server.mock;
    baseUrl = server.url;
    sdkFetch = undefined;
    close = () => server.close();
  }
  const via = sdkFetch ? { fetch: sdkFetch } : {};
  const control = createControlClient({ baseUrl, ...via });
  if (frozenAt) {
    const { response } = await control.PUT('/__mock/clock', { body: { now: frozenAt, frozen: true } });
    if (response.status !== 200) throw new Error(`could not set the clock: ${response.status}`);
  }
  const client = (extra: Partial<RestoClientOptions> = {}): RestoClient =>
    createRestoClient({ baseUrl, ...via, ...extra });
  return {
    transport,
    ours: transport !== 'independent',
    baseUrl,
    fetch: sdkFetch,
    mock,
    control,
    callbacks,
    client,
    async signIn(login = 'admin@pizza.demo', extra = {}) {
      const api = client(extra);
      await api.session.login(login, 'demo');
      return api;
    },
    carrier: (extra = {}) => createCarrierClient({ baseUrl, ...via, ...extra }),
    close,
  };
}

/** The documentation's example order (a 40 cm Margherita with mozzarella and a cola to Wiener Straße 18, zone 101). */
export function margheritaOrder() {
  return {
    organization_id: 1,
    latitude: 52.4975,
    longitude: 13.431,
    city: 'Berlin',
    address: 'Wiener Straße 18',
    apartment: '4',
    floor: '2',
    contact_name: 'Jonas Becker',
    contact_phone: '+49 170 1112233',
    payment_source: 'cash' as const,
    change: 50,
    items: [
      {
        dish_id: 10001,
        amount: 1,
        config: [
          { group: 'Size', items: ['40 cm'] },
          { group: 'Extra toppings', items: ['Mozzarella'] },
        ],
      },
      { dish_id: 10003, amount: 1 },
    ],
  };
}

/** Registers a carrier, places a storefront order and returns the `secure_id` from the captured `order_created` callback. */
export async function handedOverOrder(target: MockTarget): Promise<{ orderId: number; secureId: string }> {
  const registered = await target.control.POST('/__mock/carriers', {
    body: { callback_url: 'http://carrier.test/callbacks', restaurant_ids: [11], name: 'Kurier Berlin' },
  });
  if (registered.response.status !== 201)
    throw new Error(`could not register a carrier: ${registered.response.status}`);
  const placed = await target.control.POST('/__mock/orders', { body: margheritaOrder() });
  if (placed.response.status !== 201)
    throw new Error(`could not place an order: ${placed.response.status} ${JSON.stringify(placed.error)}`);
  const orderId = placed.data!.order.id;
  for (let i = 0; i < 50; i++) {
    const created = target.callbacks.find(
      (url) => url.searchParams.get('type') === 'order_created' && url.searchParams.get('order_id') === String(orderId),
    );
    if (created) return { orderId, secureId: created.searchParams.get('order_secure_id')! };
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('no order_created callback was sent');
}

/** Arms a fault of the mock (`POST /__mock/faults`). */
export async function injectFault(
  target: MockTarget,
  fault: {
    method: 'GET' | 'POST' | 'PUT' | 'DELETE' | '*';
    path: string;
    status?: number;
    latencyMs?: number;
    count?: number;
    retryAfter?: number;
  },
): Promise<void> {
  const { response } = await target.control.POST('/__mock/faults', { body: { count: 1, ...fault } });
  if (response.status !== 201) throw new Error(`could not inject the fault: ${response.status}`);
}

/** A logger that records every line, for assertions. */
export function recordingLogger() {
  const lines: {
    level: 'debug' | 'info' | 'warn' | 'error';
    message: string;
    details: Record<string, unknown> | undefined;
  }[] = [];
  const at =
    (level: (typeof lines)[number]['level']) =>
    (message: string, details?: Record<string, unknown>): void => {
      lines.push({ level, message, details });
    };
  return { lines, logger: { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') } };
}

/** The smallest valid PNG (1×1, transparent). */
export const TINY_PNG = Uint8Array.from(
  atob('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=='),
  (c) => c.charCodeAt(0),
);

/**
 * Checks the refusal of an invalid field: on the mock, our decision (422, an `UnprocessableEntityError` naming the
 * field); on the independent implementation, any 4xx error (the spec shows neither the status nor the body).
 */
export function expectInvalid(target: MockTarget, error: unknown, pointer?: string): void {
  if (target.ours) {
    expect(error).toBeInstanceOf(UnprocessableEntityError);
    if (pointer !== undefined) expect((error as UnprocessableEntityError).pointers).toContain(pointer);
    return;
  }
  expect(error).toBeInstanceOf(RestoApiError);
  expect((error as RestoApiError).status).toBeGreaterThanOrEqual(400);
  expect((error as RestoApiError).status).toBeLessThan(500);
}
