import createClient from 'openapi-fetch';
import { describe, expect, test } from 'vitest';
import type { Pipeline, PlainRequest } from './pipeline.js';
import { createTransport, type SendInit, type TransportOptions } from './transport.js';

/** A transport whose pipeline records the requests it is given and answers 204. */
function recording(options: Partial<TransportOptions> = {}) {
  const sent: (PlainRequest | Request)[] = [];
  const pipeline = (async (request: PlainRequest | Request) => {
    sent.push(request);
    return new Response(null, { status: 204 });
  }) as Pipeline;
  return { sent, transport: createTransport({ baseUrl: 'http://x', pipeline, ...options }) };
}

/** The URL openapi-fetch itself would request for the same path and parameters. */
async function openapiFetchUrl(path: string, params: SendInit['params']): Promise<string> {
  let url = '';
  const client = createClient<Record<string, never>>({
    baseUrl: 'http://x',
    fetch: async (request: Request) => {
      url = request.url;
      return new Response('{}', { headers: { 'Content-Type': 'application/json' } });
    },
  });
  await (client as unknown as { GET: (p: string, i: object) => Promise<unknown> }).GET(path, { params });
  return url;
}

describe('transport', () => {
  test('URLs match openapi-fetch: encoded path parameters, arrays as repeated keys, objects as deepObject, nulls left out', async () => {
    const { sent, transport } = recording();
    const cases: [string, SendInit['params']][] = [
      ['/api/orders/{id}', { path: { id: 5001 } }],
      ['/orders/{secure_id}', { path: { secure_id: 'a b/ü?' } }],
      // Beyond plain `{name}` parameters with primitive values: openapi-fetch's own serialiser writes them.
      ['/api/things/{ids}', { path: { ids: [1, 2] } }],
      ['/api/things/{.id}/{;part}', { path: { id: 5, part: 'x' } }],
      ['/api/things/{id}', { path: { id: null } }],
      [
        '/api/orders',
        {
          query: {
            restaurant_id: [11, 12],
            status: ['pending', 'delivery'],
            client_id: [],
            per_page: 50,
            sort_by: '-delivery_at',
            q: 'a&b=c ü',
            gone: undefined,
            none: null,
            send_sms: false,
          },
        },
      ],
      ['/api/things', { query: { filter: { from: '2026-11-20', to: 'x y' } } }],
    ];
    for (const [path, params] of cases) {
      await transport.send(`GET ${path}`, { params }, {}, undefined);
      // `new URL` normalises as `fetch` will (openapi-fetch reports the URL of its `Request`).
      expect(new URL((sent.at(-1) as PlainRequest).url).href).toBe(await openapiFetchUrl(path, params));
    }
  });

  test('the operation names the method and the path; JSON bodies are typed, FormData bodies are not', async () => {
    const { sent, transport } = recording();
    await transport.send(
      'PUT /api/orders/{id}',
      { params: { path: { id: 7 } }, body: { order: { a: 1 } } },
      {},
      undefined,
    );
    const form = new FormData();
    await transport.send(
      'PUT /api/draft_dishes/{id}/photo',
      Promise.resolve({ params: { path: { id: 8 } }, body: form }),
      {},
      undefined,
    );
    expect(sent[0]).toEqual({
      url: 'http://x/api/orders/7',
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{"order":{"a":1}}',
    });
    expect(sent[1]).toEqual({ url: 'http://x/api/draft_dishes/8/photo', method: 'PUT', headers: {}, body: form });
  });

  test('the token goes last in the query when tokenIn is query', async () => {
    const { sent, transport } = recording({ token: () => 't k', tokenIn: 'query' });
    await transport.send('GET /api/orders', { params: { query: { page: 2 } } }, {}, undefined);
    await transport.send('GET /api/session', {}, {}, undefined);
    expect(sent.map((r) => r.url)).toEqual([
      'http://x/api/orders?page=2&token=t%20k',
      'http://x/api/session?token=t%20k',
    ]);
  });

  test('the session token wins over the caller headers, the resource headers over the base and caller headers', async () => {
    const { sent, transport } = recording({ token: async () => 'tok', headers: { 'X-App': 'base', Accept: 'a' } });
    await transport.send(
      'GET /api/session',
      { headers: { Accept: 'resource' } },
      {},
      { authorization: 'mine', 'x-app': 'call' },
    );
    expect((sent[0] as PlainRequest).headers).toEqual({
      authorization: 'Token token="tok"',
      'x-app': 'call',
      accept: 'resource',
    });
  });

  test("the raw client's fetch adds the same token to openapi-fetch's Request", async () => {
    const header = recording({ token: () => 'tok' });
    await header.transport.fetch(new Request('http://x/api/session'));
    expect((header.sent[0] as Request).headers.get('authorization')).toBe('Token token="tok"');
    const query = recording({ token: () => 'tok', tokenIn: 'query' });
    await query.transport.fetch(new Request('http://x/api/orders?page=2'));
    expect(query.sent[0]!.url).toBe('http://x/api/orders?page=2&token=tok');
    const none = recording({ token: () => null });
    const request = new Request('http://x/api/session');
    await none.transport.fetch(request);
    expect(none.sent[0]).toBe(request);
  });

  test('a token source that throws fails the call through its promise, not at the call', async () => {
    const { transport } = recording({
      token: () => {
        throw new Error('no storage');
      },
    });
    const pending = transport.send('GET /api/session', {}, {}, undefined);
    await expect(pending).rejects.toThrow('no storage');
  });
});
