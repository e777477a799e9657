import { describe, expect, test } from 'vitest';
import { toTokenStore } from './token.js';

describe('token store', () => {
  test('a string is kept in memory and replaced by login/logout', async () => {
    const store = toTokenStore('t1');
    expect(await store.get()).toBe('t1');
    await store.set('t2');
    expect(await store.get()).toBe('t2');
    await store.set(null);
    expect(await store.get()).toBeNull();
  });

  test('a supplier is read each time until a login token takes over; after logout nothing is sent', async () => {
    let external = 'a';
    const store = toTokenStore(async () => external);
    expect(await store.get()).toBe('a');
    external = 'b';
    expect(await store.get()).toBe('b');
    await store.set('from-login');
    expect(await store.get()).toBe('from-login');
    await store.set(null);
    expect(await store.get()).toBeNull();
  });

  test('a TokenStore is used as it is', () => {
    const custom = { get: () => 'x', set: () => undefined };
    expect(toTokenStore(custom)).toBe(custom);
    expect(toTokenStore(undefined).get()).toBeUndefined();
  });
});
