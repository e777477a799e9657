import { expect, test } from 'vitest';
import { signWebhook, webhookSecretKey } from './webhook-signature.js';

test('the signature matches the Standard Webhooks reference vector', async () => {
  // The vector published with the Standard Webhooks specification (a JSON body as the content).
  const signature = await signWebhook(
    'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    'msg_p5jXN8AQM9LWM0D4loKWxJek',
    '1614265330',
    '{"test": 2432232314}',
  );
  expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
});

test('callbacks sign their query string, so a different parameter gives a different signature', async () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const a = await signWebhook(secret, 'msg_1', '1795195805', 'type=order_created&order_id=5001&order_secure_id=abc');
  const b = await signWebhook(secret, 'msg_1', '1795195805', 'type=order_created&order_id=5002&order_secure_id=abc');
  expect(a).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
  expect(a).not.toBe(b);
});

test('a secret must be whsec_ and a non-empty base64 key', async () => {
  expect(webhookSecretKey('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')?.length).toBe(24);
  expect(webhookSecretKey('MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw')).toBeUndefined();
  expect(webhookSecretKey('whsec_')).toBeUndefined();
  await expect(signWebhook('plain-secret', 'msg_1', '1', '')).rejects.toThrow(RangeError);
});
