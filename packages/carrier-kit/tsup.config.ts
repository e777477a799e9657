import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/node.ts', 'src/postgres.ts', 'src/cli.ts'],
  format: ['esm', 'cjs'],
  dts: { entry: ['src/index.ts', 'src/node.ts', 'src/postgres.ts'] },
  sourcemap: true,
  clean: true,
  target: 'node20',
  treeshake: true,
});
