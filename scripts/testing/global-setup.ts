/**
 * Vitest's global setup (vitest.config.ts): a folder for the servers that test files share in one run
 * (`RESTOAPI_TEST_SHARED`, read by sharedPostgres in scripts/testing/postgres.ts), and, when the run ends,
 * the shared servers stopped and the folder removed. Nothing is started here: the first file that needs a
 * shared server starts it, so a run of files that need none pays nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { SHARED_DIR_ENV, stopSharedPostgres } from './postgres.js';

/** Makes the shared folder before the workers start (they inherit the variable); returns the teardown. */
export default function setup(): () => void {
  const shared = mkdtempSync(path.join(tmpdir(), 'restoapi-shared-'));
  process.env[SHARED_DIR_ENV] = shared;
  let done = false;
  const teardown = (): void => {
    if (done) return;
    done = true;
    try {
      stopSharedPostgres(shared);
    } finally {
      rmSync(shared, { recursive: true, force: true });
    }
  };
  // A run stopped with Ctrl-C ends without the teardown: the servers are stopped on the way out all the same
  // (the teardown is synchronous, as an exit handler must be).
  process.once('exit', teardown);
  return teardown;
}
