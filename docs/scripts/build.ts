/**
 * Builds the documentation site to docs/dist/: `npm run build -w @restoapi/docs` (or `npm run docs:build`).
 * `--json FILE` writes the site as one JSON file instead (path → `{ contentType, body }`): the mock
 * server's build ships it in its package, so a published `restoapi-mock` serves `/docs` without this package.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildDocsSite } from '../src/site.js';

const { values } = parseArgs({ options: { json: { type: 'string' } } });
const out = fileURLToPath(new URL('../dist/', import.meta.url));
const started = Date.now();
const site = await buildDocsSite();
if (values.json) {
  const files: Record<string, { contentType: string; body: string }> = {};
  for (const [file, asset] of site) {
    if (typeof asset.body !== 'string') throw new Error(`docs: ${file} is binary; --json holds text files only`);
    files[file] = { contentType: asset.contentType, body: asset.body };
  }
  const target = path.resolve(values.json);
  await mkdir(path.dirname(target), { recursive: true });
  await writeFile(target, JSON.stringify({ files }));
  console.log(`docs: ${site.size} files in ${path.relative(process.cwd(), target)} (${Date.now() - started} ms)`);
  process.exit(0);
}
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
