/**
 * Builds the documentation site to docs/dist/: `npm run build -w @restoapi/docs` (or `npm run docs:build`).
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildDocsSite } from '../src/site.js';

const out = fileURLToPath(new URL('../dist/', import.meta.url));
const started = Date.now();
const site = await buildDocsSite();
await rm(out, { recursive: true, force: true });
let bytes = 0;
for (const [file, asset] of site) {
  const target = path.join(out, file);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, asset.body);
  bytes += typeof asset.body === 'string' ? Buffer.byteLength(asset.body) : asset.body.byteLength;
}
const relative = path.relative(process.cwd(), out) || '.';
console.log(
  `docs: ${site.size} files, ${(bytes / 1024 / 1024).toFixed(1)} MiB in ${relative}/ (${Date.now() - started} ms)`,
);
console.log(`open ${path.join(relative, 'index.html')}, or run npm start and visit http://localhost:4010/docs/`);
