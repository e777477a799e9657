import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

/** What {@link writeFileAtomic} accepts: the whole content, or chunks produced while writing. */
export type AtomicFileData = string | Uint8Array | Iterable<string | Uint8Array> | AsyncIterable<string | Uint8Array>;

/** Options of {@link writeFileAtomic}. */
export interface AtomicWriteOptions {
  /** File mode of a newly written file (default `0o644`, before the umask). */
  mode?: number;
  /**
   * Flush the data and the directory entry to disk (default true). Without it the replacement is still
   * atomic for readers and survives the writer being killed, only not a power failure: for files
   * rewritten very often, where the last flushed version is written at the end.
   */
  sync?: boolean;
}

/**
 * Replaces `path` with `data` so that readers, and the file after a crash, see either the old content
 * or the new one, never a mix: the data goes to a temporary file in the same directory (rename is only
 * atomic within one file system), is flushed to disk, renamed over the target, and the directory entry
 * is flushed too. On any failure, including a chunk producer that throws, the temporary file is removed
 * and the target is untouched.
 */
export async function writeFileAtomic(
  path: string,
  data: AtomicFileData,
  options: AtomicWriteOptions = {},
): Promise<void> {
  const directory = dirname(path);
  const temporary = join(directory, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`);
  // 'wx' fails rather than follow a planted file or symlink at the temporary name.
  const handle = await open(temporary, 'wx', options.mode ?? 0o644);
  try {
    try {
      for await (const chunk of chunksOf(data)) await handle.writeFile(chunk);
      if (options.sync !== false) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  if (options.sync !== false) await syncDirectory(directory);
}

/** Reads and parses a JSON file; `undefined` when it does not exist. Throws on unreadable or invalid JSON. */
export async function readJsonFile(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (isErrno(error, 'ENOENT')) return undefined;
    throw error;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new SyntaxError(`${path} is not valid JSON: ${(error as Error).message}`, { cause: error });
  }
}

async function* chunksOf(data: AtomicFileData): AsyncIterable<string | Uint8Array> {
  if (typeof data === 'string' || data instanceof Uint8Array) yield data;
  else yield* data;
}

// Without this the rename itself may be lost on power failure even though the file data is on disk.
async function syncDirectory(directory: string): Promise<void> {
  let handle;
  try {
    handle = await open(directory, 'r');
    await handle.sync();
  } catch (error) {
    // Some platforms (Windows) cannot open or fsync a directory; the rename has happened regardless.
    if (
      !isErrno(error, 'EISDIR') &&
      !isErrno(error, 'EPERM') &&
      !isErrno(error, 'EINVAL') &&
      !isErrno(error, 'EACCES')
    ) {
      throw error;
    }
  } finally {
    await handle?.close();
  }
}

function isErrno(error: unknown, code: string): boolean {
  return error instanceof Error && (error as NodeJS.ErrnoException).code === code;
}
