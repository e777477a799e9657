import { appendFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import type { CallbackEvent } from './callback-event.js';
import type { CallbackInbox, RecordedCallback } from './callback-inbox.js';
import { createCallbackReceiver } from './callback-receiver.js';
import { createFileCallbackInbox } from './file-callback-inbox.js';

const SECURE = 'c9f3b2a4e1d84f0b9a7c6e5d4f3a2b1c';
let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const created = (orderId: number): RecordedCallback => ({
  id: `cb-${orderId}`,
  key: `${orderId}:order_created`,
  event: { type: 'order_created', order_id: orderId, order_secure_id: SECURE },
  receivedAt: 1000 + orderId,
});
const post = (orderId: number): Request =>
  new Request(`http://carrier.test/callbacks?type=order_created&order_id=${orderId}&order_secure_id=${SECURE}`, {
    method: 'POST',
  });

test('the file inbox keeps what was recorded and not finished across a reopen, and skips a torn last line', async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'inbox-'));
  const file = path.join(dir, 'callbacks.jsonl');
  const first = createFileCallbackInbox(file);
  expect(await first.unfinished()).toEqual([]);
  await Promise.all([first.record(created(1)), first.record(created(2)), first.record(created(3))]);
  await first.finish('cb-2');
  await first.close!();
  // The process died while appending a fourth record: it was never acknowledged.
  await appendFile(file, '{"r":{"id":"cb-4","key":"4:ord');

  const second = createFileCallbackInbox(file);
  expect(await second.unfinished()).toEqual([created(1), created(3)]);
  // Reopening rewrites the journal with only what is unfinished.
  expect((await readFile(file, 'utf8')).trim().split('\n')).toHaveLength(2);
  await second.close!();
});

test('the file inbox empties its journal once nothing in it is unfinished', async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'inbox-'));
  const file = path.join(dir, 'callbacks.jsonl');
  const inbox = createFileCallbackInbox(file, { compactAfter: 4 });
  for (const id of [1, 2]) {
    await inbox.record(created(id));
    await inbox.finish(`cb-${id}`);
  }
  expect(await readFile(file, 'utf8')).toBe('');
  await inbox.close!();
});

test('acknowledged only once recorded: a record that fails is a 503, and nothing is processed', async () => {
  const seen: number[] = [];
  const failing: CallbackInbox = {
    durable: true,
    record: () => Promise.reject(new Error('disk full')),
    finish: async () => undefined,
    unfinished: async () => [],
  };
  const receiver = createCallbackReceiver({
    inbox: failing,
    handlers: { order_created: (event) => void seen.push(event.order_id) },
  });
  const response = await receiver.handle(post(5001));
  expect(response.status).toBe(503);
  await receiver.idle();
  expect(seen).toEqual([]);
  // The dedupe claim was given back: the service's next attempt is processed.
  const again = createCallbackReceiver({ handlers: { order_created: (event) => void seen.push(event.order_id) } });
  expect((await again.handle(post(5001))).status).toBe(202);
});

test('a callback interrupted by a stop stays recorded, and resume() at the next start processes it once', async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'inbox-'));
  const file = path.join(dir, 'callbacks.jsonl');
  const seen: CallbackEvent[] = [];
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const first = createCallbackReceiver({
    inbox: createFileCallbackInbox(file),
    handlers: {
      // Still working when the agent stops: its load is aborted.
      order_created: async () => {
        await gate;
        throw new Error('the carrier agent stopped');
      },
    },
  });
  expect((await first.handle(post(5001))).status).toBe(202);
  expect((await first.handle(post(5002))).status).toBe(202);
  const stopping = first.stop();
  release();
  await stopping;
  await first.inbox.close!();

  const second = createCallbackReceiver({
    inbox: createFileCallbackInbox(file),
    handlers: { order_created: (event) => void seen.push(event) },
  });
  expect(await second.resume()).toBe(2);
  await second.idle();
  expect(seen.map((event) => event.order_id)).toEqual([5001, 5002]);
  // Processed and finished: a third start has nothing left.
  await second.inbox.close!();
  expect(await createFileCallbackInbox(file).unfinished()).toEqual([]);
});
