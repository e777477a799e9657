import { afterEach, expect, test } from 'vitest';
import { createCarrierAgent, createManualScheduler, type CarrierAgent } from '../../src/index.js';
import { expectOk, mainOrder, placeOrder, registerCarrier, startWorld, type World } from '../support/world.js';

let world: World | undefined;
let agent: CarrierAgent | undefined;

afterEach(async () => {
  await agent?.stop();
  await world?.close();
});

test('a courier reporting every second does not flood the service: at most one position per 10 s, the latest wins', async () => {
  world = await startWorld();
  await registerCarrier(world, 'http://127.0.0.1:9/nowhere');
  const order = await placeOrder(world);
  await expectOk(
    world.admin.PUT('/api/orders/{id}', { params: { path: { id: order.id } }, body: { order: { courier_id: 501 } } }),
  );
  const secureId = world.mock.mock.runtime.state.orders.get(order.id)!.secure_id!;
  const clock = createManualScheduler();
  const puts: number[] = [];
  agent = createCarrierAgent({
    baseUrl: world.url,
    scheduler: clock,
    fetch: (input, init) => {
      const request = new Request(input, init);
      if (request.method === 'PUT') puts.push(clock.now());
      return fetch(request);
    },
  });
  await agent.start();
  await agent.refresh(secureId);
  const tracker = agent.tracker(secureId);
  await tracker.assignCourier({ name: 'Tom Richter', phone: '+49 160 9876543', externalId: 4711 });
  await tracker.startDelivery();
  await agent.outbox.drained();
  const statusPuts = puts.length;

  // Two minutes at about 5 m/s, one report per second.
  const reports: [number, number][] = [];
  for (let second = 0; second < 120; second++) {
    const report: [number, number] = [52.5029 - second * 0.00004, 13.4114 + second * 0.00005];
    reports.push(report);
    await tracker.reportPosition(...report);
    await agent.outbox.idle();
    clock.advance(1000);
  }
  clock.advance(10_000);
  await agent.outbox.drained();
  const positionPuts = puts.slice(statusPuts);
  const gaps = positionPuts.slice(1).map((at, i) => at - positionPuts[i]!);
  console.log(
    `courier reports: ${reports.length} in 120 s; position updates sent: ${positionPuts.length}; smallest gap: ${Math.min(...gaps)} ms`,
  );
  expect(positionPuts.length).toBeLessThanOrEqual(13);
  expect(Math.min(...gaps)).toBeGreaterThanOrEqual(10_000);
  const main = await mainOrder(world, order.id);
  expect(main.couriers.find((c) => c.id === 501)?.last_known_position).toMatchObject({
    lat: reports.at(-1)![0],
    lon: reports.at(-1)![1],
  });
});
