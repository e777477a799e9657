import { describe, expect, test } from 'vitest';
import { ConnectionError, TimeoutError } from '../errors/api-error.js';
import { createPipeline } from './pipeline.js';

const json = (status: number, body: unknown, headers: Record<string, string> = {}) =>
  new Response(JSON.stringify(body), { status, headers: { 'Content-Type': 'application/json', ...headers } });

/** A fetch answering from a script, one answer per attempt, recording what it received. */
function scripted(...answers: (Response | Error | 'hang')[]) {
  const received: { method: string; body: string; signal: AbortSignal }[] = [];
  const fetch = async (input: string | Request, init?: RequestInit): Promise<Response> => {
    const request = typeof input === 'string' ? new Request(input, init) : input;
    received.push({ method: request.method, body: await request.text(), signal: init?.signal ?? request.signal });
    const next = answers.shift();
    if (next === undefined) throw new Error('no more answers');
    if (next === 'hang') return new Promise<Response>(() => undefined); // ignores its signal on purpose
    if (next instanceof Error) throw next;
    return next;
  };
  return { fetch, received };
}

const noWait = { sleep: async () => undefined };

describe('request pipeline', () => {
  test('a retried PUT sends its body again on every attempt', async () => {
    const { fetch, received } = scripted(json(503, {}), json(408, {}), json(200, { ok: true }));
    const send = createPipeline({ fetch, ...noWait });
    const response = await send(
      new Request('http://x/api/orders/1', {
        method: 'PUT',
        body: '{"order":{}}',
        headers: { 'Content-Type': 'application/json' },
      }),
    );
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ ok: true });
    expect(received.map((r) => r.body)).toEqual(['{"order":{}}', '{"order":{}}', '{"order":{}}']);
  });

  test('Retry-After as an HTTP date is honoured', async () => {
    const at = new Date(Date.now() + 4_000).toUTCString();
    const delays: number[] = [];
    const { fetch } = scripted(json(429, {}, { 'Retry-After': at }), json(200, {}));
    const send = createPipeline({ fetch, sleep: async (ms) => void delays.push(ms) });
    await send(new Request('http://x/a'));
    expect(delays).toHaveLength(1);
    expect(delays[0]).toBeGreaterThan(2_000);
    expect(delays[0]).toBeLessThanOrEqual(4_000);
  });

  test('a non-retryable error answer comes back at once', async () => {
    const { fetch, received } = scripted(json(404, { errors: [] }));
    const response = await createPipeline({ fetch, ...noWait })(new Request('http://x/a'));
    expect(response.status).toBe(404);
    expect(received).toHaveLength(1);
  });

  test('a fetch that ignores its signal still times out, each attempt on its own deadline', async () => {
    const { fetch, received } = scripted('hang', 'hang', json(200, {}));
    const send = createPipeline({ fetch, timeoutMs: 30, ...noWait });
    const response = await send(new Request('http://x/a'), { operation: 'GET /a' });
    expect(response.status).toBe(200);
    expect(received).toHaveLength(3);
    expect(received[0]!.signal.aborted).toBe(true);
    expect(received[1]!.signal.aborted).toBe(true);
    expect(received[2]!.signal).not.toBe(received[1]!.signal);
    expect(received[2]!.signal.aborted).toBe(false);

    const failing = scripted('hang');
    const error = await createPipeline({ fetch: failing.fetch, timeoutMs: 20, maxRetries: 0 })(
      new Request('http://x/a'),
      { operation: 'GET /a' },
    ).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).message).toBe('GET /a timed out after 20 ms (attempt 1)');
  });

  test('a network failure is a ConnectionError carrying the cause; the caller abort is not wrapped', async () => {
    const cause = new TypeError('fetch failed');
    const { fetch } = scripted(cause);
    const error = await createPipeline({ fetch, maxRetries: 0 })(new Request('http://x/a')).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect((error as ConnectionError).cause).toBe(cause);
    expect((error as ConnectionError).operation).toBe('GET /a');

    const controller = new AbortController();
    controller.abort(new Error('caller gave up'));
    const hanging = scripted('hang');
    await expect(
      createPipeline({ fetch: hanging.fetch })(new Request('http://x/a'), { signal: controller.signal }),
    ).rejects.toThrow('caller gave up');
    expect(hanging.received).toHaveLength(0);
  });

  test('the logger gets a debug line per attempt and a warn line per retry', async () => {
    const lines: string[] = [];
    const logger = {
      debug: (m: string) => lines.push(`debug ${m}`),
      info: () => undefined,
      warn: (m: string) => lines.push(`warn ${m}`),
      error: () => undefined,
    };
    const { fetch } = scripted(json(500, {}), json(200, {}));
    await createPipeline({ fetch, logger, random: () => 0, ...noWait })(new Request('http://x/a'), {
      operation: 'GET /a',
    });
    expect(lines.map((l) => l.replace(/in \d+ ms$/, 'in N ms'))).toEqual([
      'debug GET /a 500 in N ms',
      'warn Retrying GET /a in 0 ms after status 500 (retry 1 of 2)',
      'debug GET /a 200 in N ms',
    ]);
  });

  test('null-body answers stay body-less', async () => {
    const { fetch } = scripted(new Response(null, { status: 204, headers: { 'X-Request-Id': 'req_1' } }));
    const response = await createPipeline({ fetch })(new Request('http://x/a', { method: 'DELETE' }));
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
    expect(response.headers.get('x-request-id')).toBe('req_1');
  });
});
