import { expectTypeOf, test } from 'vitest';
import { createMock, type MockEngine, type RestoMock } from '@restoapi/mock-server';

test('RestoMock, the former name of a mock instance, is still MockEngine (deprecated)', () => {
  expectTypeOf(createMock()).toEqualTypeOf<MockEngine>();
  expectTypeOf<RestoMock>().toEqualTypeOf<MockEngine>();
});
