import { expectTypeOf, test } from 'vitest';
import { createControlClient, createMock, type Mock, type MockEngine, type SessionInfo } from '@restoapi/mock-server';
import { createMswHandlers } from '@restoapi/mock-server/msw';
import { createMockServer } from '@restoapi/mock-server/node';

test('createMock gives a Mock whose sessions are plain MockEngines, usable wherever an instance is', () => {
  const mock = createMock({ sessions: { max: 8, ttlMs: 60_000 }, sessionSeed: { version: 1 } });
  expectTypeOf(mock).toEqualTypeOf<Mock>();
  expectTypeOf(mock).toMatchTypeOf<MockEngine>();
  expectTypeOf(mock.session).parameters.toEqualTypeOf<[name: string]>();
  expectTypeOf(mock.session('worker-1')).toEqualTypeOf<MockEngine>();
  expectTypeOf(mock.sessions.list()).toEqualTypeOf<SessionInfo[]>();
  expectTypeOf(createMswHandlers).parameter(0).toEqualTypeOf<MockEngine>();
  // @ts-expect-error: a limit is a number
  createMock({ sessions: { max: '8' } });
});

test('the server exposes the Mock, and the control client takes a session and types the session list', async () => {
  const server = await createMockServer();
  expectTypeOf(server.mock).toEqualTypeOf<Mock>();
  const control = createControlClient({ baseUrl: server.url, session: 'worker-1' });
  const { data } = await control.GET('/__mock/sessions');
  expectTypeOf(data!.sessions[0]!.name).toEqualTypeOf<string>();
  expectTypeOf(data!.sessions[0]!.expires_at).toEqualTypeOf<string | null>();
  expectTypeOf(data!.max_sessions).toEqualTypeOf<number>();
  // @ts-expect-error: a session is named by a string
  createControlClient({ baseUrl: server.url, session: 1 });
});
