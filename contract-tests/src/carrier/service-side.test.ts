import { expect, test } from 'vitest';
import { startServiceSide } from './service-side.js';

test('the service side records the carrier API calls it answers, and says so when its port is taken', async () => {
  const service = await startServiceSide({ callbackTimeoutMs: 1000 });
  try {
    expect(service.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const answer = await fetch(`${service.url}/api-delivery/orders/unknown/delivery`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json' },
      body: '{"status":"courier_assigned"}',
    });
    expect(answer.status).toBe(404);
    expect(service.calls).toMatchObject([
      { kind: 'update', secureId: 'unknown', status: 404, json: { status: 'courier_assigned' } },
    ]);
    await expect(startServiceSide({ serviceUrl: service.url, callbackTimeoutMs: 1000 })).rejects.toThrow(
      `port ${new URL(service.url).port} on 127.0.0.1 is already in use; choose another with --service-url`,
    );
  } finally {
    await service.close();
  }
});
