import {
  createCarrierApi,
  isRetryableError,
  retryAfterOf,
  type CarrierApi,
  type CarrierOrder,
  type CarrierOrderStatus,
} from '../carrier-api/carrier-api.js';
import { TypedEmitter } from '../events/typed-emitter.js';
import type { MeterProvider } from '@opentelemetry/api';
import { createAuditTrail, type AuditTrail } from '../observability/audit-trail.js';
import { instrumentCarrierApi, observeOutbox } from '../observability/metrics.js';
import { silentLogger, type Logger } from '../observability/logger.js';
import { backoffDelay, type BackoffPolicy } from '../outbox/backoff.js';
import { createOutbox, type Outbox, type PositionPolicy } from '../outbox/outbox.js';
import { isSharedOutboxStore, type OutboxStore, type SharedOutboxStore } from '../outbox/outbox-store.js';
import { createSharedOutbox } from '../outbox/shared-outbox.js';
import type { CallbackEvent } from '../receiver/callback-event.js';
import type { CallbackInbox } from '../receiver/callback-inbox.js';
import {
  createCallbackReceiver,
  type CallbackReceiver,
  type CallbackReceiverOptions,
  type FetchHandler,
} from '../receiver/callback-receiver.js';
import { deliveryStateMachine, orderStatusMap, type DeliveryStateMachine } from '../tracker/delivery-state-machine.js';
import { DeliveryTracker } from '../tracker/delivery-tracker.js';
import { sleep, systemScheduler, type Scheduler } from '../time/scheduler.js';
import { readOrderStatusProgress, type OrderStatusProgress } from './order-status-progress.js';

/** Where a view of an order came from. */
export type ViewSource = 'callback' | 'push' | 'refresh';

/** The agent's local view of one order: the last state read from the service. */
export interface OrderView {
  order: CarrierOrder;
  /** When it was read (scheduler time, ms). */
  loadedAt: number;
  source: ViewSource;
  /** The last callback about the order. */
  lastCallback?: CallbackEvent;
}

/** Events of a {@link CarrierAgent}, each with the order as the service shows it. */
export interface CarrierAgentEvents {
  /**
   * The agent sees an order for the first time (`order_created`, or any later callback that came first).
   * After a restart, orders already under way come again: `tracker.status` tells where the delivery is.
   */
  newOrder: { order: CarrierOrder; tracker: DeliveryTracker; event?: CallbackEvent };
  /** The order's status (carrier view) changed since the last read. */
  orderStatusChanged: {
    order: CarrierOrder;
    previous: CarrierOrderStatus;
    current: CarrierOrderStatus;
    tracker: DeliveryTracker;
    event?: CallbackEvent;
  };
  /** The order was cancelled: its pending updates are dropped and its tracker refuses further moves. */
  orderCancelled: { order: CarrierOrder; tracker: DeliveryTracker; event?: CallbackEvent };
}

/** Options of {@link createCarrierAgent}. */
export interface CarrierAgentOptions {
  /** Base address of the service (`{base_url}`), for the default carrier API client. */
  baseUrl?: string;
  /** `fetch` of the default carrier API client. */
  fetch?: typeof fetch;
  /** The mock server session the default carrier API client works in (`X-Mock-Session`), see `createCarrierApi`. */
  mockSession?: string;
  /** A carrier API client of your own (e.g. the SDK's); replaces `baseUrl`/`fetch`. */
  api?: CarrierApi;
  /**
   * Where pending delivery updates are kept (default: memory; use the file store to survive restarts, or
   * a shared store such as PostgreSQL's for several replicas).
   */
  outboxStore?: OutboxStore | SharedOutboxStore;
  /** Thinning of courier positions (default: 10 s, 10 m). */
  positions?: PositionPolicy;
  /** Backoff of delivery update retries. */
  retry?: BackoffPolicy;
  /**
   * Receiver settings: dedupe store and TTL, optional signing, validator, ack mode and inbox (default: the
   * outbox store's `callbackInbox` when it has one, as the file store does, else memory).
   */
  receiver?: Omit<CallbackReceiverOptions, 'handlers' | 'logger' | 'audit' | 'scheduler' | 'meterProvider'>;
  /**
   * Attempts to load an order after a callback before giving up (default: no limit for connection
   * errors, 429 and 5xx, as the callback was already acknowledged; other errors give up at once).
   */
  loadAttempts?: number;
  /** Backoff between load attempts (default 500 ms doubling, at most 30 s). */
  loadBackoff?: BackoffPolicy;
  machine?: DeliveryStateMachine;
  scheduler?: Scheduler;
  logger?: Logger;
  /** The audit trail (default: a bounded in-memory one, readable with `agent.audit.forOrder(id)`). */
  audit?: AuditTrail;
  /** Source of randomness of the jitter (default `Math.random`). */
  random?: () => number;
  /**
   * Where the OpenTelemetry metrics of the agent, its receiver and its outbox go (default: the global one of
   * `@opentelemetry/api`, which records nothing until the application installs an SDK).
   */
  meterProvider?: MeterProvider;
}

