import { expect, test } from 'vitest';
import { listOperations, openapiDocument } from '@restoapi/openapi';
import { handlers } from '@restoapi/mock-server';

test('every operation of the API description has a handler in the mock', () => {
  const served = listOperations(openapiDocument)
    .filter((op) => op.kind === 'paths')
    .map((op) => op.operationId);
  const missing = served.filter((id) => !(id in handlers));
  expect(missing).toEqual([]);
  expect(served.length).toBeGreaterThanOrEqual(45);
});

test('no handler answers an operation the document does not have', () => {
  const documented = new Set(listOperations(openapiDocument).map((op) => op.operationId));
  expect(Object.keys(handlers).filter((id) => !documented.has(id))).toEqual([]);
});
