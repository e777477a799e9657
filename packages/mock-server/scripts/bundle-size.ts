/**
 * Measures the mock's engine as a browser bundle (what a page running it under MSW's `setupWorker`
 * loads): `createMock`, the MSW handlers and the control client, bundled with esbuild for the browser
 * platform (a Node built-in would fail the build), minified, code split, gzipped; fails above the
 * budget. The PDF receipts (pdfkit) load on demand and are reported apart. Run: `npm run size -w @restoapi/mock-server`.
 */
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { measureBundle as measure, reportBundleSize, type BundleSize } from '../../../scripts/bundling.js';

/**
 * The budget: 310 kB min+gzip. Most of it is data the engine is made of: the whole OpenAPI document
 * (every request and answer is checked against it), the control API's document, ajv, luxon and the
 * demo seed. Raised from 300 kB when the document's decision markers took the bundle to 300,071 bytes;
 * the documents' prose (about 21 kB gzipped in the main document alone) is what a page could shed next.
 */
export const LIMIT_BYTES = 310_000;

const mockRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** The entry a page would write: a mock instance behind MSW handlers, and its control client. */
const ENTRY = `
import { createControlClient, createMock } from './src/index.ts';
import { createMswHandlers } from './src/msw.ts';
const mock = createMock();
console.log(createMswHandlers(mock, { baseUrl: 'https://api.example.test' }), createControlClient({ baseUrl: 'https://api.example.test' }));
`;

/** Bundles the entry and measures it. */
export function measureBundle(): Promise<BundleSize> {
  return measure(ENTRY, mockRoot, LIMIT_BYTES);
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  reportBundleSize('createMock + createMswHandlers + createControlClient (browser)', await measureBundle());
}
