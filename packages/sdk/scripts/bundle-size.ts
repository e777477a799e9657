/**
 * Measures what `createRestoClient` with one resource costs a browser bundle: bundles a tiny entry
 * with esbuild (minified, tree-shaken, platform `browser`, so any Node built-in would fail the build),
 * gzips it and fails above the budget. Run: `npm run size -w @restoapi/sdk`.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { measureBundle as measure, reportBundleSize, type BundleSize } from '../../../scripts/bundling.js';

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

export type { BundleSize };

/** Bundles the entry and measures it. */
export function measureBundle(): Promise<BundleSize> {
  return measure(ENTRY, sdkRoot, LIMIT_BYTES);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  reportBundleSize('createRestoClient + session + orders', await measureBundle());
}
