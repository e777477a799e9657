import { createApiDescription } from '@restoapi/openapi';
import { expect, test } from 'vitest';
import { parseCallback } from './callback-event.js';

const queries = [
  'type=order_created&order_id=5001&order_secure_id=c9f3b2a4',
  'type=order_status_changed&order_id=5001&order_secure_id=c9f3b2a4&status=complete&extra=ignored',
  'type=order_status_changed&order_id=5001&order_secure_id=c9f3b2a4&status=lost',
  'type=order_created&order_id=zero&order_secure_id=',
  'type=order_created&order_id=0x1&order_secure_id=',
  'type=order_status_changed&order_id=%2B5001&order_secure_id=c9f3b2a4&status=complete',
  'type=order_created&order_id[]=7&order_secure_id=x',
  'type=order_created',
  'type=refund_issued&order_id=1',
  'order_id=1',
];

test('the checks compiled ahead of time parse every callback as the runtime validator does', () => {
  const validator = createApiDescription();
  for (const query of queries) {
    const params = new URLSearchParams(query);
    expect(parseCallback(params), query).toEqual(parseCallback(params, validator));
  }
});

test('a valid callback is typed and coerced; a bad one names the parameter', () => {
  expect(parseCallback(new URLSearchParams(queries[1]))).toEqual({
    kind: 'event',
    event: { type: 'order_status_changed', order_id: 5001, order_secure_id: 'c9f3b2a4', status: 'complete' },
  });
  const bad = parseCallback(new URLSearchParams(queries[2]));
  expect(bad.kind === 'invalid' && bad.issues.map((issue) => [issue.name, issue.keyword])).toEqual([
    ['status', 'enum'],
  ]);
});

test('the default parser compiles nothing at run time (Workers refuse eval)', () => {
  const original = globalThis.Function;
  globalThis.Function = function () {
    throw new EvalError('Code generation from strings disallowed for this context');
  } as unknown as FunctionConstructor;
  try {
    expect(parseCallback(new URLSearchParams(queries[0])).kind).toBe('event');
    expect(parseCallback(new URLSearchParams(queries[3])).kind).toBe('invalid');
  } finally {
    globalThis.Function = original;
  }
});

test('an order id not written canonically is refused by name, never read as another order', () => {
  // A number written another way is refused for its form (the decision on Id); text that is no integer for its type.
  const refused: [string, string][] = [
    ['0x1', 'format'],
    ['%2B5001', 'format'],
    ['05001', 'format'],
    ['5001%20', 'format'],
    ['5e3', 'format'],
    ['5001.0', 'format'],
    ['5001.5', 'type'],
    ['abc', 'type'],
  ];
  for (const [id, keyword] of refused) {
    const parsed = parseCallback(new URLSearchParams(`type=order_created&order_id=${id}&order_secure_id=c9f3`));
    expect(parsed.kind === 'invalid' && parsed.issues.map((issue) => [issue.name, issue.keyword]), id).toEqual([
      ['order_id', keyword],
    ]);
  }
});
