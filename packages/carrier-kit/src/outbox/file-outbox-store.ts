import { mkdir, open, readFile, rename, unlink } from 'node:fs/promises';
import path from 'node:path';
import { assertSnapshot, type OutboxSnapshot, type OutboxStore } from './outbox-store.js';

/** Options of {@link createFileOutboxStore}. */
export interface FileOutboxStoreOptions {
  /** Skip the fsync calls (faster, but a power cut may lose the last save). Default false. */
  unsafeNoSync?: boolean;
}

let tempCounter = 0;

/**
 * Writes a file atomically: a temporary file beside it is written and fsynced, renamed over the
 * target, and the directory is fsynced so the rename itself survives a crash. Readers see the old
 * content or the new one, never a mix.
 */
export async function writeFileAtomic(
  file: string,
  content: string,
  options: FileOutboxStoreOptions = {},
): Promise<void> {
  const directory = path.dirname(file);
  await mkdir(directory, { recursive: true });
  const temp = path.join(
    directory,
    `.${path.basename(file)}.${process.pid}.${Date.now().toString(36)}${(tempCounter++).toString(36)}.tmp`,
  );
  const handle = await open(temp, 'w');
  try {
    await handle.writeFile(content, 'utf8');
    if (!options.unsafeNoSync) await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, file);
  } catch (error) {
    await unlink(temp).catch(() => undefined);
    throw error;
  }
  if (!options.unsafeNoSync) {
    // Directory fsync makes the rename durable; some platforms (Windows) cannot open a directory.
    const dir = await open(directory, 'r').catch(() => undefined);
    if (dir) {
      await dir.sync().catch(() => undefined);
      await dir.close();
    }
  }
}

/**
 * Creates the file outbox store: one JSON file, replaced atomically on every save (temp + fsync + rename),
 * so pending delivery updates survive a crash or a kill of the carrier process.
 * @example
 * const agent = createCarrierAgent({ baseUrl, outboxStore: createFileOutboxStore('./var/outbox.json') });
 */
export function createFileOutboxStore(
  file: string,
  options: FileOutboxStoreOptions = {},
): OutboxStore & { readonly file: string } {
  const target = path.resolve(file);
  return {
    file: target,
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
