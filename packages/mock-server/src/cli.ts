#!/usr/bin/env node
/**
 * restoapi-mock: serves the stateful mock over HTTP.
 */
import { readFile } from 'node:fs/promises';
import { Command, InvalidArgumentError } from 'commander';
import { DEMO_LOGINS, demoSeed, type MockStateJson, type MockEngine } from './index.js';
import { createMockServer } from './node.js';
import { consoleRoute } from './static/console-route.js';
import { loadDocsRoute, type DocsRouteResult } from './static/docs-route.js';
import { readJsonFile, writeFileAtomic } from './state/atomic-file.js';
import { assertFixture } from './state/fixture.js';

function port(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0 || n > 65535)
    throw new InvalidArgumentError('a port is a whole number from 0 to 65535');
  return n;
}

async function loadSeed(seed: string): Promise<MockStateJson> {
  if (seed === 'demo') return demoSeed();
  if (seed === 'empty') return { version: 1 };
  let json: unknown;
  try {
    json = JSON.parse(await readFile(seed, 'utf8'));
  } catch (error) {
    throw new Error(`--seed ${seed}: not "demo", "empty" or a readable state JSON file (${(error as Error).message})`);
  }
  return assertFixture(json, `--seed ${seed}`);
}

/** Saves the state at most once per `delayMs`, always ending with the latest state. */
function debouncedSaver(file: string, delayMs = 50): (mock: MockEngine) => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  let writing = Promise.resolve();
  return (mock) => {
    if (timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      const snapshot = JSON.stringify(mock.exportState());
      writing = writing
        .then(() => writeFileAtomic(file, snapshot))
        .catch((error: unknown) => {
          console.error(`[restoapi-mock] could not save ${file}: ${(error as Error).message}`);
        });
    }, delayMs);
  };
}

const program = new Command('restoapi-mock')
  .description('Stateful mock of the Online Restaurant Ordering Service API')
  .option('-p, --port <port>', 'port to listen on', port, 4010)
  .option('-H, --host <host>', 'interface to listen on', '127.0.0.1')
  .option('-s, --seed <seed>', 'initial data: demo, empty, or a state JSON file (GET /__mock/state)', 'demo')
  .option('--state <file>', 'persist the state to this file (atomically) and restore it on start')
  .option('--validate-responses', 'check every answer against the OpenAPI document and fail loudly on drift', false)
  .option('--import-duration <ms>', 'how long menu and client imports take, in milliseconds', (v) => Number(v))
  .option('--no-docs', 'do not build and serve the documentation site at /docs')
  .showHelpAfterError();

program.action(
  async (options: {
    port: number;
    host: string;
    seed: string;
    state?: string;
    validateResponses: boolean;
    importDuration?: number;
    docs: boolean;
  }) => {
    const saved = options.state ? await readJsonFile(options.state) : undefined;
    const restored = saved === undefined ? undefined : assertFixture(saved, `--state ${options.state}`);
    const state = restored ?? (await loadSeed(options.seed));
    // The console ships with the package; the docs site is built in memory when @restoapi/docs is there.
    const docs: DocsRouteResult = options.docs ? await loadDocsRoute() : { files: 0, note: 'not served (--no-docs)' };
    const server = await createMockServer({
      routes: [consoleRoute(), ...(docs.route ? [docs.route] : [])],
      port: options.port,
      host: options.host,
      state,
      validateResponses: options.validateResponses,
      ...(options.importDuration !== undefined ? { config: { importDurationMs: options.importDuration } } : {}),
      ...(options.state ? { onChange: debouncedSaver(options.state) } : {}),
    });
    const lines = [
      `RestoAPI mock listening on ${server.url}`,
      `  main API      ${server.url}/api`,
      `  carrier API   ${server.url}/api-delivery`,
      `  control API   ${server.url}/__mock`,
      `  console       ${server.url}/console/`,
      docs.route ? `  docs          ${server.url}/docs/` : `  docs          ${docs.note}`,
      restored
        ? `  state         restored from ${options.state}`
        : `  state         ${options.seed} seed${options.state ? `, saved to ${options.state}` : ' (in memory)'}`,
      '',
      'Demo logins (password "demo"):',
      ...DEMO_LOGINS.map((l) => `  ${l.login.padEnd(22)} ${l.role}`),
    ];
    console.log(lines.join('\n'));
    const stop = (): void => {
      void server.close().then(() => process.exit(0));
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  },
);

program.parseAsync().catch((error: unknown) => {
  console.error(`restoapi-mock: ${(error as Error).message}`);
  process.exit(1);
});
