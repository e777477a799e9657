import { openapiDocument } from '@restoapi/openapi';
import { expect, test } from 'vitest';
import { readDeliveryStateMachine } from './delivery-state-machine.js';

test('reads the delivery state machine from the document', () => {
  const machine = readDeliveryStateMachine();
  expect(machine.initial).toBe('idle');
  expect(machine.terminal).toEqual(['delivered']);
  expect(machine.canMove('idle', 'courier_assigned')).toBe(true);
  expect(machine.canMove('idle', 'delivered')).toBe(false);
  expect(machine.next('problem').sort()).toEqual(['courier_assigned', 'delivering', 'idle']);
  expect(machine.isLocked('cancelled')).toBe(true);
  expect(machine.isLocked('delivering')).toBe(false);
});

test('follows a changed document instead of hard-coded transitions', () => {
  const document = structuredClone(openapiDocument) as {
    components: { schemas: { DeliveryStatus: { 'x-state-machine': { transitions: unknown[] } } } };
  };
  document.components.schemas.DeliveryStatus['x-state-machine'].transitions.push({
    from: 'idle',
    to: 'delivered',
    actors: ['carrier'],
  });
  const machine = readDeliveryStateMachine(document as unknown as Record<string, unknown>);
  expect(machine.canMove('idle', 'delivered')).toBe(true);
});
