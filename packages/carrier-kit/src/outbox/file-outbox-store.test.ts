import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, expect, test } from 'vitest';
import { createFileOutboxStore } from './file-outbox-store.js';
import type { OutboxSnapshot } from './outbox-store.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

const snapshot = (n: number): OutboxSnapshot => ({
  version: 1,
  nextId: n + 1,
  entries: Array.from({ length: n }, (_, i) => ({
    id: i + 1,
    secureId: 's',
    kind: 'status',
    patch: { status: 'delivering' },
    createdAt: 0,
    attempts: 0,
    notBefore: 0,
  })),
  closed: [],
});

test('saves and loads a snapshot; a missing file is an empty outbox', async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'outbox-'));
  const store = createFileOutboxStore(path.join(dir, 'nested', 'outbox.json'));
  expect(await store.load()).toBeUndefined();
  await store.save(snapshot(2));
  expect(await store.load()).toEqual(snapshot(2));
});

test('writes atomically: concurrent saves leave one complete snapshot and no temporary files', async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'outbox-'));
  const file = path.join(dir, 'outbox.json');
  const store = createFileOutboxStore(file);
  await Promise.all(Array.from({ length: 20 }, (_, i) => store.save(snapshot(i + 1))));
  const loaded = await store.load();
  expect(loaded!.entries.length).toBe(loaded!.nextId - 1);
  expect(await readdir(dir)).toEqual(['outbox.json']);
  JSON.parse(await readFile(file, 'utf8'));
});

test('refuses a damaged or foreign file instead of starting empty', async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'outbox-'));
  const file = path.join(dir, 'outbox.json');
  await writeFile(file, '{"entries": [');
  await expect(createFileOutboxStore(file).load()).rejects.toThrow(/not valid JSON/);
  await writeFile(file, '{"hello": "world"}');
  await expect(createFileOutboxStore(file).load()).rejects.toThrow(/not an outbox snapshot/);
});
