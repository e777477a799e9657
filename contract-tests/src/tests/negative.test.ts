import { createApiDescription } from '@restoapi/openapi';
import { expect, test } from 'vitest';
import { isSpecMutation, mutationsFor } from './negative.js';

const api = createApiDescription();

test('an integer path parameter gets non-canonical spellings and malformed encodings as decided 400s', () => {
  const op = api.operation('publishMenu');
  const mutations = mutationsFor(api, op, { params: { id: '1' }, query: {} });
  const labels = mutations.map((m) => m.label);
  for (const value of ['0x1', '+1', '01', ' 1', '1 ', '1e3', '1.0', '-0', '99999999999999999999'])
    expect(labels).toContain(`path id=${JSON.stringify(value)} (not a canonical integer)`);
  expect(mutations.find((m) => m.label === 'path id=%E0 (malformed percent-encoding)')).toMatchObject({
    kind: 'pathParam',
    rawParams: { id: '%E0' },
  });
  // Decided by the document, not the written spec: checked under the `full` profile.
  expect(
    mutations.filter((m) => /canonical|malformed/.test(m.label)).some((m) => isSpecMutation(op.operationId, m)),
  ).toBe(false);
});

test('integer query parameters get the non-canonical spellings, string path parameters only the malformed encodings', () => {
  const list = mutationsFor(api, api.operation('listOrders'), { params: {}, query: { page: 1, per_page: 10 } });
  expect(list.map((m) => m.label)).toContain('query per_page="1e3" (not a canonical integer)');
  const carrier = mutationsFor(api, api.operation('getCarrierOrder'), { params: { secure_id: 'abc' }, query: {} });
  expect(carrier.map((m) => m.label)).toEqual([
    'path secure_id=%E0 (malformed percent-encoding)',
    'path secure_id=% (malformed percent-encoding)',
    'path secure_id=%C3%28 (malformed percent-encoding)',
  ]);
});
