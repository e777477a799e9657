import { expect, test } from 'vitest';
import { useCarrierWorld } from '../support/carrier-world.js';

const startCarrierWorld = useCarrierWorld();

test('invalid callbacks are refused with 400 and the reason, over real HTTP, and nothing is loaded', async () => {
  let gets = 0;
  const { agent, served } = await startCarrierWorld({
    agent: {
      fetch: (input, init) => {
        gets++;
        return fetch(input, init);
      },
    },
  });
  const secure = 'c9f3b2a4e1d84f0b9a7c6e5d4f3a2b1c';
  const cases: [string, string][] = [
    ['', 'type is required'],
    [`type=order_created&order_secure_id=${secure}`, 'order_id is required'],
    [`type=order_created&order_id=PP-5001&order_secure_id=${secure}`, 'order_id must be a decimal integer'],
    [`type=order_created&order_id=-3&order_secure_id=${secure}`, 'order_id must be >= 1'],
    ['type=order_created&order_id=5001&order_secure_id=', 'order_secure_id must NOT have fewer than 1 characters'],
    [`type=order_status_changed&order_id=5001&order_secure_id=${secure}`, 'status is required'],
    [
      `type=order_status_changed&order_id=5001&order_secure_id=${secure}&status=delivering`,
      'status must be one of "pending", "accepted"',
    ],
  ];
  const answers: string[] = [];
  for (const [query, reason] of cases) {
    const response = await fetch(`${served.url}?${query}`, { method: 'POST' });
    const body = (await response.json()) as {
      errors: { status: string; code: string; detail: string; source?: { parameter?: string } }[];
    };
    expect(response.status, query).toBe(400);
    expect(body.errors[0]).toMatchObject({ status: '400', code: 'invalid_parameter' });
    expect(body.errors.map((e) => e.detail).join('; '), query).toContain(reason);
    answers.push(`${query || '(empty)'} → ${response.status} ${body.errors.map((e) => e.detail).join('; ')}`);
  }
  console.log(answers.join('\n'));
  const wrongMethod = await fetch(`${served.url}?type=order_created&order_id=5001&order_secure_id=${secure}`);
  expect(wrongMethod.status).toBe(405);
  const elsewhere = await fetch(`${served.url.replace('/callbacks', '/other')}?type=order_created`, { method: 'POST' });
  expect(elsewhere.status).toBe(404);
  // An event kind added later is acknowledged without acting, so the service does not retry it forever.
  const future = await fetch(`${served.url}?type=order_rated&order_id=5001&order_secure_id=${secure}`, {
    method: 'POST',
  });
  expect(future.status).toBe(202);
  await agent.idle();
  expect(gets).toBe(0);
  expect(agent.receiver.stats).toMatchObject({ invalid: cases.length, ignored: 1, accepted: 0 });
});