/**
 * A carrier service in one object: it receives callbacks (deduplicated), treats each as a hint and
 * reloads the order by `secure_id`, keeps a local view per order, emits typed events, and hands out a
 * {@link DeliveryTracker} per order whose updates go through a durable outbox.
 * @example
 * const agent = createCarrierAgent({ baseUrl: 'http://localhost:4010' });
 * agent.on('newOrder', async ({ tracker }) => {
 *   await tracker.assignCourier({ name: 'Tom Richter', phone: '+49 160 9876543', externalId: 4711 });
 * });
 * await agent.start();
 * // serve agent.handle at your callback_url
 */
export class CarrierAgent {
  /** The callback receiver; `agent.handle` is its fetch handler. */
  readonly receiver: CallbackReceiver;
  /** The outbox every tracker of the agent writes to. */
  readonly outbox: Outbox;
  /** The per-order audit trail: callback received → order loaded → pushed → answer. */
  readonly audit: AuditTrail;
  /** The carrier API client. */
  readonly api: CarrierApi;
  /** The fetch-style handler to serve at the registered `callback_url`. */
  readonly handle: FetchHandler;
  private readonly emitter = new TypedEmitter<CarrierAgentEvents>();
  private readonly views = new Map<string, OrderView>();
  private readonly secureIds = new Map<number, string>();
  private readonly trackers = new Map<string, DeliveryTracker>();
  private readonly chains = new Map<string, Promise<unknown>>();
  private readonly scheduler: Scheduler;
  private readonly logger: Logger;
  private readonly machine: DeliveryStateMachine;
  private readonly progress: OrderStatusProgress;
  private readonly statusMap: Record<string, CarrierOrderStatus>;
  private readonly options: CarrierAgentOptions;
  private readonly random: () => number;
  private started = false;
  private lifetime = new AbortController();

  constructor(options: CarrierAgentOptions) {
    this.options = options;
    this.scheduler = options.scheduler ?? systemScheduler;
    this.logger = options.logger ?? silentLogger;
    this.audit = options.audit ?? createAuditTrail();
    this.machine = options.machine ?? deliveryStateMachine();
    this.progress = readOrderStatusProgress();
    this.statusMap = orderStatusMap();
    this.random = options.random ?? Math.random;
    if (!options.api && !options.baseUrl) throw new TypeError('createCarrierAgent needs baseUrl (or an api client)');
    this.api = instrumentCarrierApi(
      options.api ??
        createCarrierApi({
          baseUrl: options.baseUrl!,
          ...(options.fetch ? { fetch: options.fetch } : {}),
          ...(options.mockSession !== undefined ? { mockSession: options.mockSession } : {}),
        }),
      options.meterProvider,
    );
    const outboxOptions = {
      api: this.api,
      scheduler: this.scheduler,
      logger: this.logger,
      audit: this.audit,
      machine: this.machine,
      random: this.random,
      ...(options.positions ? { positions: options.positions } : {}),
      ...(options.retry ? { retry: options.retry } : {}),
    };
    const store = options.outboxStore;
    this.outbox = isSharedOutboxStore(store)
      ? createSharedOutbox({ ...outboxOptions, store })
      : createOutbox({ ...outboxOptions, ...(store ? { store } : {}) });
    observeOutbox(this.outbox, this.scheduler, options.meterProvider);
    // An answer that holds the order is a fresh read too. Without one (a 204: the spec shows no answer body), the
    // agent reads the order back after a status update, the one that moves the order; positions change nothing
    // the agent keeps, and the callbacks announce the rest.
    this.outbox.on('sent', ({ entry, order }) => {
      if (order) return this.serial(order.secure_id, () => this.apply(order, 'push'));
      // Not awaited: the read-back must not hold the order's next update (agent.idle() still waits for it).
      if (entry.patch.status !== undefined)
        void this.refresh(entry.secureId).catch((error: unknown) =>
          this.logger.warn('could not read an order back after its update', {
            secure_id: entry.secureId,
            error: String(error),
          }),
        );
      return undefined;
    });
    this.outbox.on('rejected', ({ entry }) => {
      // A refused update (409: the order was cancelled or completed meanwhile) means our view is behind.
      void this.refresh(entry.secureId).catch(() => undefined);
    });
    // A store that offers an inbox (the file store) records callbacks before they are acknowledged.
    const inbox = options.receiver?.inbox ?? (store as { callbackInbox?: CallbackInbox } | undefined)?.callbackInbox;
    this.receiver = createCallbackReceiver({
      ...options.receiver,
      ...(inbox ? { inbox } : {}),
      logger: this.logger,
      audit: this.audit,
      scheduler: this.scheduler,
      ...(options.meterProvider ? { meterProvider: options.meterProvider } : {}),
      handlers: {
        order_created: (event) => this.onCallback(event),
        order_status_changed: (event) => this.onCallback(event),
      },
    });
    this.handle = this.receiver.handle;
  }

