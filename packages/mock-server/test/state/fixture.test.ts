import { spawn } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  FixtureError,
  assertFixture,
  createControlClient,
  createMock,
  demoSeed,
  validateFixture,
  type MockStateJson,
} from '@restoapi/mock-server';
import { expect, test } from 'vitest';
import { FIXTURE_SCHEMA_COMMENT, buildFixtureSchema } from '../../scripts/fixture-schema.js';
import { controlDocument } from '../../src/generated/control-document.js';
import { fixtureSchema } from '../../src/generated/fixture-schema.js';
import { ANNA, as } from '../support/catalog-client.js';
import { base, call, margheritaOrder } from '../support/storefront.js';

const packageDir = fileURLToPath(new URL('../..', import.meta.url));
const SEED_DATE = new Date('2026-11-20T18:00:00Z');

/** The demo seed with one order's status changed, and how the result is invalid. */
function eatenOrder(): MockStateJson {
  const seed = demoSeed(SEED_DATE);
  const order = seed.orders!.rows[0]!;
  return { ...seed, orders: { rows: [{ ...order, status: 'eaten' as never }, ...seed.orders!.rows.slice(1)] } };
}

test('the demo seed is a valid fixture', () => {
  const seed = demoSeed(SEED_DATE);
  expect(validateFixture(seed)).toEqual({ valid: true, value: seed });
  // A fixture file may name its schema for editors.
  const withSchema = { $schema: './node_modules/@restoapi/mock-server/schemas/fixture.schema.json', ...seed };
  expect(validateFixture(withSchema).valid).toBe(true);
  expect(validateFixture({ version: 1 }).valid).toBe(true);
});

test('what a busy mock exports is a valid fixture: every table with rows the mock itself wrote', async () => {
  const mock = createMock({
    validateResponses: true,
    config: { importDurationMs: 60_000 },
    callbackFetch: async () => new Response('ok'),
  });
  const control = createControlClient({ baseUrl: base, fetch: mock.fetch });
  await control.PUT('/__mock/clock', { body: { now: '2026-11-20T18:30:00+01:00', frozen: true } });
  const anna = await as(mock, ANNA);
  // photos, a published menu, a finished client import (payload dropped) and a menu import still running (payload kept).
  const form = new FormData();
  form.append(
    'file',
    new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])], { type: 'image/png' }),
    'p',
  );
  expect((await anna('PUT', '/api/draft_dishes/10003/photo', { form })).status).toBe(200);
  expect((await anna('POST', '/api/organizations/1/publish')).status).toBe(200);
  const clients = { clients: [{ external_id: 'crm-1', name: 'Eva Klein', gender: 'female', birthdate: '14/03/1991' }] };
  expect((await anna('POST', '/api/organizations/1/import/clients', { json: clients })).status).toBe(202);
  await control.POST('/__mock/clock/advance', { body: { ms: 60_000 } });
  const menu = { dishes: [{ name: 'Tiramisu', price: 5, category_name: 'Desserts' }] };
  expect((await anna('POST', '/api/organizations/1/import/menu', { json: menu })).status).toBe(202);
  // a signed carrier with chaos, a storefront order (client, notification, callback), a status change.
  await control.POST('/__mock/carriers', {
    body: {
      callback_url: 'http://carrier.test/cb',
      secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      chaos: { duplicate: 1, seed: 3 },
    },
  });
  const placed = await control.POST('/__mock/orders', {
    body: { ...margheritaOrder(), contact_phone: '+49 170 9998877' },
  });
  expect(placed.response.status).toBe(201);
  expect((await anna('PUT', `/api/orders/${placed.data!.order.id}/status?status=accepted`)).status).toBe(200);
  await control.POST('/__mock/clock/advance', { body: { ms: 1_000 } });
  expect((await anna('DELETE', '/api/session')).status).toBe(204);

  const exported = mock.exportState();
  for (const table of [
    'sessions',
    'photos',
    'publishedMenus',
    'clients',
    'carriers',
    'callbacks',
    'notifications',
  ] as const) {
    expect(exported[table]!.rows.length, table).toBeGreaterThan(0);
  }
  expect(exported.importJobs!.rows.map((job) => [job.kind, job.job_status, job.payload === null])).toEqual([
    ['clients', 'done', true],
    ['menu', 'queued', false],
  ]);
  expect(exported.callbacks!.rows.some((callback) => callback.duplicate_of !== null)).toBe(true);
  const check = validateFixture(JSON.parse(JSON.stringify(exported)));
  expect(check.valid ? [] : check.issues).toEqual([]);
});

