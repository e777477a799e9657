import { createApiDescription } from '@restoapi/openapi';
import { expect, test } from 'vitest';
import { createMockEngine, handlers, type OperationSet } from '../../src/index.js';

// The pipeline remembers the valid outcome of a path and query (no body, no header parameters); these tests
// hold it to answering exactly what validating again would, and to handing every request its own copy.

const base = 'http://localhost:4010';

const document = {
  openapi: '3.1.0',
  info: { title: 'Echo', version: '1' },
  paths: {
    '/__echo/{id}': {
      get: {
        operationId: 'echo',
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'integer', minimum: 1 } },
          { name: 'tag', in: 'query', schema: { type: 'array', items: { type: 'string', enum: ['a', 'b'] } } },
          { name: 'size', in: 'query', schema: { type: 'integer', maximum: 10, default: 3 } },
        ],
        responses: { '200': { description: 'What the handler received.' } },
      },
    },
  },
};

function echoSet(): OperationSet {
  return {
    description: createApiDescription({ document }),
    pathPrefix: '/__echo',
    handlers: {
      // A careless handler: it changes what it was given, which must not reach the next request.
      echo: ({ params, query }: { params: { id: number }; query: { tag?: string[]; size: number } }) => {
        const seen = { id: params.id, tag: query.tag ? [...query.tag] : null, size: query.size };
        query.tag?.push('changed');
        query.size = -1;
        params.id = 0;
        return { status: 200, body: seen };
      },
    },
  };
}

test('the same query twice gets the same coerced parameters, even after a handler changed its copy', async () => {
  const mock = createMockEngine({ handlers, operationSets: [echoSet()] });
  const first = await (await mock.fetch(`${base}/__echo/7?tag=a&tag=b`)).json();
  const second = await (await mock.fetch(`${base}/__echo/7?tag=a&tag=b`)).json();
  expect(first).toEqual({ id: 7, tag: ['a', 'b'], size: 3 });
  expect(second).toEqual(first);
  mock.close();
});

test('a query refused once is refused every time, and a valid one on another path keeps its own parameters', async () => {
  const mock = createMockEngine({ handlers, operationSets: [echoSet()] });
  for (let i = 0; i < 2; i++) {
    const refused = await mock.fetch(`${base}/__echo/7?size=11`);
    expect(refused.status).toBe(400);
    expect(
      ((await refused.json()) as { errors: { source: { parameter: string } }[] }).errors[0]!.source.parameter,
    ).toBe('size');
  }
  expect(await (await mock.fetch(`${base}/__echo/7?size=4`)).json()).toEqual({ id: 7, tag: null, size: 4 });
  expect(await (await mock.fetch(`${base}/__echo/8?size=4`)).json()).toEqual({ id: 8, tag: null, size: 4 });
  expect((await mock.fetch(`${base}/__echo/0?size=4`)).status).toBe(400);
  mock.close();
});
