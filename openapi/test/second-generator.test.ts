import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect } from 'vitest';
import { fullRunOnly } from '../../scripts/testing/test-mode.js';

// A second, independent TypeScript client generator (swagger-typescript-api, not the
// openapi-typescript the SDK uses) builds a client from the published bundle, and the client
// type-checks with `strict`. A third-party tool on the whole bundle, two programs of about 20 s of CPU together:
// in the full run only, like the other third-party tools; npm test builds the SDK's types from the same bundle.
const require = createRequire(import.meta.url);
const bundle = fileURLToPath(new URL('../generated/openapi.json', import.meta.url));
const out = mkdtempSync(path.join(tmpdir(), 'restoapi-sta-'));
afterAll(() => rmSync(out, { recursive: true, force: true }));

fullRunOnly(
  'swagger-typescript-api generates a client from the bundle that type-checks with strict',
  'a second generator and a strict tsc over its client, about 20 s of CPU',
)(() => {
  const cli = path.join(path.dirname(require.resolve('swagger-typescript-api/package.json')), 'dist/cli.mjs');
  execFileSync(process.execPath, [cli, 'generate', '-p', bundle, '-o', out, '-n', 'api.ts'], { stdio: 'pipe' });
  const client = readFileSync(path.join(out, 'api.ts'), 'utf8');
  // Both APIs at their real paths, one method per operation.
  expect(client).toContain('/api-delivery/orders/${secureId}/delivery');
  expect(client).toContain('/api/orders/${id}');
  const tsc = require.resolve('typescript/bin/tsc');
  const args = ['--strict', '--noEmit', '--target', 'es2022', '--module', 'esnext', '--moduleResolution', 'bundler'];
  execFileSync(process.execPath, [tsc, ...args, '--lib', 'es2022,dom', path.join(out, 'api.ts')], { stdio: 'pipe' });
}, 120_000);