  /** Adds a listener; returns a function that removes it. Listeners are awaited, one after the other. */
  on<K extends keyof CarrierAgentEvents>(name: K, listener: (payload: CarrierAgentEvents[K]) => unknown): () => void {
    return this.emitter.on(name, listener);
  }

  /**
   * Loads the outbox (resuming updates left from a previous run), reloads the orders they belong to, and
   * processes the callbacks recorded but not processed before a crash.
   */
  async start(): Promise<void> {
    if (this.started) return;
    this.started = true;
    if (this.lifetime.signal.aborted) this.lifetime = new AbortController();
    await this.outbox.start();
    // Reloaded in the background: a service that is down at start-up must not keep the carrier from starting.
    for (const secureId of new Set(this.outbox.pending().map((entry) => entry.secureId))) {
      this.refresh(secureId).catch((error: unknown) =>
        this.logger.warn('could not reload an order of the outbox', { secure_id: secureId, error: String(error) }),
      );
    }
    if (this.receiver.ack === 'immediate' || (this.receiver.ack === 'recorded' && !this.receiver.inbox.durable))
      this.logger.warn(
        'callbacks are recorded in memory before they are acknowledged: a crash loses those not yet processed ' +
          '(use the file store, or PostgreSQL with ack: after-processing)',
      );
    // In the background too (the loads retry while the service is down); agent.idle() waits for them.
    void this.receiver
      .resume()
      .catch((error: unknown) => this.logger.error('could not read the recorded callbacks', { error: String(error) }));
  }

  /** Stops sending; waits for callbacks being processed. Pending updates stay in the outbox store. */
  async stop(): Promise<void> {
    // Loads still retrying give up; their callbacks' dedupe claims are released.
    this.lifetime.abort(new Error('the carrier agent stopped'));
    // Callbacks interrupted here stay recorded in the inbox for the next start.
    await this.receiver.stop();
    await Promise.allSettled([...this.chains.values()]);
    await this.outbox.stop();
    this.started = false;
  }

  /** Resolves when no callback is being processed, no load is running and no update is in flight or due now. */
  async idle(): Promise<void> {
    for (let round = 0; round < 100; round++) {
      await this.receiver.idle();
      await Promise.allSettled([...this.chains.values()]);
      await this.outbox.idle();
      if (this.chains.size === 0) return;
    }
  }

  /** The local view of an order, by `secure_id` or main API id. */
  view(key: string | number): OrderView | undefined {
    const secureId = typeof key === 'number' ? this.secureIds.get(key) : key;
    return secureId === undefined ? undefined : this.views.get(secureId);
  }

  /** Every order the agent knows. */
  orders(): OrderView[] {
    return [...this.views.values()];
  }

  /**
   * The delivery tracker of an order (one per order). Its starting status is the last status queued in
   * the outbox, else the delivery status the service showed, else `idle`.
   */
  tracker(secureId: string): DeliveryTracker {
    let tracker = this.trackers.get(secureId);
    if (tracker) return tracker;
    const view = this.views.get(secureId);
    const queued = this.outbox
      .pending(secureId)
      .filter((entry) => entry.patch.status !== undefined)
      .at(-1)?.patch.status;
    tracker = new DeliveryTracker({
      secureId,
      outbox: this.outbox,
      machine: this.machine,
      ...(view ? { orderId: view.order.id, orderStatus: view.order.order_status } : {}),
      ...((queued ?? view?.order.delivery.status) ? { status: queued ?? view!.order.delivery.status } : {}),
    });
    this.trackers.set(secureId, tracker);
    return tracker;
  }

  /** Reloads an order from the service (with retries) and applies it to the local view. */
  refresh(secureId: string, event?: CallbackEvent): Promise<CarrierOrder> {
    return this.serial(secureId, async () => {
      const order = await this.load(secureId, event);
      await this.apply(order, event ? 'callback' : 'refresh', event);
      return order;
    });
  }

  private onCallback(event: CallbackEvent): Promise<unknown> {
    return this.refresh(event.order_secure_id, event);
  }

  /** Runs the work of one order one at a time, so reads are applied in the order they were made. */
  private serial<T>(secureId: string, work: () => Promise<T>): Promise<T> {
    const previous = this.chains.get(secureId) ?? Promise.resolve();
    const next = previous.catch(() => undefined).then(work);
    this.chains.set(secureId, next);
    void next
      .catch(() => undefined)
      .finally(() => {
        if (this.chains.get(secureId) === next) this.chains.delete(secureId);
      });
    return next;
  }

