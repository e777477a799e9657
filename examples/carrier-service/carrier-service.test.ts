import { afterAll, beforeAll, expect, test } from 'vitest';
import { createControlClient } from '@restoapi/mock-server';
import { createMockServer, type MockServer } from '@restoapi/mock-server/node';
import { startCarrierService } from './carrier-service.js';
import { DEMO_ORDER } from './demo-order.js';

let server: MockServer;
beforeAll(async () => {
  server = await createMockServer({ port: 0 });
});
afterAll(() => server.close());

test('the carrier service takes a new order and delivers it: the main API shows it complete', async () => {
  const service = await startCarrierService(server.url, { stepMs: 50, log: () => {} });
  try {
    const control = createControlClient({ baseUrl: server.url });
    await control.POST('/__mock/carriers', { body: { name: 'Example Carrier', callback_url: service.callbackUrl } });
    await control.PUT('/__mock/clock', { body: { now: '2026-11-20T18:30:00+01:00', frozen: false } });
    const { data } = await control.POST('/__mock/orders', {
      body: {
        ...DEMO_ORDER,
        items: [{ dish_id: 10003, amount: 6 }],
      },
    });
    const number = data!.order.number;
    await expect.poll(() => service.delivered, { timeout: 15_000 }).toContain(number);

    const order = server.mock.runtime.state.orders.get(data!.order.id)!;
    await expect.poll(() => order.status, { timeout: 5_000 }).toBe('complete');
    expect(order.delivery.status).toBe('delivered');
    expect(order.delivery.courier_name).toBe('Tom Richter');
    expect(order.delivery.lat).toBeCloseTo(DEMO_ORDER.latitude, 3);
  } finally {
    await service.stop();
  }
});
