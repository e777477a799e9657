import { expect, test } from 'vitest';
import { curlOf, reproducers } from './curl.js';
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
