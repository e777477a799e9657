import { beforeEach, expect, test } from 'vitest';
import { untilWorkersOverlap, workerSession } from '../worker-session.js';

const worker = workerSession();

beforeEach(async () => {
  await worker.control.POST('/__mock/reset', { body: { seed: 'demo' } });
});

test("a worker's clock and faults are its own", async () => {
  const { data: clock } = await worker.control.PUT('/__mock/clock', {
    body: { now: '2030-01-01T00:00:00Z', frozen: true },
  });
  // A fault on the orders list, armed in this session only: other workers keep listing their orders.
  await worker.control.POST('/__mock/faults', {
    body: { method: 'GET', path: '/api/orders', status: 503, count: 5 },
  });
  await untilWorkersOverlap(worker.control, 2);

  const dispatcher = await worker.login('dispatcher@demo');
  expect((await dispatcher.GET('/api/orders')).response.status).toBe(503);
  expect((await worker.control.GET('/__mock/clock')).data).toEqual(clock);
  await worker.control.DELETE('/__mock/faults');
});
