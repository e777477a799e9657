import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, test } from 'vitest';
import { readJsonFile, writeFileAtomic } from './atomic-file.js';

let dir: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'atomic-file-'));
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

test('writes a new file and leaves no temporary file behind', async () => {
  const path = join(dir, 'state.json');
  await writeFileAtomic(path, '{"orders":[]}');
  expect(await readFile(path, 'utf8')).toBe('{"orders":[]}');
  expect(await readdir(dir)).toEqual(['state.json']);
});

test('replaces an existing file completely, also with bytes', async () => {
  const path = join(dir, 'state.json');
  await writeFile(path, 'a much longer old content that must not survive');
  await writeFileAtomic(path, new TextEncoder().encode('new'));
  expect(await readFile(path, 'utf8')).toBe('new');
});

test('writes chunks from a sync or async producer in order', async () => {
  const path = join(dir, 'state.json');
  await writeFileAtomic(path, ['[', '1,', '2', ']']);
  expect(await readFile(path, 'utf8')).toBe('[1,2]');
  async function* produce() {
    yield '{"a":';
    yield new TextEncoder().encode('1}');
  }
  await writeFileAtomic(path, produce());
  expect(await readFile(path, 'utf8')).toBe('{"a":1}');
});

test('a producer that throws mid-way leaves the old file intact and cleans up', async () => {
  const path = join(dir, 'state.json');
  await writeFile(path, '{"version":1}');
  async function* failing() {
    yield '{"version":';
    throw new Error('serialiser crashed');
  }
  await expect(writeFileAtomic(path, failing())).rejects.toThrow('serialiser crashed');
  expect(await readFile(path, 'utf8')).toBe('{"version":1}');
  expect(await readdir(dir)).toEqual(['state.json']);
});

test('a missing target directory fails without creating anything', async () => {
  const path = join(dir, 'missing', 'state.json');
  await expect(writeFileAtomic(path, 'x')).rejects.toMatchObject({ code: 'ENOENT' });
  expect(await readdir(dir)).toEqual([]);
});

test('a failed rename keeps the target and removes the temporary file', async () => {
  // Renaming a file over a non-empty directory fails only after the data has been written and synced.
  const path = join(dir, 'state');
  await mkdir(path);
  await writeFile(join(path, 'inner.json'), 'keep');
  await expect(writeFileAtomic(path, 'x')).rejects.toThrow();
  expect(await readFile(join(path, 'inner.json'), 'utf8')).toBe('keep');
  expect(await readdir(dir)).toEqual(['state']);
});

test('the mode option sets the permissions of the new file', async () => {
  const path = join(dir, 'secret.json');
  await writeFileAtomic(path, '{}', { mode: 0o600 });
  if (process.platform !== 'win32') expect((await stat(path)).mode & 0o777).toBe(0o600);
});

test('readJsonFile parses the file, or returns undefined when it is absent', async () => {
  const path = join(dir, 'state.json');
  expect(await readJsonFile(path)).toBeUndefined();
  await writeFileAtomic(path, JSON.stringify({ orders: [{ id: 5001 }] }));
  expect(await readJsonFile(path)).toEqual({ orders: [{ id: 5001 }] });
});

test('readJsonFile refuses invalid JSON, naming the file', async () => {
  const path = join(dir, 'broken.json');
  await writeFile(path, '{"orders": [');
  await expect(readJsonFile(path)).rejects.toThrow(SyntaxError);
  await expect(readJsonFile(path)).rejects.toThrow(`${path} is not valid JSON`);
});

test('readJsonFile passes on errors other than a missing file', async () => {
  await expect(readJsonFile(dir)).rejects.toMatchObject({ code: 'EISDIR' });
});
