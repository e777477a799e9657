import { describe, expect, test } from 'vitest';
import { ConnectionError, NotFoundError, TimeoutError } from '../errors/api-error.js';
import { createRestoClient } from '../client/resto-client.js';

/** A JSON answer whose body never finishes unless the request is aborted. */
function stallingBody(init?: RequestInit): Response {
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode('{"organizations":'));
      init?.signal?.addEventListener('abort', () => controller.error(init.signal!.reason));
    },
  });
  return new Response(body, { status: 200, headers: { 'Content-Type': 'application/json' } });
}

describe('calls through the core', () => {
  test('the timeout also covers reading the body; a body that stalls after the answer is not retried', async () => {
    let attempts = 0;
    const api = createRestoClient({
      baseUrl: 'http://x',
      timeoutMs: 50,
      maxRetries: 1,
      sleep: async () => undefined,
      fetch: async (_request, init) => {
        attempts += 1;
        return stallingBody(init);
      },
    });
    const error = await api.organizations.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TimeoutError);
    expect((error as TimeoutError).operation).toBe('GET /api/organizations');
    // The body stalled after the answer's headers: the pipeline had already answered, so no retry.
    expect(attempts).toBe(1);
  });

  test('an error before any answer is not disguised as a connection error', async () => {
    const api = createRestoClient({ baseUrl: 'http://x', fetch: async () => new Response(null, { status: 404 }) });
    await expect(api.draftDishes.uploadPhoto(1, 42 as never)).rejects.toThrow(TypeError);
    await expect(api.draftDishes.uploadPhoto(1, 42 as never)).rejects.not.toBeInstanceOf(ConnectionError);
    await expect(api.draftDishes.get(1)).rejects.toBeInstanceOf(NotFoundError);
  });

  test('a malformed JSON body stays a SyntaxError; a body that breaks off is a ConnectionError', async () => {
    const malformed = createRestoClient({
      baseUrl: 'http://x',
      fetch: async () => new Response('{"organizations":', { headers: { 'Content-Type': 'application/json' } }),
    });
    await expect(malformed.organizations.list()).rejects.toBeInstanceOf(SyntaxError);
    const broken = createRestoClient({
      baseUrl: 'http://x',
      maxRetries: 0,
      fetch: async () =>
        new Response(
          new ReadableStream({
            start(controller) {
              controller.enqueue(new TextEncoder().encode('{"organizations":'));
              controller.error(new Error('socket hang up'));
            },
          }),
        ),
    });
    const error = await broken.organizations.list().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConnectionError);
    expect(error).not.toBeInstanceOf(TimeoutError);
    expect((error as ConnectionError).message).toContain('socket hang up');
  });

  test('an empty success body is no data, and withResponse gives the answer with it', async () => {
    const api = createRestoClient({ baseUrl: 'http://x', fetch: async () => new Response(null, { status: 204 }) });
    const { data, error, response } = await api.session.logout().withResponse();
    expect(data).toBeUndefined();
    expect(error).toBeUndefined();
    expect(response.status).toBe(204);
  });

  test('the error hook runs before the typed error reaches withResponse', async () => {
    let token: string | null = 'old-token';
    const api = createRestoClient({
      baseUrl: 'http://x',
      token: { get: () => token, set: (value) => void (token = value) },
      fetch: async () => Response.json({ errors: [{ status: '401', title: 'Unauthorized' }] }, { status: 401 }),
    });
    const { error, response } = await api.session.logout().withResponse();
    expect(error?.status).toBe(401);
    expect(response.status).toBe(401);
    // logout forgets the token also when the service says the session had already ended.
    expect(token).toBeNull();
  });

  test('an error answer read as a typed error still gets its debug line', async () => {
    const lines: { message: string; details?: Record<string, unknown> }[] = [];
    const log = (message: string, details?: Record<string, unknown>): void => {
      lines.push({ message, details });
    };
    const api = createRestoClient({
      baseUrl: 'http://x',
      logger: { debug: log, info: log, warn: log, error: log },
      fetch: async () =>
        Response.json(
          { errors: [{ status: '404', title: 'Not found' }] },
          { status: 404, headers: { 'X-Request-Id': 'r-1' } },
        ),
    });
    await expect(api.draftDishes.get(1)).rejects.toBeInstanceOf(NotFoundError);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.message).toMatch(/^GET \/api\/draft_dishes\/\{id\} 404 in \d+ ms$/);
    expect(lines[0]!.details).toMatchObject({ attempt: 1, status: 404, requestId: 'r-1' });
  });

  test('the caller abort while the body is read rejects with its reason', async () => {
    const controller = new AbortController();
    const api = createRestoClient({ baseUrl: 'http://x', fetch: async (_request, init) => stallingBody(init) });
    const pending = api.organizations.list({ signal: controller.signal });
    setTimeout(() => controller.abort(new Error('left the page')), 20);
    await expect(pending).rejects.toThrow('left the page');
  });
});
