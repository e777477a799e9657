#!/usr/bin/env node
// Builds every publishable package with tsup and checks what it would publish:
// publint for package.json/exports mistakes, @arethetypeswrong/cli for type resolution in ESM and CJS.
import { execSync } from 'node:child_process';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';

const dirs = ['openapi', ...readdirSync('packages').map((d) => path.join('packages', d)), 'contract-tests'];
let failures = 0;
for (const dir of dirs) {
  const file = path.join(dir, 'package.json');
  if (!existsSync(file)) continue;
  const pkg = JSON.parse(readFileSync(file, 'utf8'));
  if (pkg.private || !pkg.scripts?.build) continue;
  // attw checks code entry points; data files (the document, the JSON Schemas) are not modules.
  const dataEntries = Object.keys(pkg.exports ?? {}).filter((key) => /\.(ya?ml|json)$|\*/.test(key));
  const exclude = dataEntries.length ? ` --exclude-entrypoints ${dataEntries.join(' ')}` : '';
  for (const command of [
    `npm run build -w ${pkg.name} --silent`,
    `npx publint ${dir} --strict`,
    `npx attw --pack ${dir} --profile node16 --format ascii${exclude}`,
  ]) {
    try {
      console.log(`$ ${command}`);
      execSync(command, { stdio: 'inherit' });
    } catch {
      failures += 1;
      console.error(`✘ ${pkg.name}: ${command}`);
    }
  }
}
process.exit(failures ? 1 : 0);