test('validateFixture names the JSON pointer of every problem', () => {
  const eaten = validateFixture(eatenOrder());
  expect(eaten.valid).toBe(false);
  expect(!eaten.valid && eaten.issues).toEqual([
    {
      pointer: '/orders/rows/0/status',
      keyword: 'enum',
      message: expect.stringMatching(/^\/orders\/rows\/0\/status must be one of "pending", .*"cancelled"$/),
    },
  ]);

  const noRows = validateFixture({ version: 1, orders: { nextId: 3 } });
  expect(!noRows.valid && noRows.issues).toEqual([
    { pointer: '/orders/rows', keyword: 'required', message: '/orders/rows is required' },
  ]);

  const several = validateFixture({
    version: 2,
    ordres: { rows: [] },
    dispatchers: { rows: [{ id: 1, name: 'Dora', shift: 'night' }] },
    draftCategories: { rows: [{ ...demoSeed(SEED_DATE).draftCategories!.rows[0]!, photo: 5 }] },
  });
  expect(!several.valid && several.issues.map((issue) => issue.message)).toEqual([
    '/ordres is not an allowed field',
    '/version must be 1',
    '/dispatchers/rows/0/shift is not an allowed field',
    '/draftCategories/rows/0/photo must be object or null',
  ]);
  expect(validateFixture([]).valid).toBe(false);
});

