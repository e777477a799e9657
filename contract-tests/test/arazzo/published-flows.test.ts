import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { createMock } from '@restoapi/mock-server';
import { createMockServer, type MockServer } from '@restoapi/mock-server/node';
import { MUTANTS } from '../mutants/mutants.js';
import { respect } from './respect.js';
import { serveHandle } from './serve-handle.js';

const OPENAPI = fileURLToPath(new URL('../../../openapi/', import.meta.url));
const FLOWS = ['carrier-delivery', 'menu-publication', 'order-life'].map(
  (name) => `${OPENAPI}arazzo/${name}.arazzo.yaml`,
);

let server: MockServer;
beforeAll(async () => {
  server = await createMockServer({ port: 0 });
});
afterAll(() => server.close());

test("redocly respect runs the spec's flows, published as Arazzo workflows, against the mock over HTTP", async () => {
  const run = await respect(FLOWS, ['restoapi', 'mock'], server.url);
  console.log(run.summary.join('\n'));
  expect(
    run.steps.filter((s) => !s.passed).map((s) => `${s.workflowId}.${s.stepId}: ${s.failedChecks.join(', ')}`),
  ).toEqual([]);
  expect(run.exitCode).toBe(0);
  expect(new Set(run.steps.map((s) => s.workflowId))).toEqual(
    new Set(['carrierDelivery', 'menuImportPublishStorefront', 'orderFromImportToComplete']),
  );
  // Each flow reaches its last step: the order delivered and complete, the storefront, both confirmations.
  expect(run.steps.map((s) => s.stepId)).toEqual(
    expect.arrayContaining(['readDeliveredOrder', 'readCompleteOrder', 'storefront', 'readComplete']),
  );
}, 120_000);

test('the workflows fail where a faulty service breaks them: each stops at the step that reads the fault', async () => {
  for (const [id, flow, step] of [
    ['confirm-sets-wrong-timestamp', 'order-life', 'readRestaurantConfirmation'],
    ['publish-does-nothing', 'menu-publication', 'storefront'],
  ] as const) {
    const mock = createMock();
    const faulty = await serveHandle(MUTANTS.find((m) => m.id === id)!.wrap(mock.handle));
    try {
      const run = await respect([`${OPENAPI}arazzo/${flow}.arazzo.yaml`], ['restoapi', 'mock'], faulty.url);
      expect(run.exitCode, `${flow} against ${id}`).not.toBe(0);
      expect(run.steps.filter((s) => !s.passed).map((s) => s.stepId)).toEqual([step]);
    } finally {
      await faulty.close();
      mock.close();
    }
  }
}, 120_000);
