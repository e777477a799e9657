import { expect, test } from 'vitest';
import { createControlClient } from './index.js';

test('the control client sends typed calls below the base URL and reads the answer', async () => {
  const seen: Request[] = [];
  const control = createControlClient({
    baseUrl: 'http://127.0.0.1:4010/',
    fetch: async (request) => {
      seen.push(request);
      return Response.json({ now: '2026-01-01T12:01:00.000Z', frozen: true });
    },
  });
  const { data, response } = await control.POST('/__mock/clock/advance', { body: { ms: 60_000 } });
  expect(response.status).toBe(200);
  expect(data).toEqual({ now: '2026-01-01T12:01:00.000Z', frozen: true });
  expect(seen[0]!.url).toBe('http://127.0.0.1:4010/__mock/clock/advance');
  expect(await seen[0]!.json()).toEqual({ ms: 60_000 });
});
