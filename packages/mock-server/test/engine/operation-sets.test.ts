import { createApiDescription } from '@restoapi/openapi';
import { expect, test } from 'vitest';
import { createMock, createMockEngine, handlers, type OperationSet } from '../../src/index.js';

const base = 'http://localhost:4010';

/** A tiny second document: what an extension of the mock (like the control API) brings along. */
const greetingDocument = {
  openapi: '3.1.0',
  info: { title: 'Greetings', version: '1' },
  paths: {
    '/__greet/{name}': {
      post: {
        operationId: 'greet',
        parameters: [
          { name: 'name', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'times', in: 'query', schema: { type: 'integer', minimum: 1, default: 1 } },
        ],
        requestBody: {
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['greeting'],
                properties: { greeting: { type: 'string', minLength: 1 } },
              },
            },
          },
        },
        responses: { '200': { description: 'The greeting.' } },
      },
    },
  },
};

interface GreetContext {
  params: { name: string };
  query: { times: number };
  body: { greeting: string };
  services: { punctuation: string };
}

function greetingSet(): OperationSet<{ punctuation: string }> {
  return {
    description: createApiDescription({ document: greetingDocument }),
    pathPrefix: '/__greet',
    services: { punctuation: '!' },
    handlers: {
      greet: ({ params, query, body, services }: GreetContext) => ({
        status: 200,
        body: { text: `${body.greeting} ${params.name}${services.punctuation}`.repeat(query.times) },
      }),
    },
  };
}

test('a second document runs through the same pipeline: routed, validated, handled with its services', async () => {
  const mock = createMockEngine({ handlers, operationSets: [greetingSet()] });
  const res = await mock.fetch(`${base}/__greet/Ada?times=2`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ greeting: 'Hi' }),
  });
  expect(res.status).toBe(200);
  expect(res.headers.get('x-request-id')).toMatch(/^req_/);
  expect(await res.json()).toEqual({ text: 'Hi Ada!Hi Ada!' });

  const post = (query: string, body: unknown) =>
    mock.fetch(`${base}/__greet/Ada${query}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  const sourceOf = async (res: Response) => ((await res.json()) as { errors: { source: unknown }[] }).errors[0]!.source;
  const badQuery = await post('?times=0', { greeting: 'Hi' });
  expect(badQuery.status).toBe(400);
  expect(await sourceOf(badQuery)).toEqual({ parameter: 'times' });
  const badBody = await post('', { greeting: '' });
  expect(badBody.status).toBe(422);
  expect(await sourceOf(badBody)).toEqual({ pointer: '/greeting' });

  const wrongMethod = await mock.fetch(`${base}/__greet/Ada`);
  expect(wrongMethod.status).toBe(405);
  expect(wrongMethod.headers.get('allow')).toBe('POST');
  mock.close();
});

test('a path under a set prefix that the set does not serve falls through to the service API', async () => {
  const mock = createMockEngine({ handlers, operationSets: [greetingSet()] });
  const res = await mock.fetch(`${base}/__greet`);
  expect(res.status).toBe(404);
  expect(((await res.json()) as { errors: { detail: string }[] }).errors[0]!.detail).toBe(
    'No operation at GET /__greet.',
  );
  mock.close();
});

test('the control API answers like the service API: the same request ids, 405 with Allow, field errors', async () => {
  const mock = createMock();
  const clock = await mock.fetch(`${base}/__mock/clock`);
  expect(clock.status).toBe(200);
  expect(clock.headers.get('x-request-id')).toMatch(/^req_[0-9a-z]+$/);

  const wrongMethod = await mock.fetch(`${base}/__mock/clock`, { method: 'DELETE' });
  expect(wrongMethod.status).toBe(405);
  expect(wrongMethod.headers.get('allow')).toContain('GET');

  const invalid = await mock.fetch(`${base}/__mock/clock/advance`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ ms: 'soon' }),
  });
  expect(invalid.status).toBe(422);
  expect(((await invalid.json()) as { errors: { source: unknown }[] }).errors[0]!.source).toEqual({ pointer: '/ms' });
  mock.close();
});
