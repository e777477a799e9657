import { createApiDescription } from '@restoapi/openapi';
import type { ContractTest } from '../runner/context.js';
import { carrierTests } from './carrier.js';
import { conformanceTests } from './conformance.js';
import { formatTests } from './format.js';
import { importTests } from './imports.js';
import { menuTests } from './menu.js';
import { negativeTests } from './negative.js';
import { orderTests } from './orders.js';
import { resourceTests } from './resources.js';
import { scopeTests } from './scopes.js';
import { sessionTests } from './session.js';
import { statefulTests } from './stateful/index.js';
import { statedRuleTests } from './stated-rules.js';
import { zoneTests } from './zones.js';

let cache: ContractTest[] | undefined;

/** Every test of the suite, in run order: conformance first, then behaviour, then negative, then stateful. */
export function allTests(): ContractTest[] {
  if (cache) return cache;
  const api = createApiDescription();
  const tests = [
    ...conformanceTests(api.operations.map((op) => op.operationId)),
    ...sessionTests,
    ...scopeTests,
    ...resourceTests,
    ...menuTests,
    ...zoneTests,
    ...importTests,
    ...orderTests,
    ...statedRuleTests,
    ...carrierTests,
    ...formatTests,
    ...negativeTests(api.operations),
    ...statefulTests,
  ];
  const ids = new Set<string>();
  for (const test of tests) {
    if (ids.has(test.id)) throw new Error(`duplicate test id ${test.id}`);
    ids.add(test.id);
  }
  cache = tests;
  return tests;
}
