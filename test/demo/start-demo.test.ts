/**
 * `npm start` (scripts/start-demo.mjs) as a user runs it: bad options and a taken port are refused
 * before anything is touched, with exit code 2.
 */
import { expect, test } from 'vitest';
import { localArgv, occupyPort, runCli } from '../../scripts/testing/run-cli.js';
import { sampledEach } from '../../scripts/testing/test-mode.js';

const npmStart = (...args: string[]) => runCli(localArgv(['npm start --', ...args].join(' ')));

const badInvocations: [string[], RegExp][] = [
  [['--port', '-1'], /--port <port>' argument '-1' is invalid\. a port is a whole number from 0 to 65535/],
  [['--port', 'http'], /--port <port>' argument 'http' is invalid/],
  [
    ['--order-every', '0'],
    /--order-every <seconds>' argument '0' is invalid\. expected a number of seconds greater than 0/,
  ],
  [['--order-every', 'often'], /--order-every <seconds>' argument 'often' is invalid/],
  [['--no-couriers'], /unknown option '--no-couriers'/],
];
sampledEach(
  badInvocations,
  2,
  'a process start each; npm test refuses a sample of the bad invocations',
)('npm start -- %j is refused with exit code 2 and says why', async (args, message) => {
  const result = await npmStart(...args);
  expect(result.stderr).toMatch(message);
  expect(result.stdout).not.toContain('listening');
  expect(result.status).toBe(2);
});

test('npm start on a port in use says which port and option, and never talks to whatever listens there', async () => {
  const taken = await occupyPort();
  try {
    const result = await npmStart('--port', String(taken.port));
    expect(result.stderr).toContain(
      `restoapi-mock: port ${taken.port} on 127.0.0.1 is already in use; choose another with --port <port>`,
    );
    expect(result.stderr).toContain(
      'npm start: the mock could not start; `npm start -- --port <port>` runs the demo on another port',
    );
    expect(result.status).toBe(2);
    // No clock moved, no carrier registered, no order placed on the server that holds the port.
    expect(taken.requests.map((req) => `${req.method} ${req.url}`)).toEqual([]);
  } finally {
    await taken.close();
  }
}, 30_000);
