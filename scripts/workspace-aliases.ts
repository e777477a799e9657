// Maps @restoapi/* imports to their TypeScript sources for vitest and tsx.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const at = (p: string): string => path.join(root, p);

/** Most specific first: vite matches aliases in order. */
export const workspaceAliases = [
  { find: /^@restoapi\/openapi$/, replacement: at('openapi/src/index.ts') },
  { find: /^@restoapi\/sdk$/, replacement: at('packages/sdk/src/index.ts') },
  { find: /^@restoapi\/mock-server\/node$/, replacement: at('packages/mock-server/src/node.ts') },
  { find: /^@restoapi\/mock-server\/msw$/, replacement: at('packages/mock-server/src/msw.ts') },
  { find: /^@restoapi\/mock-server$/, replacement: at('packages/mock-server/src/index.ts') },
  { find: /^@restoapi\/carrier-kit$/, replacement: at('packages/carrier-kit/src/index.ts') },
  { find: /^@restoapi\/contract-tests$/, replacement: at('contract-tests/src/index.ts') },
];
