/**
 * Measures what `createRestoClient` with one resource costs a browser bundle: bundles a tiny entry
 * with esbuild (minified, tree-shaken, platform `browser`, so any Node built-in would fail the build),
 * gzips it and fails above the budget. Run: `npm run size -w @restoapi/sdk`.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';

/** The budget: 15 kB min+gzip. */
export const LIMIT_BYTES = 15_000;

const sdkRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The entry an app would write: a client, a login and one resource call. */
const ENTRY = `
import { createRestoClient } from './src/index.ts';
const api = createRestoClient({ baseUrl: 'https://api.example.com' });
await api.session.login('admin@pizza.demo', 'demo');
const { order } = await api.orders.get(5001);
console.log(order.number);
`;

/** Sizes of the bundle in bytes. */
export interface BundleSize {
  minified: number;
  gzipped: number;
  limit: number;
}

/** Bundles the entry and measures it. */
export async function measureBundle(): Promise<BundleSize> {
  const result = await build({
    stdin: { contents: ENTRY, resolveDir: sdkRoot, sourcefile: 'entry.ts', loader: 'ts' },
    bundle: true,
    minify: true,
    treeShaking: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'silent',
  });
  const code = result.outputFiles[0]!.contents;
  return { minified: code.byteLength, gzipped: gzipSync(code, { level: 9 }).byteLength, limit: LIMIT_BYTES };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const size = await measureBundle();
  const kb = (bytes: number): string => `${(bytes / 1000).toFixed(2)} kB`;
  console.log(
    `createRestoClient + session + orders: ${size.minified} bytes minified (${kb(size.minified)}), ${size.gzipped} bytes min+gzip (${kb(size.gzipped)}); budget ${kb(size.limit)} min+gzip`,
  );
  if (size.gzipped > size.limit) {
    console.error(`Bundle size budget exceeded by ${size.gzipped - size.limit} bytes.`);
    process.exit(1);
  }
}
