// Runs a package's CLI from its TypeScript source in this repository, for the bin shims
// (packages/*/bin/*.js) when there is no build: tsx compiles on the fly, and the root tsconfig's
// paths point every @restoapi/* import at its source, so no package needs a dist/ first.
import { fileURLToPath } from 'node:url';
import { register } from 'tsx/esm/api';

/** Imports the CLI module at `entry` (a file URL of a .ts file) with tsx and the workspace's tsconfig paths. */
export async function runSourceCli(entry) {
  register({ tsconfig: fileURLToPath(new URL('../tsconfig.json', import.meta.url)) });
  await import(entry.href);
}
