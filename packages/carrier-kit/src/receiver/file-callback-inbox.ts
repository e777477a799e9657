import { mkdir, open, readFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from '../outbox/atomic-file.js';
import type { CallbackInbox, RecordedCallback } from './callback-inbox.js';

/** Options of {@link createFileCallbackInbox}. */
export interface FileCallbackInboxOptions {
  /** Skip fsync (faster; a crash of the machine, not only of the process, may lose acknowledged callbacks). */
  unsafeNoSync?: boolean;
  /** Lines appended before the journal is emptied, once nothing in it is unfinished (default 1000). */
  compactAfter?: number;
}

/** One line of the journal: a recorded callback, or the id of one that finished. */
type JournalLine = { r: RecordedCallback } | { f: string };

/** Reads a journal; a torn last line (the process died while appending it) was never acknowledged and is skipped. */
function replay(text: string): Map<string, RecordedCallback> {
  const open = new Map<string, RecordedCallback>();
  for (const line of text.split('\n')) {
    if (!line) continue;
    let entry: JournalLine;
    try {
      entry = JSON.parse(line) as JournalLine;
    } catch {
      continue;
    }
    if ('r' in entry) open.set(entry.r.id, entry.r);
    else open.delete(entry.f);
  }
  return open;
}

/**
 * Creates a callback inbox in an append-only file (JSON lines): `record` appends the callback and fsyncs
 * before it resolves, so the receiver acknowledges only what survives a crash; `finish` appends a mark.
 * Concurrent records share one write and one fsync. At start the journal is rewritten with only the
 * unfinished callbacks, and while running it is emptied whenever nothing in it is unfinished.
 * @example
 * createCallbackReceiver({ inbox: createFileCallbackInbox('./var/callbacks.jsonl'), handlers });
 */
export function createFileCallbackInbox(
  file: string,
  options: FileCallbackInboxOptions = {},
): CallbackInbox & { readonly file: string } {
  const target = path.resolve(file);
  const compactAfter = options.compactAfter ?? 1000;
  const open_ = new Set<string>();
  let loaded: Promise<{ handle: FileHandle; recovered: RecordedCallback[] }> | undefined;
  let linesSinceCompaction = 0;
  let queue: { line: string; sync: boolean; resolve: () => void; reject: (error: unknown) => void }[] = [];
  let writing: Promise<void> | undefined;

  const load = (): Promise<{ handle: FileHandle; recovered: RecordedCallback[] }> =>
    (loaded ??= (async () => {
      await mkdir(path.dirname(target), { recursive: true });
      let text = '';
      try {
        text = await readFile(target, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
      }
      const recovered = [...replay(text).values()];
      for (const callback of recovered) open_.add(callback.id);
      // Start from a journal of only what is unfinished, so it does not grow across restarts.
      await writeFileAtomic(target, recovered.map((r) => `${JSON.stringify({ r })}\n`).join(''), options);
      return { handle: await open(target, 'a'), recovered };
    })());

  const flush = async (): Promise<void> => {
    const { handle } = await load();
    while (queue.length > 0) {
      const batch = queue;
      queue = [];
      try {
        await handle.write(batch.map((item) => item.line).join(''));
        if (!options.unsafeNoSync && batch.some((item) => item.sync)) await handle.datasync();
        linesSinceCompaction += batch.length;
        if (open_.size === 0 && linesSinceCompaction >= compactAfter) {
          // Nothing is unfinished: the journal holds nothing worth keeping.
          await handle.truncate(0);
          linesSinceCompaction = 0;
        }
        for (const item of batch) item.resolve();
      } catch (error) {
        for (const item of batch) item.reject(error);
      }
    }
    writing = undefined;
  };
  const append = (entry: JournalLine, sync: boolean): Promise<void> =>
    new Promise((resolve, reject) => {
      queue.push({ line: `${JSON.stringify(entry)}\n`, sync, resolve, reject });
      writing ??= flush();
    });

  return {
    file: target,
    durable: !options.unsafeNoSync,
    async record(callback) {
      open_.add(callback.id);
      try {
        await append({ r: callback }, true);
      } catch (error) {
        open_.delete(callback.id);
        throw error;
      }
    },
    async finish(id) {
      if (!open_.delete(id)) return;
      await append({ f: id }, false);
    },
    async unfinished() {
      const { recovered } = await load();
      return recovered.filter((callback) => open_.has(callback.id));
    },
    async close() {
      if (!loaded) return;
      while (writing) await writing;
      const { handle } = await loaded;
      await handle.close();
      loaded = undefined;
    },
  };
}