test('assertFixture throws a FixtureError listing the pointers', () => {
  expect(assertFixture({ version: 1 })).toEqual({ version: 1 });
  let error: unknown;
  try {
    assertFixture(eatenOrder(), '--seed world.json');
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(FixtureError);
  expect((error as FixtureError).message).toMatch(
    /^--seed world\.json is not a valid mock fixture .*\n {2}\/orders\/rows\/0\/status must be one of/,
  );
  expect((error as FixtureError).issues[0]!.pointer).toBe('/orders/rows/0/status');
});

test('PUT /__mock/state and POST /__mock/reset refuse a broken state with 422 naming the pointer, and change nothing', async () => {
  const mock = createMock({ validateResponses: true });
  const before = JSON.stringify(mock.exportState());

  const eaten = await call(mock, 'PUT', '/__mock/state', { json: eatenOrder() });
  expect(eaten.status).toBe(422);
  expect(eaten.body.errors).toHaveLength(1);
  expect(eaten.body.errors[0]).toMatchObject({ status: '422', source: { pointer: '/orders/rows/0/status' } });

  const noRows = await call(mock, 'PUT', '/__mock/state', { json: { version: 1, orders: { nextId: 3 } } });
  expect(noRows.status).toBe(422);
  expect(noRows.body.errors[0]).toMatchObject({ code: 'required', source: { pointer: '/orders/rows' } });

  const reset = await call(mock, 'POST', '/__mock/reset', {
    json: { state: { version: 1, orders: { rows: [{ id: 1 }] } } },
  });
  expect(reset.status).toBe(422);
  expect(reset.body.errors.map((e: { source: { pointer: string } }) => e.source.pointer)).toContain(
    '/state/orders/rows/0/number',
  );

  expect(JSON.stringify(mock.exportState())).toBe(before);
  // A valid fixture naming its schema is taken; the export leaves `$schema` out.
  const fixture = { $schema: './fixture.schema.json', ...demoSeed(SEED_DATE) };
  expect((await call(mock, 'PUT', '/__mock/state', { json: fixture })).status).toBe(204);
  expect(mock.exportState().$schema).toBeUndefined();
  expect(mock.runtime.state.orders.size).toBe(6);
});

test('the published schema is what generate writes from the control document', async () => {
  const published = JSON.parse(await readFile(path.join(packageDir, 'schemas/fixture.schema.json'), 'utf8')) as Record<
    string,
    unknown
  >;
  expect(published).toEqual(buildFixtureSchema(controlDocument));
  expect(published).toEqual(fixtureSchema);
  expect(published).toMatchObject({
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $comment: FIXTURE_SCHEMA_COMMENT,
    title: 'MockFixture',
    required: ['version'],
  });
  // Self-contained: every $ref points into its own $defs, and every $def is used.
  const text = JSON.stringify(published);
  const refs = new Set([...text.matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]!));
  const defs = Object.keys(published.$defs as object);
  expect([...refs].filter((ref) => !ref.startsWith('#/$defs/') || !defs.includes(ref.slice(8)))).toEqual([]);
  expect(defs.filter((name) => !refs.has(`#/$defs/${name}`))).toEqual([]);
  // Every table of the state, typed by its own record.
  const tables = published.properties as Record<string, { properties?: { rows?: { items?: { $ref?: string } } } }>;
  expect(tables.orders!.properties!.rows!.items!.$ref).toBe('#/$defs/OrderRecord');
  expect(tables.apiUsers!.properties!.rows!.items!.$ref).toBe('#/$defs/ApiUserRecord');
  expect(tables.restaurants!.properties!.rows!.items!.$ref).toBe('#/$defs/Restaurant');

  const manifest = JSON.parse(await readFile(path.join(packageDir, 'package.json'), 'utf8')) as {
    files: string[];
    exports: Record<string, unknown>;
  };
  expect(manifest.files).toContain('schemas');
  expect(manifest.exports['./schemas/*']).toBe('./schemas/*');
});

test('the record schemas keep up with the resources they extend', () => {
  const main = (name: string): Record<string, unknown> =>
    (
      ((controlDocument.components as Record<string, unknown>).schemas as Record<string, unknown>)[name] as {
        properties: Record<string, unknown>;
      }
    ).properties;
  // DraftCategoryRecord is DraftCategory without the derived draft_dish_ids, plus the menu import's fields.
  expect(Object.keys(main('DraftCategoryRecord')).sort()).toEqual(
    [
      ...Object.keys(main('DraftCategory')).filter((key) => key !== 'draft_dish_ids'),
      'external_id',
      'remote_photo_url',
    ].sort(),
  );
});

function runCli(args: string[]): Promise<{ code: number | null; output: string }> {
  const cli = path.join(packageDir, 'src/cli.ts');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', cli, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      reject(new Error(`CLI did not exit:\n${output}`));
    }, 20_000);
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

test('the CLI refuses an invalid --seed or --state file, naming the pointer, with exit code 2', async () => {
  const dir = await mkdtemp(path.join(tmpdir(), 'restoapi-fixture-'));
  const seedFile = path.join(dir, 'world.json');
  await writeFile(seedFile, JSON.stringify(eatenOrder()));
  const seeded = await runCli(['--port', '0', '--seed', seedFile]);
  expect(seeded.code).toBe(2);
  expect(seeded.output).toContain(`--seed ${seedFile} is not a valid mock fixture`);
  expect(seeded.output).toMatch(/\/orders\/rows\/0\/status must be one of/);

  const stateFile = path.join(dir, 'state.json');
  await writeFile(stateFile, JSON.stringify({ version: 1, orders: {} }));
  const restored = await runCli(['--port', '0', '--state', stateFile]);
  expect(restored.code).toBe(2);
  expect(restored.output).toContain('/orders/rows is required');
});
