import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from 'vitest';
import { freePort, runCli } from '../../../scripts/testing/run-cli.js';
import { startTestCarrier } from './test-carrier.js';

const cli = fileURLToPath(new URL('../../src/cli.ts', import.meta.url));
const run = (args: string[]) => runCli([cli, 'carrier', ...args]);

test.concurrent(
  'restoapi-contract carrier refuses a bad secret with exit code 2 and says why',
  async () => {
    const result = await run(['--callback-url', 'http://127.0.0.1:4020/callbacks', '--secret', 'hunter2']);
    expect(result.stderr).toContain('expected a Standard Webhooks secret');
    expect(result.status).toBe(2);
  },
  60_000,
);

test.concurrent(
  'restoapi-contract carrier names the callback URL where nothing listens, with exit code 2',
  async () => {
    const callbackUrl = `http://127.0.0.1:${await freePort()}/callbacks`;
    const result = await run([
      '--callback-url',
      callbackUrl,
      '--service-url',
      'http://127.0.0.1:0',
      '--wait-for-carrier',
      '300',
    ]);
    expect(result.stdout).toMatch(/the service side listens at http:\/\/127\.0\.0\.1:\d+/);
    expect(result.stderr).toContain(`nothing listens at the callback URL ${callbackUrl} (waited 300 ms)`);
    expect(result.status).toBe(2);
  },
  60_000,
);

test.concurrent(
  'restoapi-contract carrier prints where the carrier must call, checks it and writes the reports',
  async () => {
    const port = await freePort();
    const reports = mkdtempSync(path.join(tmpdir(), 'restoapi-carrier-'));
    const carrier = await startTestCarrier({ carrierApi: () => `http://127.0.0.1:${port}/api-delivery` });
    try {
      const result = await run([
        '--callback-url',
        carrier.callbackUrl,
        '--service-url',
        `http://127.0.0.1:${port}`,
        '--quiet',
        '200',
        '--report',
        reports,
      ]);
      expect(result.stdout).toContain(`the service side listens at http://127.0.0.1:${port} (profile spec)`);
      expect(result.stdout).toMatch(/\[1\/6\] flow: a plain delivery \(order \d+\)/);
      expect(result.stdout).toMatch(
        /\[6\/6\] refused: every delivery update refused with 422, then a plain delivery \(order \d+\)/,
      );
      expect(result.stdout).toContain('RestoAPI carrier conformance: profile spec');
      expect(result.stdout).toContain('tests       11 passed, 0 failed, 1 skipped of 12');
      expect(result.stdout).toContain('RESULT: PASS');
      expect(result.status).toBe(0);
      expect(readFileSync(path.join(reports, 'junit.xml'), 'utf8')).toContain('name="carrier.duplicates: ');
      expect(JSON.parse(readFileSync(path.join(reports, 'result.json'), 'utf8')).summary.passed).toBe(11);
    } finally {
      await carrier.close();
    }
  },
  60_000,
);
