/** `npm run carrier-service`: the carrier service against a demo mock (registered, one storefront order placed). */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createControlClient } from '@restoapi/mock-server';
import { apiTarget } from '../support/demo-server.js';
import { startCarrierService } from './carrier-service.js';
import { DEMO_ORDER } from './demo-order.js';

/** The example's `main`: everything `npm run carrier-service` does. */
export async function runDemo(): Promise<void> {
  const target = await apiTarget();
  const service = await startCarrierService(target.baseUrl);
  try {
    if (!target.embedded) {
      console.log('Register the callback URL above with the service, then wait for orders (Ctrl+C to stop).');
      await new Promise((resolve) => process.once('SIGINT', resolve));
      return;
    }
    const control = createControlClient({ baseUrl: target.baseUrl });
    await control.POST('/__mock/carriers', { body: { name: 'Example Carrier', callback_url: service.callbackUrl } });
    await control.PUT('/__mock/clock', { body: { now: '2026-11-20T18:30:00+01:00', frozen: false } });
    const { data, error } = await control.POST('/__mock/orders', {
      body: {
        ...DEMO_ORDER,
        items: [{ dish_id: 10001, amount: 1, config: [{ group: 'Size', items: ['40 cm'] }] }],
      },
    });
    if (error) throw new Error(JSON.stringify(error));
    console.log(`Placed storefront order ${data.order.number}`);
    const started = Date.now();
    while (service.delivered.length === 0 && Date.now() - started < 30_000)
      await new Promise((r) => setTimeout(r, 100));
  } finally {
    await service.stop();
    await target.close();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  runDemo().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exitCode = 1;
  });
}
