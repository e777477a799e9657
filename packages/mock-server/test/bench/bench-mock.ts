import { createMockServer, type MockServer } from '../../src/node.js';

/** A demo mock over HTTP with the tokens of the dispatcher and of Pizza Piccolo's administrator, as the bench signs in. */
export async function benchMock(): Promise<{ mock: MockServer; dispatcher: string; staff: string }> {
  const mock = await createMockServer();
  const token = async (login: string): Promise<string> => {
    const res = await fetch(`${mock.url}/api/session?login=${login}&password=demo`, { method: 'POST' });
    return ((await res.json()) as { meta: { token: string } }).meta.token;
  };
  return { mock, dispatcher: await token('dispatcher@demo'), staff: await token('admin@pizza.demo') };
}
