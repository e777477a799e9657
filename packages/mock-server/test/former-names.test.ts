import { expect, expectTypeOf, test } from 'vitest';
import { createMock, type MockEngine, type RestoMock } from '@restoapi/mock-server';

// The type assertions are checked by `tsc` (the typecheck step), like any test file's types.
test('RestoMock, the former name of a mock instance, is still MockEngine (deprecated)', () => {
  const mock: RestoMock = createMock();
  expectTypeOf(mock).toEqualTypeOf<MockEngine>();
  expectTypeOf<RestoMock>().toEqualTypeOf<MockEngine>();
  expect(typeof mock.fetch).toBe('function');
  mock.close();
});
