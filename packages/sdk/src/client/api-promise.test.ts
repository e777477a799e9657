import { describe, expect, test } from 'vitest';
import { ApiPromise, type ApiResult } from './api-promise.js';

const response = new Response(null, { status: 404 });
const failed = (): Promise<ApiResult<string, Error>> =>
  Promise.resolve({ data: undefined, error: new Error('404'), response });

describe('ApiPromise', () => {
  test('awaits to the data, or throws the typed error', async () => {
    await expect(
      new ApiPromise(Promise.resolve({ data: 'ok', error: undefined, response: new Response() })),
    ).resolves.toBe('ok');
    await expect(new ApiPromise(failed())).rejects.toThrow('404');
    await expect(new ApiPromise(failed()).catch((e: unknown) => (e as Error).message)).resolves.toBe('404');
    let settled = false;
    await new ApiPromise(failed()).finally(() => (settled = true)).catch(() => undefined);
    expect(settled).toBe(true);
  });

  test('withResponse resolves to { data, error, response } instead of throwing', async () => {
    const result = await new ApiPromise(failed()).withResponse();
    expect(result).toMatchObject({ data: undefined, error: new Error('404'), response });
  });

  test('an error answer nobody awaits is not an unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', listener);
    void new ApiPromise(failed());
    await new Promise((resolve) => setTimeout(resolve, 20));
    process.off('unhandledRejection', listener);
    expect(unhandled).toEqual([]);
  });

  test('is a promise to tooling', () => {
    const promise = new ApiPromise(failed());
    promise.catch(() => undefined);
    expect(Object.prototype.toString.call(promise)).toBe('[object ApiPromise]');
    expect(typeof promise.then).toBe('function');
  });
});
