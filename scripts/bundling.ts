/**
 * Bundles code of this repository the way a user's bundler would (esbuild), straight from the workspace
 * sources: for the runtime tests (scripts/testing/runtimes.ts) and for `npm run size` of each package,
 * which prints what a browser downloads, minified and gzipped, against a budget.
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build, type Plugin } from 'esbuild';

const root = fileURLToPath(new URL('../', import.meta.url));

/** The workspace packages as their TypeScript sources (as vitest's aliases resolve them). */
export const WORKSPACE_SOURCES: Record<string, string> = {
  '@restoapi/openapi': 'openapi/src/index.ts',
  '@restoapi/sdk': 'packages/sdk/src/index.ts',
  '@restoapi/mock-server/msw': 'packages/mock-server/src/msw.ts',
  '@restoapi/mock-server': 'packages/mock-server/src/index.ts',
  '@restoapi/carrier-kit': 'packages/carrier-kit/src/index.ts',
};

/** esbuild resolves `@restoapi/*` to the sources: exact names only (`@restoapi/mock-server/msw` is its own). */
const workspaceSources: Plugin = {
  name: 'workspace-sources',
  setup(builder) {
    builder.onResolve({ filter: /^@restoapi\// }, (args) => {
      const source = WORKSPACE_SOURCES[args.path];
      return source ? { path: path.join(root, source) } : undefined;
    });
  },
};

/** What a bundle is for: `browser` and `workerd` have no Node built-ins, so importing one fails the build. */
export type BundleTarget = 'browser' | 'workerd' | 'node';

/** One file of a bundle: the entry, or a chunk it loads on demand (`import()`). */
export interface BundleFile {
  name: string;
  text: string;
  entry: boolean;
}

/**
 * Bundles `entry` (module source; imports relative to `resolveDir`) into ES modules for `target`:
 * the entry first, then the chunks its dynamic imports load (only with `splitting`).
 */
export async function bundleFiles(
  entry: string,
  resolveDir: string,
  target: BundleTarget,
  options: { minify?: boolean; splitting?: boolean } = {},
): Promise<BundleFile[]> {
  const result = await build({
    stdin: { contents: entry, resolveDir, sourcefile: 'entry.ts', loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: target === 'node' ? 'node' : 'browser',
    // workerd reads the `workerd` export condition first, as wrangler does.
    ...(target === 'workerd' ? { conditions: ['workerd', 'worker', 'browser'] } : {}),
    target: 'es2022',
    minify: options.minify ?? false,
    treeShaking: true,
    ...(options.splitting
      ? { splitting: true, outdir: '/bundle', entryNames: 'entry', chunkNames: 'chunk-[hash]' }
      : {}),
    write: false,
    logLevel: 'silent',
    plugins: [workspaceSources],
  });
  return result.outputFiles
    .filter((file) => !file.path.endsWith('.map'))
    .map((file) => ({
      name: path.basename(file.path),
      text: file.text,
      entry: !options.splitting || path.basename(file.path) === 'entry.js',
    }))
    .sort((a, b) => Number(b.entry) - Number(a.entry));
}

/** Bundles `entry` into one ES module for `target` (see {@link bundleFiles}). */
export async function bundleScript(
  entry: string,
  resolveDir: string,
  target: BundleTarget,
  options: { minify?: boolean } = {},
): Promise<string> {
  return (await bundleFiles(entry, resolveDir, target, options))[0]!.text;
}

/** Sizes of a browser bundle in bytes. */
export interface BundleSize {
  /** What the page loads up front: the entry, minified. */
  minified: number;
  /** The same, gzipped (level 9): what the budget is about. */
  gzipped: number;
  /** Chunks loaded only when a dynamic import runs, together (0 when there are none). */
  lazyMinified: number;
  lazyGzipped: number;
  /** The budget of `gzipped`. */
  limit: number;
}

/** Bundles `entry` for the browser (minified, tree-shaken, code split) and measures it against `limit`. */
export async function measureBundle(entry: string, resolveDir: string, limit: number): Promise<BundleSize> {
  const files = await bundleFiles(entry, resolveDir, 'browser', { minify: true, splitting: true });
  const bytes = (file: BundleFile): Uint8Array => new TextEncoder().encode(file.text);
  const gz = (file: BundleFile): number => gzipSync(bytes(file), { level: 9 }).byteLength;
  const [main, ...lazy] = files;
  return {
    minified: bytes(main!).byteLength,
    gzipped: gz(main!),
    lazyMinified: lazy.reduce((sum, file) => sum + bytes(file).byteLength, 0),
    lazyGzipped: lazy.reduce((sum, file) => sum + gz(file), 0),
    limit,
  };
}

const kb = (bytes: number): string => `${(bytes / 1000).toFixed(2)} kB`;

/** The line `npm run size` prints for a bundle. */
export function describeBundleSize(label: string, size: BundleSize): string {
  const lazy = size.lazyMinified
    ? `; loaded on demand: ${size.lazyMinified} bytes minified, ${size.lazyGzipped} bytes min+gzip (${kb(size.lazyGzipped)})`
    : '';
  return `${label}: ${size.minified} bytes minified (${kb(size.minified)}), ${size.gzipped} bytes min+gzip (${kb(size.gzipped)}); budget ${kb(size.limit)} min+gzip${lazy}`;
}

/** Prints the size line and exits 1 when the budget is exceeded (the body of each package's `npm run size`). */
export function reportBundleSize(label: string, size: BundleSize): void {
  console.log(describeBundleSize(label, size));
  if (size.gzipped > size.limit) {
    console.error(`Bundle size budget exceeded by ${size.gzipped - size.limit} bytes.`);
    process.exit(1);
  }
}
