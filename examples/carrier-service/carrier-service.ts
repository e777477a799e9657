/**
 * Carrier service: receives the service's callbacks, takes every new order, assigns a courier,
 * drives it to the client with position updates and marks the order delivered.
 *
 *   npm run carrier-service   # main.ts: starts a demo mock, registers this service and places an order
 */
import { createCarrierAgent, straightRoute, restaurantLocation } from '@restoapi/carrier-kit';
import { serve } from '@restoapi/carrier-kit/node';

/** A running carrier service. */
export interface CarrierService {
  callbackUrl: string;
  delivered: string[];
  stop(): Promise<void>;
}

/** Starts the receiver and the agent; couriers move `stepMs` apart along a straight route. */
export async function startCarrierService(
  baseUrl: string,
  { port = 0, stepMs = 200, log = console.log } = {},
): Promise<CarrierService> {
  const delivered: string[] = [];
  // Positions every step, so keep the coalescing window short for a demo.
  const agent = createCarrierAgent({ baseUrl, positions: { minIntervalMs: stepMs, minDistanceM: 1 } });

  agent.on('newOrder', async ({ order, tracker }) => {
    if (tracker.status !== 'idle') return; // already under way, seen again after a restart
    await tracker.assignCourier({ name: 'Tom Richter', phone: '+49 160 9876543', externalId: 4711 });
    log(`${order.number}: courier assigned, ${order.destination.address}`);
    await tracker.startDelivery();
    const route = straightRoute(restaurantLocation(order), { lat: order.destination.lat, lon: order.destination.lon });
    for (let step = 1; step <= 5; step++) {
      const point = route.at((route.lengthM * step) / 5);
      await tracker.reportPosition(point.lat, point.lon);
      await new Promise((resolve) => setTimeout(resolve, stepMs));
    }
    await tracker.markDelivered(); // queued in the durable outbox, which sends it in order
    delivered.push(order.number);
    log(`${order.number}: delivered`);
  });
  agent.on('orderCancelled', ({ order }) => log(`${order.number}: cancelled by the restaurant`));

  await agent.start();
  const receiver = await serve(agent.handle, { port });
  log(`Carrier listening for callbacks at ${receiver.url}`);
  return { callbackUrl: receiver.url, delivered, stop: async () => (await receiver.close(), await agent.stop()) };
}
