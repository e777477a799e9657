import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { expect, test } from 'vitest';

const src = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../src');

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const files = await Promise.all(
    entries.map((e) => (e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : [path.join(dir, e.name)])),
  );
  return files.flat().filter((f) => f.endsWith('.ts') && !f.endsWith('.test.ts'));
}

test('no Node built-in is imported anywhere in src/ (browsers and edge runtimes)', async () => {
  const offenders: string[] = [];
  for (const file of await sourceFiles(src)) {
    const text = await readFile(file, 'utf8');
    if (
      /from\s+['"]node:|require\(['"]node:|from\s+['"](fs|path|http|https|stream|buffer|crypto|zlib|url|util|events)['"]/.test(
        text,
      )
    )
      offenders.push(path.relative(src, file));
    if (/\bBuffer\.|\bprocess\.|\bsetImmediate\(|\b__dirname\b/.test(text))
      offenders.push(`${path.relative(src, file)} (Node global)`);
  }
  expect(offenders).toEqual([]);
});

test('the whole package bundles for the browser platform (Node built-ins would not resolve)', async () => {
  const result = await build({
    entryPoints: [path.join(src, 'index.ts')],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    write: false,
    logLevel: 'silent',
  });
  expect(result.errors).toEqual([]);
  expect(result.outputFiles[0]!.text).not.toMatch(/from\s*["']node:/);
});
