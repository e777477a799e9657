import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { writeFileAtomic } from './atomic-file.js';
import type { CallbackInbox } from '../receiver/callback-inbox.js';
import { createFileCallbackInbox } from '../receiver/file-callback-inbox.js';
import { assertSnapshot, type OutboxSnapshot, type OutboxStore } from './outbox-store.js';

export { writeFileAtomic } from './atomic-file.js';

/** Options of {@link createFileOutboxStore}. */
export interface FileOutboxStoreOptions {
  /** Skip the fsync calls (faster, but a power cut may lose the last save). Default false. */
  unsafeNoSync?: boolean;
  /** The journal of the callback inbox (default: beside the file, `outbox.json` → `outbox.callbacks.jsonl`). */
  callbacksFile?: string;
}

/** The inbox journal beside an outbox file: `outbox.json` → `outbox.callbacks.jsonl`. */
export function callbacksFileOf(outboxFile: string): string {
  return `${outboxFile.replace(/\.json$/, '')}.callbacks.jsonl`;
}

/**
 * Creates the file outbox store: one JSON file, replaced atomically on every save (temp + fsync + rename),
 * so pending delivery updates survive a crash or a kill of the carrier process. It carries a callback inbox
 * (an append-only journal beside it, fsynced per record) that the agent uses to acknowledge a callback
 * only once it is on disk.
 * @example
 * const agent = createCarrierAgent({ baseUrl, outboxStore: createFileOutboxStore('./var/outbox.json') });
 */
export function createFileOutboxStore(
  file: string,
  options: FileOutboxStoreOptions = {},
): OutboxStore & { readonly file: string; readonly callbackInbox: CallbackInbox & { readonly file: string } } {
  const target = path.resolve(file);
  const callbackInbox = createFileCallbackInbox(
    options.callbacksFile ?? callbacksFileOf(target),
    options.unsafeNoSync ? { unsafeNoSync: true } : {},
  );
  return {
    file: target,
    callbackInbox,
    async load() {
      let text: string;
      try {
        text = await readFile(target, 'utf8');
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch (error) {
        throw new Error(`${target} is not valid JSON: ${(error as Error).message}`);
      }
      return assertSnapshot(value, target);
    },
    async save(snapshot: OutboxSnapshot) {
      await writeFileAtomic(target, `${JSON.stringify(snapshot, null, 1)}\n`, options);
    },
  };
}
