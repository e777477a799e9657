#!/usr/bin/env node
// Builds every publishable package with tsup and checks what it would publish:
// publint for package.json/exports mistakes, @arethetypeswrong/cli for type resolution in ESM and CJS.
import { execSync } from 'node:child_process';
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import path from 'node:path';

// Build dependencies first: a package's type declarations need its workspace dependencies' dist/.
function buildOrder() {
  const dirs = ['openapi', ...readdirSync('packages').map((d) => path.join('packages', d)), 'contract-tests'];
  const packages = dirs
    .filter((dir) => existsSync(path.join(dir, 'package.json')))
    .map((dir) => ({ dir, pkg: JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) }));
  const names = new Set(packages.map((p) => p.pkg.name));
  const ordered = [];
  const visit = (entry, trail = []) => {
    if (ordered.includes(entry) || trail.includes(entry)) return;
    const deps = Object.keys({ ...entry.pkg.dependencies, ...entry.pkg.peerDependencies }).filter((d) => names.has(d));
    for (const dep of deps)
      visit(
        packages.find((p) => p.pkg.name === dep),
        [...trail, entry],
      );
    ordered.push(entry);
  };
  for (const entry of packages) visit(entry);
  return ordered;
}

let failures = 0;
for (const { dir, pkg } of buildOrder()) {
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
