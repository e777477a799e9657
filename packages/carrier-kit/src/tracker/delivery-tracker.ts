import type { CarrierOrder, CarrierOrderStatus, DeliveryStatus, DeliveryUpdate } from '../carrier-api/carrier-api.js';
import type { Outbox, PositionOutcome } from '../outbox/outbox.js';
import { deliveryStateMachine, type DeliveryStateMachine } from './delivery-state-machine.js';

/**
 * A delivery move the document's state machine does not allow, refused before anything was sent.
 * @example
 * try { await tracker.markDelivered() } catch (e) { if (e instanceof IllegalTransitionError) console.log(e.allowed) }
 */
export class IllegalTransitionError extends Error {
  override name = 'IllegalTransitionError';
  /** The order's `secure_id`. */
  readonly secureId: string;
  /** The delivery status the tracker is in. */
  readonly from: DeliveryStatus;
  /** The status that was asked for. */
  readonly to: DeliveryStatus;
  /** The statuses that may follow `from`. */
  readonly allowed: DeliveryStatus[];

  constructor(secureId: string, from: DeliveryStatus, to: DeliveryStatus, allowed: DeliveryStatus[], reason?: string) {
    super(
      reason ??
        `Illegal delivery transition ${from} → ${to} for order ${secureId}: ${
          allowed.length > 0 ? `from ${from} the delivery may move to ${allowed.join(', ')}` : `${from} is final`
        }. Nothing was sent.`,
    );
    this.secureId = secureId;
    this.from = from;
    this.to = to;
    this.allowed = allowed;
  }
}

/** The courier a carrier assigns to an order. */
export interface CourierInfo {
  name: string;
  phone: string;
  /** The courier's id in the carrier's own system (`courier_external_id`, an integer). */
  externalId?: number | null;
}

/** Options of {@link DeliveryTracker}. */
export interface DeliveryTrackerOptions {
  secureId: string;
  orderId?: number;
  /** Where updates go; it sends them in order, one at a time per order. */
  outbox: Outbox;
  /** The delivery state machine (default: read from the document). */
  machine?: DeliveryStateMachine;
  /** The delivery status to start from (default: the machine's initial status). */
  status?: DeliveryStatus;
  /** The order's carrier-view status, when known: a locked order (complete, cancelled) refuses updates. */
  orderStatus?: CarrierOrderStatus;
}

/**
 * The delivery of one order as a state machine read from the document's `x-state-machine`:
 * every method checks its move first and throws {@link IllegalTransitionError} before anything is
 * sent, then queues the update in the outbox, which sends the updates of an order in order.
 * @example
 * const tracker = agent.tracker(order.secure_id);
 * await tracker.assignCourier({ name: 'Tom Richter', phone: '+49 160 9876543', externalId: 4711 });
 * await tracker.startDelivery();
 * await tracker.reportPosition(52.4981, 13.4297);
 * await tracker.markDelivered();
 */
export class DeliveryTracker {
  /** The order's `secure_id`. */
  readonly secureId: string;
  /** The order's id in the main API, when known. */
  readonly orderId: number | undefined;
  private readonly outbox: Outbox;
  private readonly machine: DeliveryStateMachine;
  private current: DeliveryStatus;
  private lockedBy: CarrierOrderStatus | undefined;

  constructor(options: DeliveryTrackerOptions) {
    this.secureId = options.secureId;
    this.orderId = options.orderId;
    this.outbox = options.outbox;
    this.machine = options.machine ?? deliveryStateMachine();
    this.current = options.status ?? this.machine.initial;
    if (options.orderStatus && this.machine.isLocked(options.orderStatus)) this.lockedBy = options.orderStatus;
  }

  /** The delivery status after every update queued so far (the service may not have it yet). */
  get status(): DeliveryStatus {
    return this.current;
  }

  /** The order status that locked the delivery (`complete`, `cancelled`), if any. */
  get lockedByOrderStatus(): CarrierOrderStatus | undefined {
    return this.lockedBy;
  }

