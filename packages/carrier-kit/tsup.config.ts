import { defineConfig } from 'tsup';

export default defineConfig({
  entry: ['src/index.ts', 'src/node.ts', 'src/cli.ts'],
  format: ['esm', 'cjs'],
  dts: { entry: ['src/index.ts', 'src/node.ts'] },
  sourcemap: true,
  clean: true,
  target: 'node20',
  treeshake: true,
});
