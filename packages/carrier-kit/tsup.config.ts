import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/node.ts', 'src/postgres.ts', 'src/cli.ts'],
  format: ['esm', 'cjs'],
  dts: { entry: ['src/index.ts', 'src/node.ts', 'src/postgres.ts'] },
  sourcemap: true,
  clean: true,
  target: 'node20',
  treeshake: true,
  // The PostgreSQL stores are loaded with import() by the simulator; without splitting, the CommonJS build would
  // inline them and require the optional peer `pg` at the top of node.cjs and cli.cjs.
  splitting: true,
});