  /** Whether the delivery is over: a terminal status, or an order that no longer takes updates. */
  get finished(): boolean {
    return this.lockedBy !== undefined || this.machine.isTerminal(this.current);
  }

  /** Whether a move to `to` would be accepted now. */
  can(to: DeliveryStatus): boolean {
    return this.lockedBy === undefined && (to === this.current || this.machine.canMove(this.current, to));
  }

  /** `courier_assigned` with the courier's name, phone and external id. */
  assignCourier(courier: CourierInfo): Promise<void> {
    if (!courier.name || !courier.phone) return Promise.reject(new TypeError('a courier needs a name and a phone'));
    if (courier.externalId !== undefined && courier.externalId !== null && !Number.isInteger(courier.externalId)) {
      return Promise.reject(new TypeError('courier externalId must be an integer (courier_external_id)'));
    }
    return this.transition('courier_assigned', {
      courier_name: courier.name,
      courier_phone: courier.phone,
      ...(courier.externalId !== undefined ? { courier_external_id: courier.externalId } : {}),
    });
  }

  /** `delivering`: the courier took the order (the main order moves to `delivery`). */
  startDelivery(): Promise<void> {
    return this.transition('delivering');
  }

  /** `delivered`: handed over (the main order moves to `complete`); positions stop. */
  markDelivered(message?: string): Promise<void> {
    return this.transition('delivered', message === undefined ? {} : { message });
  }

  /** `problem` with a message saying what happened. */
  reportProblem(message: string): Promise<void> {
    if (!message) return Promise.reject(new TypeError('a problem needs a message'));
    return this.transition('problem', { message });
  }

  /**
   * Reports the courier's position. Coalesced by the outbox (latest wins, minimum interval and
   * distance); dropped once the delivery is over.
   */
  async reportPosition(lat: number, lon: number): Promise<PositionOutcome> {
    if (!Number.isFinite(lat) || lat < -90 || lat > 90) throw new RangeError(`latitude ${lat} is outside -90..90`);
    if (!Number.isFinite(lon) || lon < -180 || lon > 180) throw new RangeError(`longitude ${lon} is outside -180..180`);
    if (this.finished) return 'dropped_terminal';
    return this.outbox.enqueuePosition(this.secureId, { lat, lon }, this.meta());
  }

  /**
   * Moves the delivery to `to` with extra fields of the delivery block; the general form of the
   * named methods (e.g. `transition('idle')` after a problem).
   */
  transition(to: DeliveryStatus, fields: Omit<DeliveryUpdate, 'status'> = {}): Promise<void> {
    const from = this.current;
    if (this.lockedBy !== undefined) {
      return Promise.reject(
        new IllegalTransitionError(
          this.secureId,
          from,
          to,
          [],
          `The order ${this.secureId} is ${this.lockedBy}: its delivery can no longer change (${from} → ${to} refused). Nothing was sent.`,
        ),
      );
    }
    if (to !== from && !this.machine.canMove(from, to)) {
      return Promise.reject(new IllegalTransitionError(this.secureId, from, to, this.machine.next(from)));
    }
    // The status moves now, before the update is stored, so that calls made without awaiting are checked in order.
    this.current = to;
    return this.outbox.enqueue(this.secureId, { status: to, ...fields }, this.meta());
  }

  /**
   * Adopts the order as the service shows it: its lock (complete, cancelled) always, its delivery status
   * when no status update of this tracker is still waiting in the outbox (those are newer).
   */
  sync(order: CarrierOrder): void {
    if (this.machine.isLocked(order.order_status)) this.lockedBy = order.order_status;
    const waiting = this.outbox
      .pending(this.secureId)
      .some((entry) => entry.kind === 'status' && entry.patch.status !== undefined);
    if (!waiting) this.current = order.delivery.status;
  }

  private meta(): { orderId?: number } {
    return this.orderId === undefined ? {} : { orderId: this.orderId };
  }
}
