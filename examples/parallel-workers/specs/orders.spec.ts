import { beforeEach, expect, test } from 'vitest';
import { untilWorkersOverlap, workerSession } from '../worker-session.js';

const worker = workerSession();

beforeEach(async () => {
  await worker.control.POST('/__mock/reset', { body: { seed: 'demo' } });
  await worker.control.PUT('/__mock/clock', { body: { now: '2026-11-20T18:30:00+01:00', frozen: true } });
});

test('a worker places storefront orders and its dispatcher counts exactly those on top of the demo ones', async () => {
  const dispatcher = await worker.login('dispatcher@demo');
  const before = (await dispatcher.GET('/api/orders')).data!.meta.count;
  for (const address of ['Wiener Straße 18', 'Skalitzer Straße 80']) {
    const { response } = await worker.control.POST('/__mock/orders', {
      body: {
        organization_id: 1,
        latitude: 52.4975,
        longitude: 13.431,
        city: 'Berlin',
        address,
        contact_name: `Client of ${worker.name}`,
        contact_phone: '+49 170 1112233',
        payment_source: 'cash',
        delivery_asap: true,
        items: [{ dish_id: 10003, amount: 6 }],
      },
    });
    expect(response.status).toBe(201);
  }
  await untilWorkersOverlap(worker.control, 2);

  const { data, response } = await dispatcher.GET('/api/orders', { params: { query: { per_page: 100 } } });
  // Another worker's fault or reset never reaches this session.
  expect(response.status).toBe(200);
  expect(data!.meta.count).toBe(before + 2);
  const mine = data!.orders.filter((order) => order.contact_name === `Client of ${worker.name}`);
  expect(mine).toHaveLength(2);
});
