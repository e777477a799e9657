import { describe, expect, test } from 'vitest';
import { signWebhook, verifyWebhookSignature } from './webhook-signature.js';

const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const query = 'type=order_created&order_id=5001&order_secure_id=c9f3b2a4e1d84f0b9a7c6e5d4f3a2b1c';

function headers(id: string, timestamp: string, signature: string): Headers {
  return new Headers({ 'webhook-id': id, 'webhook-timestamp': timestamp, 'webhook-signature': signature });
}

describe('Standard Webhooks signatures', () => {
  test('matches the test vector of the Standard Webhooks specification', async () => {
    // Same HMAC construction; the specification's vector signs a JSON body where callbacks sign the query string.
    const signature = await signWebhook(secret, 'msg_p5jXN8AQM9LWM0D4loKWxJek', '1614265330', '{"test": 2432232314}');
    expect(signature).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  test('accepts a signature over id.timestamp.query string within the tolerance', async () => {
    const timestamp = '1795195805';
    const signature = await signWebhook(secret, 'msg_1', timestamp, query);
    const check = await verifyWebhookSignature({
      secret,
      headers: headers('msg_1', timestamp, signature),
      content: query,
      nowMs: 1795195805_000 + 120_000,
    });
    expect(check).toEqual({ valid: true, webhookId: 'msg_1', timestamp: 1795195805 });
  });

  test('refuses a changed query, an old or future timestamp and missing headers', async () => {
    const timestamp = '1795195805';
    const signature = await signWebhook(secret, 'msg_1', timestamp, query);
    const now = 1795195805_000;
    const tampered = await verifyWebhookSignature({
      secret,
      headers: headers('msg_1', timestamp, signature),
      content: query.replace('5001', '5002'),
      nowMs: now,
    });
    expect(tampered).toMatchObject({ valid: false, reason: 'no_matching_signature' });
    const old = await verifyWebhookSignature({
      secret,
      headers: headers('msg_1', timestamp, signature),
      content: query,
      nowMs: now + 301_000,
    });
    expect(old).toMatchObject({ valid: false, reason: 'timestamp_too_old' });
    const future = await verifyWebhookSignature({
      secret,
      headers: headers('msg_1', timestamp, signature),
      content: query,
      nowMs: now - 301_000,
    });
    expect(future).toMatchObject({ valid: false, reason: 'timestamp_too_new' });
    const missing = await verifyWebhookSignature({ secret, headers: new Headers(), content: query, nowMs: now });
    expect(missing).toMatchObject({ valid: false, reason: 'missing_headers' });
  });

  test('accepts any of several signatures and secrets while a secret is rotated', async () => {
    const next = 'whsec_' + btoa('another key of 24 bytes!');
    const timestamp = '1795195805';
    const oldSignature = await signWebhook(secret, 'msg_2', timestamp, query);
    const newSignature = await signWebhook(next, 'msg_2', timestamp, query);
    const both = headers('msg_2', timestamp, `${newSignature} ${oldSignature}`);
    expect((await verifyWebhookSignature({ secret, headers: both, content: query, nowMs: 1795195805_000 })).valid).toBe(
      true,
    );
    const onlyNew = headers('msg_2', timestamp, newSignature);
    expect(
      (
        await verifyWebhookSignature({
          secret: [secret, next],
          headers: onlyNew,
          content: query,
          nowMs: 1795195805_000,
        })
      ).valid,
    ).toBe(true);
    expect(
      (await verifyWebhookSignature({ secret, headers: onlyNew, content: query, nowMs: 1795195805_000 })).valid,
    ).toBe(false);
  });
});
