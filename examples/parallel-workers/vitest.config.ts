/**
 * The parallel-workers example's own vitest run: one HTTP mock for the whole run (global-setup.ts), and
 * three workers running the specs at once, each in its own mock session (worker-session.ts).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import workspace from '../../vitest.config.js';

const here = path.dirname(fileURLToPath(import.meta.url));

export default defineConfig({
  // Workspace packages resolve to their sources, as in the repository's own test run.
  resolve: workspace.resolve,
  test: {
    root: here,
    include: ['specs/*.spec.ts'],
    globalSetup: ['./global-setup.ts'],
    pool: 'forks',
    maxWorkers: 3,
    fileParallelism: true,
    testTimeout: 20_000,
    typecheck: { enabled: false },
  },
});