  private async load(secureId: string, event?: CallbackEvent): Promise<CarrierOrder> {
    const attempts = this.options.loadAttempts ?? Number.POSITIVE_INFINITY;
    const policy = this.options.loadBackoff ?? { initialDelayMs: 500, maxDelayMs: 30_000 };
    const signal = this.lifetime.signal;
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.api.getOrder(secureId, { signal });
      } catch (error) {
        if (signal.aborted || attempt >= attempts || !isRetryableError(error)) {
          this.logger.error('could not load an order', {
            secure_id: secureId,
            order_id: event?.order_id,
            error: String(error),
          });
          throw error;
        }
        const delay = backoffDelay(policy, attempt, this.random(), retryAfterOf(error));
        this.logger.warn('loading an order failed, will retry', {
          secure_id: secureId,
          attempt,
          delay_ms: delay,
          error: String(error),
        });
        await sleep(this.scheduler, delay, signal);
      }
    }
  }

  private async apply(order: CarrierOrder, source: ViewSource, event?: CallbackEvent): Promise<void> {
    const secureId = order.secure_id;
    const previous = this.views.get(secureId);
    const audit = { at: this.scheduler.now(), secureId, orderId: order.id };
    if (previous && this.progress.isStale(previous.order.order_status, order.order_status)) {
      this.audit.record({
        ...audit,
        step: 'order_loaded',
        detail: `stale read ignored: ${order.order_status} is older than ${previous.order.order_status}`,
        data: { source, order_status: order.order_status, delivery_status: order.delivery.status },
      });
      if (event) previous.lastCallback = event;
      return;
    }
    this.views.set(secureId, {
      order,
      loadedAt: this.scheduler.now(),
      source,
      ...(event ? { lastCallback: event } : previous?.lastCallback ? { lastCallback: previous.lastCallback } : {}),
    });
    this.secureIds.set(order.id, secureId);
    if (source !== 'push') {
      const claimed = event?.type === 'order_status_changed' ? this.statusMap[event.status] : undefined;
      const disagreement =
        claimed !== undefined && claimed !== order.order_status
          ? ` (the callback claimed ${claimed}; the service's state wins)`
          : '';
      this.audit.record({
        ...audit,
        step: 'order_loaded',
        detail: `order ${order.number}: ${order.order_status}, delivery ${order.delivery.status}${disagreement}`,
        data: { source, order_status: order.order_status, delivery_status: order.delivery.status },
      });
    }
    const tracker = this.tracker(secureId);
    tracker.sync(order);
    const report = (error: unknown): void =>
      this.logger.error('agent listener failed', { order_id: order.id, error: String(error) });
    const emitted = (name: string, detail: string): void =>
      this.audit.record({ ...audit, at: this.scheduler.now(), step: 'event_emitted', detail: `${name}: ${detail}` });
    if (!previous) {
      if (this.progress.isTerminal(order.order_status)) {
        // First seen already over: nothing to deliver.
        if (order.order_status === 'cancelled') await this.cancelled(order, tracker, event, emitted, report);
        return;
      }
      emitted('newOrder', `${order.number} (${order.order_status}, delivery ${tracker.status})`);
      await this.emitter.emit('newOrder', { order, tracker, ...(event ? { event } : {}) }, report);
      return;
    }
    if (previous.order.order_status !== order.order_status) {
      emitted('orderStatusChanged', `${previous.order.order_status} → ${order.order_status}`);
      await this.emitter.emit(
        'orderStatusChanged',
        {
          order,
          previous: previous.order.order_status,
          current: order.order_status,
          tracker,
          ...(event ? { event } : {}),
        },
        report,
      );
      if (order.order_status === 'cancelled') await this.cancelled(order, tracker, event, emitted, report);
      else if (this.machine.isLocked(order.order_status))
        await this.outbox.discard(secureId, `the order is ${order.order_status}`);
    }
  }

  private async cancelled(
    order: CarrierOrder,
    tracker: DeliveryTracker,
    event: CallbackEvent | undefined,
    emitted: (name: string, detail: string) => void,
    report: (error: unknown) => void,
  ): Promise<void> {
    await this.outbox.discard(order.secure_id, 'the order was cancelled');
    emitted('orderCancelled', order.number);
    await this.emitter.emit('orderCancelled', { order, tracker, ...(event ? { event } : {}) }, report);
  }
}

/**
 * Creates a {@link CarrierAgent}.
 * @example
 * const agent = createCarrierAgent({ baseUrl: 'http://localhost:4010', outboxStore: createFileOutboxStore('./outbox.json') });
 */
export function createCarrierAgent(options: CarrierAgentOptions): CarrierAgent {
  return new CarrierAgent(options);
}
