import type { ContractTest } from '../../runner/context.js';
import { importMachineTest } from './import-machine.js';
import { menuMachineTest } from './menu-machine.js';
import { orderMachineTest } from './order-machine.js';
import { recordsMachineTest } from './records-machine.js';
import { sessionMachineTest } from './session-machine.js';
import { zoneMachineTest } from './zone-machine.js';

/** The model-based stateful tests, one machine per area. */
export const statefulTests: ContractTest[] = [
  sessionMachineTest,
  menuMachineTest,
  zoneMachineTest,
  orderMachineTest,
  importMachineTest,
  recordsMachineTest,
];
