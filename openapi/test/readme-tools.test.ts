import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from 'vitest';
import { listOperations, openapiDocument } from '@restoapi/openapi';
import { freePort } from '../../scripts/testing/start-prism.js';
import { fullRunOnly } from '../../scripts/testing/test-mode.js';

// Runs the commands of the README's "Loading the description into other tools" section as written,
// from the repository root (where node_modules/@restoapi/openapi is this package). Only what
// must differ on a shared machine is replaced: Prism's port 4010 by a free one, the proxied
// https://api.example.com by the README's own Prism mock, and output files go to a temporary folder.
const repo = fileURLToPath(new URL('../../', import.meta.url));
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const section = readme.split('## Loading the description into other tools')[1]!.split('\n## ')[0]!;
const commands = /```sh\n([\s\S]*?)```/
  .exec(section)![1]!
  .split('\n')
  .filter((line) => line.trim() !== '' && !line.startsWith('#'));
const out = mkdtempSync(path.join(tmpdir(), 'restoapi-readme-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

function command(prefix: string): string {
  const found = commands.find((line) => line.startsWith(prefix));
  if (!found) throw new Error(`the README has no command starting with ${prefix}`);
  return found;
}

function run(line: string): { status: number | null; output: string } {
  const result = spawnSync(line, { cwd: repo, shell: true, encoding: 'utf8', timeout: 120_000 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** Starts a long-running README command, waits until Prism listens, calls it once, stops it. */
async function withPrism(line: string, call: (url: string) => Promise<void>): Promise<void> {
  const port = await freePort();
  const child = spawn(line.replace('--port 4010', '').concat(` --port ${port}`), {
    cwd: repo,
    shell: true,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`Prism did not start:\n${output}`)), 90_000);
      const onData = (chunk: Buffer): void => {
        output += chunk.toString();
        if (output.includes('Prism is listening')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout!.on('data', onData);
      child.stderr!.on('data', onData);
      child.on('exit', (code) => reject(new Error(`Prism exited with ${code}:\n${output}`)));
    });
    child.removeAllListeners('exit');
    await call(`http://127.0.0.1:${port}`);
  } finally {
    process.kill(-child.pid!);
  }
}

const secureId = 'c9f3b2a4e1d84f0b9a7c6e5d4f3a2b1c';

test('the README names the published bundle, and the package exports it', () => {
  expect(commands.length).toBeGreaterThanOrEqual(5);
  for (const line of commands) expect(line).toContain('node_modules/@restoapi/openapi/generated/openapi.yaml');
  const manifest = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  expect(manifest.exports['./openapi.yaml']).toBe('./generated/openapi.yaml');
  expect(manifest.exports['./control.json']).toBe('./generated/control.json');
});

fullRunOnly(
  'Prism mocks both APIs from the published bundle at their real paths, and proxies a service',
  'two Prism starts through npx; npm test serves the same bundle with Prism in prism.test.ts',
)(async () => {
  await withPrism(command('npx @stoplight/prism-cli mock'), async (service) => {
    const carrier = await fetch(`${service}/api-delivery/orders/${secureId}`);
    expect(carrier.status).toBe(200);
    expect(((await carrier.json()) as { order: { secure_id: string } }).order.secure_id).toBe(secureId);
    // The proxy, in front of that mock as the service: the carrier route is found, the answer conforms.
    const proxy = command('npx @stoplight/prism-cli proxy').replace('https://api.example.com', service);
    await withPrism(proxy, async (url) => {
      const proxied = await fetch(`${url}/api-delivery/orders/${secureId}`);
      expect(proxied.status).toBe(200);
      expect(proxied.headers.get('sl-violations')).toBeNull();
    });
  });
}, 180_000);

fullRunOnly(
  'Redocly lints the published bundle as valid and builds the reference',
  'npm test lints the same bundle with Redocly in its API lint step',
)(() => {
  const lint = run(command('npx @redocly/cli lint'));
  expect(lint.status, lint.output).toBe(0);
  expect(lint.output).toContain('valid');
  const html = path.join(out, 'api.html');
  const build = run(command('npx @redocly/cli build-docs').replace('-o api.html', `-o ${html}`));
  expect(build.status, build.output).toBe(0);
  expect(readFileSync(html, 'utf8')).toContain('Online Restaurant Ordering Service API');
}, 120_000);

test("Postman's own converter imports the bundle: one request per operation, base_url a variable", () => {
  const file = path.join(out, 'restoapi.postman.json');
  const convert = run(command('npx openapi-to-postmanv2').replace('-o restoapi.postman.json', `-o ${file}`));
  expect(convert.status, convert.output).toBe(0);
  interface Item {
    item?: Item[];
    request?: { method: string; url: { host: string[]; path: string[] } };
  }
  const collection = JSON.parse(readFileSync(file, 'utf8')) as { item: Item[]; variable: { key: string }[] };
  const requests = (items: Item[]): NonNullable<Item['request']>[] =>
    items.flatMap((item) => (item.item ? requests(item.item) : item.request ? [item.request] : []));
  const all = requests(collection.item);
  const operations = listOperations(openapiDocument).filter((op) => op.kind === 'paths');
  expect(all).toHaveLength(operations.length);
  expect(all.filter((r) => r.url.path.join('/').startsWith('api-delivery/orders/'))).toHaveLength(2);
  for (const request of all) expect(request.url.host).toEqual(['{{baseUrl}}']);
  expect(collection.variable.map((v) => v.key)).toContain('base_url');
}, 120_000);
