import { defineConfig } from 'vitest/config';
import { workspaceAliases } from './scripts/workspace-aliases.ts';

// Workspace packages resolve to their TypeScript sources, so tests never need a build first.
export default defineConfig({
  resolve: { alias: workspaceAliases },
  test: {
    include: ['{openapi,packages/*,contract-tests,examples}/{src,test}/**/*.test.ts'],
    typecheck: { enabled: true, include: ['**/*.test-d.ts'], tsconfig: './tsconfig.typetests.json' },
    testTimeout: 20_000,
  },
});
