import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { startPrism, type RunningPrism } from '../../scripts/testing/start-prism.js';
import { runContractSuite, type ContractConfig } from '../src/index.js';

// Prism serves the bundled document as a static mock: the schema-only selection
// must pass against it (the suite is implementation-agnostic), while the
// behaviour checks fail (a static mock keeps no state).
const config = JSON.parse(readFileSync(new URL('../config/prism.json', import.meta.url), 'utf8')) as ContractConfig;
let prism: RunningPrism;
let baseUrl: string;

beforeAll(async () => {
  prism = await startPrism();
  baseUrl = prism.url;
}, 60_000);

afterAll(() => {
  prism?.stop();
});

test('the schema-only selection passes against Prism serving openapi/ (the carrier API at /api-delivery, no --carrier-base-url)', async () => {
  const result = await runContractSuite({
    baseUrl,
    config,
    profile: 'spec',
    selection: 'schema-only',
    seed: 5,
  });
  const failed = result.results.filter((r) => r.status === 'failed').map((r) => `${r.id}: ${r.failure}`);
  expect(failed).toEqual([]);
  // Only the callbacks need something a static mock cannot do (a control API to register a carrier).
  expect(result.results.filter((r) => r.status === 'skipped').map((r) => r.id)).toEqual(['schema.callbacks']);
  expect(result.summary.passed).toBeGreaterThanOrEqual(45);
}, 120_000);

test('the behaviour checks report what a static mock fails', async () => {
  const result = await runContractSuite({
    baseUrl,
    config,
    profile: 'spec',
    selection: 'behaviour',
    seed: 5,
  });
  const failed = result.results.filter((r) => r.status === 'failed');
  console.log(
    `Prism (static mock), spec behaviour checks: ${result.summary.passed} passed, ${failed.length} failed, ${result.summary.skipped} skipped\n` +
      failed.map((r) => `  ✘ ${r.id}: ${(r.failure ?? '').split('\n')[0]!.slice(0, 160)}`).join('\n'),
  );
  // A static mock keeps no state: a deleted token still works, updates are not stored, imports are never busy.
  expect(failed.map((r) => r.id)).toEqual(
    expect.arrayContaining(['session.lifecycle', 'organization.update-editable-fields', 'imports.menu-one-at-a-time']),
  );
}, 180_000);
