import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import LongestFirstSequencer from './scripts/testing/longest-first-sequencer.js';

const root = path.dirname(fileURLToPath(import.meta.url));
const at = (p: string): string => path.join(root, p);

// Workspace packages resolve to their TypeScript sources, so tests never need a build first.
// Most specific first: vite matches aliases in order.
const workspaceAliases = [
  { find: /^@restoapi\/openapi$/, replacement: at('openapi/src/index.ts') },
  { find: /^@restoapi\/sdk$/, replacement: at('packages/sdk/src/index.ts') },
  { find: /^@restoapi\/mock-server\/node$/, replacement: at('packages/mock-server/src/node.ts') },
  { find: /^@restoapi\/mock-server\/msw$/, replacement: at('packages/mock-server/src/msw.ts') },
  { find: /^@restoapi\/mock-server$/, replacement: at('packages/mock-server/src/index.ts') },
  { find: /^@restoapi\/carrier-kit\/postgres$/, replacement: at('packages/carrier-kit/src/postgres.ts') },
  { find: /^@restoapi\/carrier-kit\/node$/, replacement: at('packages/carrier-kit/src/node.ts') },
  { find: /^@restoapi\/carrier-kit$/, replacement: at('packages/carrier-kit/src/index.ts') },
  { find: /^@restoapi\/contract-tests$/, replacement: at('contract-tests/src/index.ts') },
];

export default defineConfig({
  resolve: { alias: workspaceAliases },
  test: {
    include: [
      '{openapi,packages/*,contract-tests,examples,docs}/{src,test}/**/*.test.ts',
      'examples/*/**/*.test.ts',
      'test/**/*.test.ts',
    ],
    // The type tests (*.test-d.ts) are files of tsconfig.json, so the typecheck step of both runs fails on any of
    // them already. `npx vitest run --typecheck` checks them again and reports each as a test (a tsc of its own,
    // about 18 s of CPU), which no run repeats.
    typecheck: {
      enabled: false,
      include: ['**/*.test-d.ts'],
      tsconfig: './tsconfig.typetests.json',
    },
    testTimeout: 20_000,
    // A folder for servers the files of a run share (one PostgreSQL: sharedPostgres), stopped when the run ends.
    globalSetup: ['./scripts/testing/global-setup.ts'],
    // Vitest's default in a run is one worker per core but one, so a single worker on the 2-core CI machine; most
    // files wait on child processes, sockets and timers, so two workers cut the wall time by about 40%.
    maxWorkers: 2,
    // A worker runs file after file without a fresh module graph for each: the sources the files share (the mock,
    // the contract suite, the OpenAPI document and its validators) are loaded once per worker rather than once per
    // file, which cut the CPU of the mock server's 81 files from 188 s to 100 s. Test files must therefore leave no
    // state behind in shared modules: they restore what they stub and stop what they start (they did already).
    isolate: false,
    // The longest files first, by the durations of a measured run where vitest has none (a fresh clone).
    sequence: { sequencer: LongestFirstSequencer },
  },
});
