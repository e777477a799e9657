import { expect, test } from 'vitest';
import { signWebhook } from '../../src/index.js';
import { useCarrierWorld } from '../support/carrier-world.js';
import { callbacks, eventually, placeOrder, registerCarrier } from '../support/world.js';

const startCarrierWorld = useCarrierWorld();

const SECRET = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';

test('with a registered secret the mock signs its callbacks and the receiver verifies them; forgeries get 401', async () => {
  // The mock signs with its virtual clock, so the receiver's tolerance is measured against that clock.
  const { world, agent, served } = await startCarrierWorld({
    agent: (world) => ({ scheduler: world.mockTime, receiver: { signing: { secret: SECRET } } }),
  });
  const carrierId = await registerCarrier(world, served.url, { secret: SECRET });
  const order = await placeOrder(world);
  await eventually(() => agent.view(order.id) !== undefined, 5000, 'the signed callback to be processed');
  const [sent] = await callbacks(world, { carrier_id: carrierId });
  expect(sent!.attempts[0]!.status).toBe(202);

  // The same event without headers, with another query, or replayed long after: all refused.
  const query = new URLSearchParams(sent!.query).toString();
  const post = (q: string, headers: Record<string, string> = {}) =>
    fetch(`${served.url}?${q}`, { method: 'POST', headers });
  const signed = async (q: string, ageSec = 0) => {
    const timestamp = String(Math.floor(world.mockTime.now() / 1000) - ageSec);
    return {
      'webhook-id': sent!.webhook_id,
      'webhook-timestamp': timestamp,
      'webhook-signature': await signWebhook(SECRET, sent!.webhook_id, timestamp, q),
    };
  };
  expect((await post(query)).status).toBe(401);
  expect((await post(query.replace(String(order.id), '5001'), await signed(query))).status).toBe(401);
  expect((await post(query, await signed(query, 600))).status).toBe(401);
  // A correctly signed copy passes the check and is then recognised as a duplicate.
  expect((await post(query, await signed(query))).status).toBe(200);
  expect(agent.receiver.stats).toMatchObject({ unauthorized: 3, duplicates: 1, processed: 1 });
});

test('a receiver with the wrong secret refuses every callback; the mock keeps retrying instead of losing them', async () => {
  const { world, agent, served } = await startCarrierWorld({
    agent: (world) => ({
      scheduler: world.mockTime,
      receiver: { signing: { secret: 'whsec_' + btoa('not the registered key') } },
    }),
  });
  const carrierId = await registerCarrier(world, served.url, { secret: SECRET });
  const order = await placeOrder(world);
  await eventually(
    async () => (await callbacks(world, { carrier_id: carrierId }))[0]?.attempts.length === 1,
    5000,
    'the first attempt',
  );
  const [sent] = await callbacks(world, { carrier_id: carrierId });
  expect(sent).toMatchObject({ state: 'pending', attempts: [{ status: 401, outcome: 'failed' }] });
  expect(agent.view(order.id)).toBeUndefined();
});
