import { describe, expect, test } from 'vitest';
import { signWebhook } from '../signing/webhook-signature.js';
import { createManualScheduler } from '../time/scheduler.js';
import type { CallbackEvent } from './callback-event.js';
import { createCallbackReceiver } from './callback-receiver.js';

const SECURE = 'c9f3b2a4e1d84f0b9a7c6e5d4f3a2b1c';

function callback(query: string, init: RequestInit = {}): Request {
  return new Request(`http://carrier.test/callbacks?${query}`, { method: 'POST', ...init });
}

describe('callback receiver', () => {
  test('acknowledges at once and runs the typed handler in the background', async () => {
    const seen: CallbackEvent[] = [];
    let release!: () => void;
    const slow = new Promise<void>((resolve) => (release = resolve));
    const receiver = createCallbackReceiver({
      handlers: {
        order_status_changed: async (event) => {
          // `status` exists only on this event type: the handler is narrowed.
          expect(event.status).toBe('cooking');
          await slow;
          seen.push(event);
        },
      },
    });
    const response = await receiver.handle(
      callback(`type=order_status_changed&order_id=5001&order_secure_id=${SECURE}&status=cooking`),
    );
    expect(response.status).toBe(202);
    expect(seen).toEqual([]);
    release();
    await receiver.idle();
    expect(seen).toEqual([
      { type: 'order_status_changed', order_id: 5001, order_secure_id: SECURE, status: 'cooking' },
    ]);
  });

  test.each([
    ['no type', `order_id=5001&order_secure_id=${SECURE}`, 'type is required'],
    [
      'order_id not an integer',
      `type=order_created&order_id=abc&order_secure_id=${SECURE}`,
      'order_id must be a decimal integer',
    ],
    ['order_id below 1', `type=order_created&order_id=0&order_secure_id=${SECURE}`, 'order_id must be >= 1'],
    ['no secure id', 'type=order_created&order_id=5001', 'order_secure_id is required'],
    [
      'unknown status',
      `type=order_status_changed&order_id=5001&order_secure_id=${SECURE}&status=lost`,
      'status must be one of',
    ],
    ['no status', `type=order_status_changed&order_id=5001&order_secure_id=${SECURE}`, 'status is required'],
  ])('refuses a callback with %s with 400 and the reason', async (_, query, reason) => {
    const receiver = createCallbackReceiver();
    const response = await receiver.handle(callback(query));
    expect(response.status).toBe(400);
    const body = (await response.json()) as { errors: { detail: string; code: string }[] };
    expect(body.errors[0]!.code).toBe('invalid_parameter');
    expect(body.errors.map((e) => e.detail).join('; ')).toContain(reason);
    expect(receiver.stats.invalid).toBe(1);
  });

  test('acknowledges an unknown type without acting, and ignores unknown parameters', async () => {
    let calls = 0;
    const receiver = createCallbackReceiver({ handlers: { order_created: () => void calls++ } });
    expect((await receiver.handle(callback(`type=order_rated&order_id=5001&order_secure_id=${SECURE}`))).status).toBe(
      202,
    );
    expect(
      (await receiver.handle(callback(`type=order_created&order_id=5001&order_secure_id=${SECURE}&region=eu`))).status,
    ).toBe(202);
    await receiver.idle();
    expect(calls).toBe(1);
    expect(receiver.stats).toMatchObject({ ignored: 1, accepted: 1, processed: 1 });
  });

  test('answers 405 to anything but POST', async () => {
    const receiver = createCallbackReceiver();
    const response = await receiver.handle(
      new Request(`http://carrier.test/callbacks?type=order_created`, { method: 'GET' }),
    );
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  test('processes a duplicate once, including concurrent duplicates locked in flight', async () => {
    let calls = 0;
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const receiver = createCallbackReceiver({
      handlers: {
        order_created: async () => {
          calls++;
          await gate;
        },
      },
    });
    const query = `type=order_created&order_id=5001&order_secure_id=${SECURE}`;
    const answers = await Promise.all([
      receiver.handle(callback(query)),
      receiver.handle(callback(query)),
      receiver.handle(callback(query)),
    ]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 200, 202]);
    release();
    await receiver.idle();
    expect((await receiver.handle(callback(query))).status).toBe(200);
    expect(calls).toBe(1);
    expect(receiver.stats).toMatchObject({ accepted: 1, duplicates: 3, processed: 1 });
  });

  test('a status change with another status is not a duplicate', async () => {
    const statuses: string[] = [];
    const receiver = createCallbackReceiver({
      handlers: { order_status_changed: (e) => void statuses.push(e.status) },
    });
    for (const status of ['accepted', 'cooking', 'accepted']) {
      await receiver.handle(
        callback(`type=order_status_changed&order_id=5001&order_secure_id=${SECURE}&status=${status}`),
      );
    }
    await receiver.idle();
    expect(statuses).toEqual(['accepted', 'cooking']);
  });

  test('a failed handler releases the key, so the redelivery is processed', async () => {
    let attempts = 0;
    const errors: unknown[] = [];
    const receiver = createCallbackReceiver({
      handlers: {
        order_created: () => {
          attempts++;
          if (attempts === 1) throw new Error('database down');
        },
      },
      onError: (error) => errors.push(error),
    });
    const query = `type=order_created&order_id=5001&order_secure_id=${SECURE}`;
    await receiver.handle(callback(query));
    await receiver.idle();
    await receiver.handle(callback(query));
    await receiver.idle();
    expect(attempts).toBe(2);
    expect(errors).toHaveLength(1);
    expect(receiver.stats).toMatchObject({ failed: 1, processed: 1 });
  });

  test('with signing on, verifies the Standard Webhooks headers over the query string as sent', async () => {
    const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
    const clock = createManualScheduler(1795195805_000);
    const receiver = createCallbackReceiver({ signing: { secret }, scheduler: clock });
    const query = `type=order_created&order_id=5001&order_secure_id=${SECURE}`;
    const signature = await signWebhook(secret, 'msg_1', '1795195805', query);
    const headers = { 'webhook-id': 'msg_1', 'webhook-timestamp': '1795195805', 'webhook-signature': signature };
    expect((await receiver.handle(callback(query, { headers }))).status).toBe(202);
    expect((await receiver.handle(callback(query))).status).toBe(401);
    expect((await receiver.handle(callback(query.replace('5001', '5009'), { headers }))).status).toBe(401);
    clock.advance(10 * 60_000);
    const late = await receiver.handle(callback(query, { headers }));
    expect(late.status).toBe(401);
    expect(((await late.json()) as { errors: { detail: string }[] }).errors[0]!.detail).toMatch(/in the past/);
  });

  test('with ack: after-processing, the answer waits for the handlers and is a 500 when they fail', async () => {
    let fail = true;
    const receiver = createCallbackReceiver({
      ack: 'after-processing',
      handlers: {
        order_created: () => {
          if (fail) throw new Error('database down');
        },
      },
    });
    const query = `type=order_created&order_id=5001&order_secure_id=${SECURE}`;
    expect((await receiver.handle(callback(query))).status).toBe(500);
    fail = false;
    // The service's retry is processed, since the failure released the key.
    expect((await receiver.handle(callback(query))).status).toBe(200);
    expect((await receiver.handle(callback(query))).status).toBe(200);
    expect(receiver.stats).toMatchObject({ failed: 1, processed: 1, duplicates: 1 });
  });

  test('unsigned callbacks are accepted while signing is off (the default)', async () => {
    const receiver = createCallbackReceiver();
    const response = await receiver.handle(callback(`type=order_created&order_id=5001&order_secure_id=${SECURE}`));
    expect(response.status).toBe(202);
  });
});
