import { afterAll, expect, test } from 'vitest';
import { createMock } from '@restoapi/mock-server';
import { runContractSuite } from '../../src/index.js';
import { IN_PROCESS_URL, MOCK_CONFIG } from '../helpers.js';

const mock = createMock();
afterAll(() => mock.close());

test('every stateful machine agrees with the mock under the full profile', async () => {
  const started = Date.now();
  const result = await runContractSuite({
    baseUrl: IN_PROCESS_URL,
    fetch: mock.fetch,
    config: MOCK_CONFIG,
    profile: 'full',
    selection: 'stateful',
    seed: 5,
  });
  console.log(
    `stateful tests: ${result.results.map((r) => `${r.id} ${r.requests} requests ${r.durationMs} ms`).join(', ')} (${Date.now() - started} ms)`,
  );
  expect(result.results.map((r) => `${r.id}: ${r.status} ${r.failure ?? r.skipReason ?? ''}`)).toEqual(
    result.results.map((r) => `${r.id}: passed `),
  );
  expect(result.results.map((r) => r.id)).toEqual([
    'stateful.sessions',
    'stateful.menu',
    'stateful.zones',
    'stateful.orders',
  ]);
}, 120_000);
