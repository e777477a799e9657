import type { CarrierOrder } from '../carrier-api/carrier-api.js';
import type { LatLon } from '../geo/haversine.js';
import { sleep, systemScheduler, type Scheduler } from '../time/scheduler.js';
import type { CourierInfo, DeliveryTracker } from '../tracker/delivery-tracker.js';
import { restaurantLocation, straightRoute, type Route } from './route.js';

/** Where a simulated delivery stands, for progress displays. */
export interface CourierProgress {
  order: CarrierOrder;
  phase: 'assigning' | 'picking_up' | 'delivering' | 'problem' | 'delivered' | 'cancelled' | 'failed';
  /** Share of the route covered, 0 to 1. */
  fraction: number;
  /** Metres left to the destination. */
  remainingM: number;
  position: LatLon;
  courier: CourierInfo;
  /** The problem message while in `problem`, or the error when `failed`. */
  message?: string;
}

/** A problem to inject on the way. */
export interface SimulatedProblem {
  /** Share of the route after which it happens (0 to 1). */
  atFraction: number;
  message: string;
  /** How long the courier is stuck before driving on (ms, default 5 s). */
  pauseMs?: number;
}

/** Options of {@link simulateCourier}. */
export interface CourierSimulationOptions {
  order: CarrierOrder;
  tracker: DeliveryTracker;
  courier: CourierInfo;
  /** Speed in km/h (default 25, a bicycle courier). */
  speedKmh?: number;
  /** Time between two position reports (default 1 s; the outbox thins them out). */
  tickMs?: number;
  /** Time to pick the order up at the restaurant after the assignment (default 2 ticks). */
  pickupMs?: number;
  /** Where the courier starts (default: the restaurant, see {@link restaurantLocation}). */
  from?: LatLon;
  /** Points to pass on the way, for a route that is not a straight line. */
  waypoints?: LatLon[];
  problem?: SimulatedProblem;
  scheduler?: Scheduler;
  signal?: AbortSignal;
  onProgress?: (progress: CourierProgress) => void;
}

/**
 * Drives a simulated courier for one order: assigns it, picks the order up, rides from the restaurant to
 * the destination at the given speed reporting positions along the way (optionally with a problem on
 * the way), then delivers. An order that was already under way resumes from its delivery status.
 * Resolves with the last phase: `delivered`, `cancelled` (aborted or the order was locked) or `failed`.
 * @example
 * await simulateCourier({ order, tracker: agent.tracker(order.secure_id), courier: { name: 'Tom', phone: '+49 160 9876543', externalId: 4711 }, speedKmh: 25 });
 */
export async function simulateCourier(options: CourierSimulationOptions): Promise<CourierProgress['phase']> {
  const { order, tracker, courier } = options;
  const scheduler = options.scheduler ?? systemScheduler;
  const tickMs = options.tickMs ?? 1000;
  const metresPerTick = ((options.speedKmh ?? 25) * 1000 * tickMs) / 3_600_000;
  const start = options.from ?? restaurantLocation(order);
  const destination = { lat: order.destination.lat, lon: order.destination.lon };
  const route: Route = straightRoute(start, destination, options.waypoints);
  let covered = 0;
  let position = start;
  const report = (phase: CourierProgress['phase'], message?: string): void =>
    options.onProgress?.({
      order,
      phase,
      fraction: route.lengthM === 0 ? 1 : covered / route.lengthM,
      remainingM: Math.max(0, route.lengthM - covered),
      position,
      courier,
      ...(message ? { message } : {}),
    });
  const wait = (ms: number) => sleep(scheduler, ms, options.signal);
  const over = (): boolean => options.signal?.aborted === true || tracker.lockedByOrderStatus !== undefined;

  try {
    if (tracker.status === 'idle' || tracker.status === 'problem') {
      report('assigning');
      if (tracker.status === 'idle' || tracker.can('courier_assigned')) await tracker.assignCourier(courier);
    }
    if (tracker.status === 'courier_assigned') {
      report('picking_up');
      await wait(options.pickupMs ?? 2 * tickMs);
      if (over()) return finish('cancelled');
      await tracker.startDelivery();
    } else if (tracker.status === 'delivering') {
      // Resumed after a restart: continue from the last position the service knows, if any.
      const known =
        order.delivery.lat !== null && order.delivery.lon !== null
          ? { lat: order.delivery.lat, lon: order.delivery.lon }
          : undefined;
      if (known) {
        const rest = straightRoute(known, destination);
        covered = Math.max(0, route.lengthM - rest.lengthM);
        position = known;
      }
    }
    if (tracker.status === 'delivered') return finish('delivered');

    let problem = options.problem;
    while (covered < route.lengthM) {
      if (over()) return finish('cancelled');
      report('delivering');
      await wait(tickMs);
      if (over()) return finish('cancelled');
      covered = Math.min(route.lengthM, covered + metresPerTick);
      position = covered >= route.lengthM ? destination : route.at(covered);
      await tracker.reportPosition(position.lat, position.lon);
      if (problem && covered / route.lengthM >= problem.atFraction && covered < route.lengthM) {
        await tracker.reportProblem(problem.message);
        report('problem', problem.message);
        await wait(problem.pauseMs ?? 5000);
        if (over()) return finish('cancelled');
        await tracker.startDelivery();
        problem = undefined;
      }
    }
    if (over()) return finish('cancelled');
    await tracker.markDelivered(`Handed over to ${order.contact_name}.`);
    return finish('delivered');
  } catch (error) {
    if (over()) return finish('cancelled');
    return finish('failed', error instanceof Error ? error.message : String(error));
  }

  function finish(phase: CourierProgress['phase'], message?: string): CourierProgress['phase'] {
    report(phase, message);
    return phase;
  }
}
