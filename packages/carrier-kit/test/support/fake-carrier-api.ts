import { ConflictError, ConnectionError, NotFoundError, errorFromResponse } from '@restoapi/sdk';
import type { CarrierApi, CarrierOrder, DeliveryUpdate } from '../../src/carrier-api/carrier-api.js';
import { deliveryStateMachine } from '../../src/tracker/delivery-state-machine.js';

/** A call the fake received. */
export interface FakeCall {
  method: 'GET' | 'PUT';
  secureId: string;
  patch?: DeliveryUpdate;
  at: number;
}

/**
 * What a scripted failure does: an error answer, no answer (`connection`, or `fetch failed`: what `fetch` itself
 * throws), or a bug in the client's code (`bug`: a TypeError such as a destructured `undefined`).
 */
export type FakeFailure = { status: number; retryAfterMs?: number } | 'connection' | 'fetch failed' | 'bug';

/** Builds a carrier order in the `new` state, like the mock's `new_order` example. */
export function carrierOrder(id: number, overrides: Partial<CarrierOrder> = {}): CarrierOrder {
  return {
    id,
    secure_id: `secure-${id}`,
    number: `PP-${id}`,
    created_at: '2026-11-20T19:12:00+01:00',
    delivery: {
      status: 'idle',
      message: null,
      courier_name: null,
      courier_phone: null,
      courier_external_id: null,
      lat: null,
      lon: null,
    },
    order_status: 'new',
    description: '',
    contact_phone: '+49 176 4455667',
    contact_name: 'Mia Hoffmann',
    delivery_time: 40,
    delivery_at: '2026-11-20T19:52:00+01:00',
    pickup_at: '2026-11-20T19:35:00+01:00',
    delivery_asap: true,
    payment_source: 'card',
    destination: { address: 'Wiener Straße 18', city: 'Berlin', lon: 13.431, lat: 52.4975 },
    restaurant: {
      organization_name: 'Pizza Piccolo',
      name: 'Pizza Piccolo Kreuzberg',
      phone: '+49 30 1234501',
      address: 'Oranienstraße 45, 10969 Berlin',
    },
    change: null,
    items_price: 23.8,
    delivery_price: 2.5,
    final_price: 26.3,
    items: [{ name: 'Diavolo', amount: 2, price: 23.8, config_text: null }],
    ...overrides,
  };
}

/**
 * An in-memory carrier API with the document's delivery rules, scripted failures and a call log,
 * for unit tests that must not depend on the mock server.
 */
export class FakeCarrierApi implements CarrierApi {
  readonly orders = new Map<string, CarrierOrder>();
  readonly calls: FakeCall[] = [];
  private readonly failures: FakeFailure[] = [];
  /** When set, every call waits for this promise first (to hold calls in flight). */
  gate: Promise<void> | undefined;
  /** `false`: delivery updates answer like a service that says `204` (no order in the answer). */
  answersWithOrder = true;
  now: () => number = () => Date.now();

  add(order: CarrierOrder): CarrierOrder {
    this.orders.set(order.secure_id, structuredClone(order));
    return order;
  }

  /** The next `count` calls fail this way. */
  fail(failure: FakeFailure, count = 1): void {
    for (let i = 0; i < count; i++) this.failures.push(failure);
  }

  /** Forgets the scripted failures not used yet (the service is back). */
  recover(): void {
    this.failures.length = 0;
  }

  /** Sets the order status as the restaurant side would. */
  setOrderStatus(secureId: string, status: CarrierOrder['order_status']): void {
    this.orders.get(secureId)!.order_status = status;
  }

  puts(secureId?: string): DeliveryUpdate[] {
    return this.calls
      .filter((c) => c.method === 'PUT' && (secureId === undefined || c.secureId === secureId))
      .map((c) => c.patch!);
  }

  async getOrder(secureId: string): Promise<CarrierOrder> {
    this.calls.push({ method: 'GET', secureId, at: this.now() });
    await this.maybeFail('GET /orders/{secure_id}');
    const order = this.orders.get(secureId);
    if (!order) throw new NotFoundError({ operation: 'GET /orders/{secure_id}', status: 404 });
    return structuredClone(order);
  }

  async updateDelivery(secureId: string, patch: DeliveryUpdate): Promise<CarrierOrder | undefined> {
    this.calls.push({ method: 'PUT', secureId, patch: { ...patch }, at: this.now() });
    const operation = 'PUT /orders/{secure_id}/delivery';
    await this.maybeFail(operation);
    const order = this.orders.get(secureId);
    if (!order) throw new NotFoundError({ operation, status: 404 });
    const machine = deliveryStateMachine();
    if (machine.isLocked(order.order_status))
      throw new ConflictError({
        operation,
        status: 409,
        errors: [
          { status: '409', code: 'invalid_transition', title: 'Conflict', detail: `order is ${order.order_status}` },
        ],
      });
    if (
      patch.status &&
      patch.status !== order.delivery.status &&
      !machine.canMove(order.delivery.status, patch.status)
    ) {
      throw new ConflictError({
        operation,
        status: 409,
        errors: [
          {
            status: '409',
            code: 'invalid_transition',
            title: 'Conflict',
            detail: `${order.delivery.status} → ${patch.status}`,
          },
        ],
      });
    }
    if (patch.status === 'delivering') order.order_status = 'delivering';
    if (patch.status === 'delivered') order.order_status = 'complete';
    order.delivery = { ...order.delivery, ...patch } as CarrierOrder['delivery'];
    return this.answersWithOrder ? structuredClone(order) : undefined;
  }

  private async maybeFail(operation: string): Promise<void> {
    if (this.gate) await this.gate;
    const failure = this.failures.shift();
    if (!failure) return;
    if (failure === 'bug')
      throw new TypeError("Cannot destructure property 'order' of 'undefined' as it is undefined.");
    if (failure === 'fetch failed') throw new TypeError('fetch failed', { cause: new Error('connect ECONNREFUSED') });
    if (failure === 'connection') {
      throw new ConnectionError({ operation, status: undefined, message: `${operation} failed: connect ECONNREFUSED` });
    }
    // The SDK's own mapping from an answer to its error class, Retry-After header included.
    const headers =
      failure.retryAfterMs === undefined ? undefined : { 'retry-after': String(failure.retryAfterMs / 1000) };
    throw errorFromResponse(
      new Response(null, { status: failure.status, ...(headers ? { headers } : {}) }),
      undefined,
      operation,
    );
  }
}

/** Lets pending promise callbacks run (a few macrotask turns). */
export async function flush(turns = 5): Promise<void> {
  for (let i = 0; i < turns; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
