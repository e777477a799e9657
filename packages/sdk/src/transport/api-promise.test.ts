import { expect, test } from 'vitest';
import { toApiPromise, type CallRecord } from './api-promise.js';

const response = new Response(null, { status: 404 });
/** A call that got a 404 answer and threw its typed error, as the reader records it. */
function failedCall(): { promise: Promise<string>; record: CallRecord } {
  const error = new Error('404');
  const record: CallRecord = { response, error };
  return { promise: Promise.reject(error), record };
}

test('awaits to the data, or throws the typed error', async () => {
  await expect(toApiPromise(Promise.resolve('ok'), { response: new Response() })).resolves.toBe('ok');
  const { promise, record } = failedCall();
  await expect(toApiPromise(promise, record)).rejects.toThrow('404');
});

test('withResponse resolves to { data, error, response } instead of throwing the typed error', async () => {
  const { promise, record } = failedCall();
  const result = await toApiPromise(promise, record).withResponse();
  expect(result).toEqual({ data: undefined, error: record.error, response });
  const ok = await toApiPromise(Promise.resolve('ok'), { response }).withResponse();
  expect(ok).toEqual({ data: 'ok', error: undefined, response });
});

test('withResponse still rejects with a failure that is not the typed error of an answer', async () => {
  const timeout = new Error('timed out');
  await expect(toApiPromise(Promise.reject(timeout), {}).withResponse()).rejects.toBe(timeout);
});

test('a failed call nobody handles is reported like any promise, and withResponse() handles it', async () => {
  const unhandled: unknown[] = [];
  const listener = (reason: unknown): void => {
    unhandled.push(reason);
  };
  process.on('unhandledRejection', listener);
  try {
    const floating = failedCall();
    void toApiPromise(floating.promise, floating.record);
    const inspected = failedCall();
    const result = toApiPromise(inspected.promise, inspected.record).withResponse();
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(unhandled).toEqual([floating.record.error]);
    expect((await result).error).toBe(inspected.record.error);
  } finally {
    process.off('unhandledRejection', listener);
  }
});

test('is a native promise, so that `await` takes its fast path', () => {
  const promise = toApiPromise(Promise.resolve('ok'), {});
  expect(promise).toBeInstanceOf(Promise);
  expect(promise.constructor).toBe(Promise);
  expect(Object.prototype.toString.call(promise)).toBe('[object Promise]');
});
