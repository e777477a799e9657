import { expect, test } from 'vitest';
import { curlOf, maskAnswer, reproducers, shownExchanges } from './curl.js';
import type { Exchange } from './http.js';

const exchange = (overrides: Partial<Exchange> = {}): Exchange => ({
  method: 'PUT',
  url: 'http://127.0.0.1:4010/api/orders/5/status?status=accepted',
  headers: { authorization: 'Token token="secret-abc"', 'content-type': 'application/json' },
  body: '{"order":{"contact_name":"O\'Hara"}}',
  status: 409,
  answer: '{}',
  faulty: false,
  ...overrides,
});

test('a reproducer sends the same request with the token as a placeholder the shell fills in', () => {
  const curl = curlOf(exchange());
  expect(curl).toBe(
    `curl -sS -i -X PUT 'http://127.0.0.1:4010/api/orders/5/status?status=accepted' -H "authorization: Token token=\\"$RESTOAPI_TOKEN\\"" -H 'content-type: application/json' --data-binary '{"order":{"contact_name":"O'\\''Hara"}}'`,
  );
  expect(curl).not.toContain('secret-abc');
});

test('--show-secrets keeps the token; a token in the query and passwords in a form are hidden otherwise', () => {
  expect(curlOf(exchange(), true)).toContain(`-H 'authorization: Token token="secret-abc"'`);
  const query = curlOf(exchange({ url: 'http://h/api/orders?token=secret-abc&page=2', headers: {} }));
  expect(query).toBe(
    `curl -sS -i -X PUT "http://h/api/orders?token=$RESTOAPI_TOKEN&page=2" --data-binary '{"order":{"contact_name":"O'\\''Hara"}}'`,
  );
  const login = curlOf(
    exchange({
      method: 'POST',
      url: 'http://h/api/session',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'login=admin%40pizza.demo&password=demo',
    }),
  );
  expect(login).toContain(`--data-binary "login=admin@pizza.demo&password=$RESTOAPI_SECRET"`);
  expect(login).not.toContain('password=demo');
  const upload = curlOf(
    exchange({
      body: undefined,
      form: [
        ['file', '@dish.png'],
        ['password', 'demo'],
      ],
    }),
  );
  expect(upload).toContain(`-F 'file=@dish.png' -F "password=$RESTOAPI_SECRET"`);
});

test('the reproducers of a failed test are its faulty answers and its last request', () => {
  const first = exchange({ url: 'http://h/a', faulty: true });
  const middle = exchange({ url: 'http://h/b' });
  const last = exchange({ url: 'http://h/c' });
  expect(reproducers([first, middle, last]).map((c) => /'http:\/\/h\/(\w)'/.exec(c)![1])).toEqual(['a', 'c']);
  expect(reproducers([])).toEqual([]);
});

test('the answers a report shows hide a login token and an api_key, and a form password, unless secrets are shown', () => {
  const login = exchange({
    method: 'POST',
    url: 'http://h/api/session',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'login=a%40b&password=hunter2',
    status: 200,
    answer: '{"api_user":{"api_key":"k-123"},"meta":{"token":"tok-456","expires_at":"2026-12-01"}}',
  });
  const [shown] = shownExchanges([login]);
  expect(shown).toEqual({
    request: 'POST http://h/api/session',
    body: 'login=a@b&password=$RESTOAPI_SECRET',
    status: 200,
    answer: '{"api_user":{"api_key":"$RESTOAPI_SECRET"},"meta":{"token":"$RESTOAPI_TOKEN","expires_at":"2026-12-01"}}',
    faulty: false,
  });
  expect(maskAnswer('{"token": "cut-off-at-600')).toBe('{"token": "$RESTOAPI_TOKEN"');
  expect(shownExchanges([login], true)[0]!.answer).toContain('tok-456');
});
