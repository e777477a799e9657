import createClient from 'openapi-fetch';
import { describe, expect, test } from 'vitest';
import { buildUrl } from './transport.js';

/** The URL openapi-fetch itself would request for the same path and parameters (its default serializers). */
async function openapiFetchUrl(path: string, params: { path?: object; query?: object }): Promise<string> {
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

describe('lean transport URLs', () => {
  test('match openapi-fetch: encoded path parameters, arrays as repeated keys, objects as deepObject, nulls left out', async () => {
    const cases: [string, { path?: Record<string, unknown>; query?: Record<string, unknown> }][] = [
      ['/api/orders/{id}', { path: { id: 5001 } }],
      ['/orders/{secure_id}', { path: { secure_id: 'a b/ü?' } }],
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
    for (const [path, params] of cases)
      expect(buildUrl('http://x', path, params.path, params.query)).toBe(await openapiFetchUrl(path, params));
  });

  test('the token goes last in the query when tokenIn is query', () => {
    expect(buildUrl('http://x', '/api/orders', undefined, { page: 2 }, 't k')).toBe(
      'http://x/api/orders?page=2&token=t%20k',
    );
    expect(buildUrl('http://x', '/api/session', undefined, undefined, 'tok')).toBe('http://x/api/session?token=tok');
  });
});
