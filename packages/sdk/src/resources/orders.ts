import type { DefaultOptions, MainCall, MainCore } from '../transport/core.js';
import type { MainBody, MainData, MainQuery } from '../transport/operations.js';
import type { RequestOptions } from '../transport/options.js';
import type { components } from '../generated/main.js';
import { paginate } from '../pagination/paginate.js';
import { readBack, type ReadBackOptions, type RecordResult } from './read-back.js';

/** Filters of `GET /api/orders`; `restaurant_id`, `courier_id`, `client_id` and `status` take arrays (sent as repeated keys). */
export type OrderFilters = MainQuery<'GET /api/orders'>;
/** The editable fields of an order (`PUT /api/orders/{id}` without its root key). */
export type OrderUpdateFields = MainBody<'PUT /api/orders/{id}'>['order'];
/** A main-API order status. */
export type OrderStatus = components['schemas']['OrderStatus'];
/** One page of orders with its `meta` (page, page_count, per_page, count). */
export type OrderPage = MainData<'GET /api/orders'>;
/** An order as listed. */
export type Order = components['schemas']['Order'];
/** One order with its sideloaded restaurants, couriers and payments (`GET /api/orders/{id}`). */
export type OrderResponse = MainData<'GET /api/orders/{id}'>;
/** What `update`, `confirm` and `setStatus` resolve to for call options `O` on a client with read-back `R`. */
export type OrderChange<R extends boolean, O> = RecordResult<OrderResponse, R, O>;

/** Options of calls that may switch off the client's SMS (`send_sms=false`). */
export interface SmsOptions {
  /** `false` does not send the client the SMS about the change. */
  sendSms?: boolean;
}

/** Call options of the walking helpers (they always throw on errors). */
export type PageOptions = Omit<RequestOptions, 'throwOnError'>;

/**
 * Orders: pages and iteration over the list, reading, changing, confirming and moving orders through their statuses.
 * @example
 * for await (const order of api.orders.iterate({ restaurant_id: [11, 12], status: ['pending'] })) console.log(order.number);
 */
export class OrdersResource<R extends boolean = true> {
  readonly #core: MainCore;
  readonly #readBack: boolean;

  constructor(core: MainCore, readBack = true) {
    this.#core = core;
    this.#readBack = readBack;
  }

  /** One page of orders with its `meta` (default page 1, 25 per page, newest first). */
  list<O extends RequestOptions = DefaultOptions>(filters?: OrderFilters, options?: O): MainCall<O, 'GET /api/orders'> {
    const core = this.#core;
    return core.invoke('GET /api/orders', { params: { query: filters } }, options);
  }

  /**
   * Walks the pages from `filters.page` (default 1) to the last, one request per page.
   * @example
   * for await (const page of api.orders.pages({ per_page: 100 })) console.log(page.meta.page, page.orders.length);
   */
  pages(filters: OrderFilters = {}, options?: PageOptions): AsyncGenerator<OrderPage, void, undefined> {
    return paginate(
      (page) => this.list({ ...filters, page }, options),
      (page) => page.orders,
      filters.page ?? 1,
    );
  }

  /**
   * Every order of every page, fetched page by page as the loop goes.
   * @example
   * for await (const order of api.orders.iterate({ courier_id: [501] })) console.log(order.id);
   */
  async *iterate(filters: OrderFilters = {}, options?: PageOptions): AsyncGenerator<Order, void, undefined> {
    for await (const page of this.pages(filters, options)) yield* page.orders;
  }

  /** Reads one order with its sideloaded restaurants, couriers and payments. */
  get<O extends RequestOptions = DefaultOptions>(id: number, options?: O): MainCall<O, 'GET /api/orders/{id}'> {
    const core = this.#core;
    return core.invoke('GET /api/orders/{id}', { params: { path: { id } } }, options);
  }

  /**
   * Changes courier_id, status, contact, description, delivery_at or delivery_price; resolves to the order (read
   * back with one GET when the answer holds none, unless `readBack: false`).
   */
  update<O extends RequestOptions & SmsOptions & ReadBackOptions = DefaultOptions>(
    id: number,
    fields: OrderUpdateFields,
    options?: O,
  ): MainCall<O, 'PUT /api/orders/{id}', OrderChange<R, O>> {
    const core = this.#core;
    const query = options?.sendSms === undefined ? undefined : { send_sms: options.sendSms };
    return core.invoke('PUT /api/orders/{id}', { params: { path: { id }, query }, body: { order: fields } }, options, {
      after: readBack('order', this.#readBack, options, (o) => this.get(id, o)),
    });
  }

  /**
   * Confirms the order as the caller's account (restaurant or courier); repeating it keeps the first time. Resolves
   * to the order (read back with one GET when the answer holds none, unless `readBack: false`).
   */
  confirm<O extends RequestOptions & ReadBackOptions = DefaultOptions>(
    id: number,
    options?: O,
  ): MainCall<O, 'PUT /api/orders/{id}/confirm', OrderChange<R, O>> {
    const core = this.#core;
    return core.invoke('PUT /api/orders/{id}/confirm', { params: { path: { id } } }, options, {
      after: readBack('order', this.#readBack, options, (o) => this.get(id, o)),
    });
  }

  /**
   * Moves the order to `status` (couriers: `delivery`, `complete`); the same status again is a no-op. Resolves to
   * the order (read back with one GET when the answer holds none, unless `readBack: false`).
   * @example
   * const { order } = await api.orders.setStatus(5001, 'complete', { sendSms: false });
   */
  setStatus<O extends RequestOptions & SmsOptions & ReadBackOptions = DefaultOptions>(
    id: number,
    status: OrderStatus,
    options?: O,
  ): MainCall<O, 'PUT /api/orders/{id}/status', OrderChange<R, O>> {
    const core = this.#core;
    const query = options?.sendSms === undefined ? { status } : { status, send_sms: options.sendSms };
    return core.invoke('PUT /api/orders/{id}/status', { params: { path: { id }, query } }, options, {
      after: readBack('order', this.#readBack, options, (o) => this.get(id, o)),
    });
  }

  /** The order's items. */
  items<O extends RequestOptions = DefaultOptions>(id: number, options?: O): MainCall<O, 'GET /api/orders/{id}/items'> {
    const core = this.#core;
    return core.invoke('GET /api/orders/{id}/items', { params: { path: { id } } }, options);
  }

  /** The order's participants (buddies). */
  buddies<O extends RequestOptions = DefaultOptions>(
    id: number,
    options?: O,
  ): MainCall<O, 'GET /api/orders/{id}/buddies'> {
    const core = this.#core;
    return core.invoke('GET /api/orders/{id}/buddies', { params: { path: { id } } }, options);
  }

  /** The printable statement as a PDF `Blob`. */
  receiptPdf<O extends RequestOptions = DefaultOptions>(
    id: number,
    options?: O,
  ): MainCall<O, 'GET /api/orders/{id}/receipt.pdf', Blob> {
    const core = this.#core;
    return core.invoke('GET /api/orders/{id}/receipt.pdf', { params: { path: { id } }, parseAs: 'blob' }, options, {
      map: (data) => data as unknown as Blob,
    });
  }

  /** The printable statement as an HTML string. */
  receiptHtml<O extends RequestOptions = DefaultOptions>(
    id: number,
    options?: O,
  ): MainCall<O, 'GET /api/orders/{id}/receipt.html', string> {
    const core = this.#core;
    return core.invoke('GET /api/orders/{id}/receipt.html', { params: { path: { id } }, parseAs: 'text' }, options, {
      map: (data) => data as unknown as string,
    });
  }
}
