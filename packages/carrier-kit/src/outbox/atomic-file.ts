import { mkdir, open, rename, unlink } from 'node:fs/promises';
import path from 'node:path';

/** Options of {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /** Skip the fsync calls (faster, but a power cut may lose the last write). Default false. */
  unsafeNoSync?: boolean;
}

let tempCounter = 0;

/**
 * Writes a file atomically: a temporary file beside it is written and fsynced, renamed over the
 * target, and the directory is fsynced so the rename itself survives a crash. Readers see the old
 * content or the new one, never a mix.
 */
export async function writeFileAtomic(file: string, content: string, options: AtomicWriteOptions = {}): Promise<void> {
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
