import { createControlClient, type ControlClient } from '@restoapi/mock-server';
import { createMockServer, type MockServer } from '@restoapi/mock-server/node';
import { createRawClient, type components, type RawMainClient } from '@restoapi/sdk';
import { startIndependentService, type DepartureName } from '../../../../scripts/testing/independent-service.js';
import type { Scheduler } from '../../src/time/scheduler.js';
import { systemScheduler } from '../../src/time/scheduler.js';

/** Friday evening in Berlin: every demo zone is open. */
export const FRIDAY_EVENING = '2026-11-20T18:30:00+01:00';

/** A mock server on loopback with its control client and a staff session of Pizza Piccolo. */
export interface World {
  mock: MockServer;
  url: string;
  control: ControlClient;
  /** Main API as the organization administrator (Anna Schmidt). */
  admin: RawMainClient;
  /** A scheduler reading the mock's virtual clock (for signature timestamps). */
  mockTime: Scheduler;
  close(): Promise<void>;
}

/**
 * The service of a world: the mock, or the independent implementation in front of it (`scripts/testing`), which
 * decides differently where the spec says "not shown" (every departure, or the ones named).
 */
export type WorldService = 'mock' | 'independent' | readonly DepartureName[];
/** The mock and the independent implementation, for `describe.each`. */
export const SERVICES: WorldService[] = ['mock', 'independent'];

/** The independent implementation on a free port, shaped like the mock server the world keeps. */
async function independentServer(departures: readonly DepartureName[] | undefined): Promise<MockServer> {
  const running = await startIndependentService({
    ...(departures ? { departures } : {}),
    mock: { validateResponses: true },
  });
  // A world reads the mock behind it (its clock, its state) and closes it; nothing else of a MockServer.
  return { mock: running.service.mock, url: running.url, close: running.close } as unknown as MockServer;
}

/**
 * Starts the mock on a free port with the clock frozen on a Friday evening; with `mockSession`, the world is
 * that session of the mock (every call of the world names it); with `service`, the independent implementation
 * serves the API in front of the mock (its control API passes through).
 */
export async function startWorld(options: { mockSession?: string; service?: WorldService } = {}): Promise<World> {
  const service = options.service ?? 'mock';
  const mock =
    service === 'mock'
      ? await createMockServer({ port: 0, validateResponses: true })
      : await independentServer(service === 'independent' ? undefined : service);
  const named = options.mockSession;
  const headers: Record<string, string> = named === undefined ? {} : { 'X-Mock-Session': named };
  const control = createControlClient({ baseUrl: mock.url, ...(named === undefined ? {} : { session: named }) });
  await expectOk(control.PUT('/__mock/clock', { body: { now: FRIDAY_EVENING, frozen: true } }));
  const session = await fetch(`${mock.url}/api/session?login=admin@pizza.demo&password=demo`, {
    method: 'POST',
    headers,
  });
  const { meta } = (await session.json()) as { meta: { token: string } };
  const admin = createRawClient({ baseUrl: mock.url, token: meta.token, headers });
  const instance = named === undefined ? mock.mock : mock.mock.session(named);
  return {
    mock,
    url: mock.url,
    control,
    admin,
    mockTime: { ...systemScheduler, now: () => instance.runtime.clock.nowMs() },
    close: () => mock.close(),
  };
}

/** Throws unless an openapi-fetch call succeeded; returns its data. */
export async function expectOk<T>(call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok) throw new Error(`${response.url} answered ${response.status}: ${JSON.stringify(error)}`);
  return data as T;
}

/** Registers a carrier for Pizza Piccolo's restaurants with the mock. */
export async function registerCarrier(
  world: World,
  callbackUrl: string,
  extra: { secret?: string; chaos?: { duplicate?: number; delayMs?: number; reorder?: boolean; seed?: number } } = {},
): Promise<number> {
  const data = await expectOk(
    world.control.POST('/__mock/carriers', {
      body: { name: 'Kurier Berlin', callback_url: callbackUrl, restaurant_ids: [11, 12], ...extra },
    }),
  );
  return data.carrier.id;
}

/** Delivery addresses inside the Kreuzberg zone (lat, lon). */
export const KREUZBERG_ADDRESSES: [string, number, number][] = [
  ['Wiener Straße 18', 52.4975, 13.431],
  ['Skalitzer Straße 80', 52.4995, 13.4255],
  ['Reichenberger Straße 120', 52.4965, 13.4355],
  ['Lausitzer Platz 5', 52.5005, 13.4305],
  ['Paul-Lincke-Ufer 22', 52.4935, 13.4305],
  ['Manteuffelstraße 40', 52.4985, 13.4215],
];

/** Places a storefront order in Kreuzberg (a Margherita and a cola) and returns it. */
export async function placeOrder(world: World, index = 0): Promise<components['schemas']['Order']> {
  const [address, latitude, longitude] = KREUZBERG_ADDRESSES[index % KREUZBERG_ADDRESSES.length]!;
  const data = await expectOk(
    world.control.POST('/__mock/orders', {
      body: {
        organization_id: 1,
        latitude,
        longitude,
        city: 'Berlin',
        address,
        contact_name: 'Jonas Becker',
        contact_phone: '+49 170 1112233',
        payment_source: 'cash',
        change: 50,
        delivery_asap: true,
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
      },
    }),
  );
  return data.order;
}

/** Moves an order along the main API as its restaurant would. */
export async function setOrderStatus(
  world: World,
  orderId: number,
  status: components['schemas']['OrderStatus'],
): Promise<void> {
  await expectOk(world.admin.PUT('/api/orders/{id}/status', { params: { path: { id: orderId }, query: { status } } }));
}

/** The order as the main API shows it, with its sideloaded couriers. */
export async function mainOrder(world: World, orderId: number): Promise<components['schemas']['OrderResponse']> {
  return expectOk(world.admin.GET('/api/orders/{id}', { params: { path: { id: orderId } } }));
}

/** Every callback the mock made, from its control API. */
export async function callbacks(world: World, query: { order_id?: number; carrier_id?: number } = {}) {
  const data = await expectOk(world.control.GET('/__mock/callbacks', { params: { query } }));
  return data.callbacks;
}

/** Moves the mock's clock, running every callback attempt that falls due on the way. */
export async function advanceMock(world: World, ms: number): Promise<void> {
  await expectOk(world.control.POST('/__mock/clock/advance', { body: { ms } }));
}

/** Waits until `check` holds, polling every 10 ms (real time), or fails after `timeoutMs`. */
export async function eventually(
  check: () => boolean | Promise<boolean>,
  timeoutMs = 5000,
  what = 'condition',
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
