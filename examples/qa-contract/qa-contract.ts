/**
 * QA against a running server: runs the `restoapi-contract` command with the configuration
 * beside this file and writes the JUnit and traceability reports.
 *
 *   npm run qa-contract                                          # against a demo mock it starts itself
 *   RESTOAPI_BASE_URL=https://staging.example.com npm run qa-contract -- --profile spec
 */
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { apiTarget } from '../support/demo-server.js';

const here = path.dirname(fileURLToPath(import.meta.url));

/** Runs the CLI exactly as QA would type it; resolves to its exit code. */
export function restoapiContract(args: string[], env: NodeJS.ProcessEnv = process.env): Promise<number> {
  // In this repository the command runs from source; installed, it is `npx restoapi-contract`.
  const cli = path.resolve(here, '../../contract-tests/src/cli.ts');
  const tsx = createRequire(import.meta.url).resolve('tsx');
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', tsx, cli, ...args], { stdio: 'inherit', env });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code ?? 1));
  });
}

/** The example's arguments: base URL, the config file, a report folder, plus whatever the user adds. */
export function contractArgs(baseUrl: string, reportDir: string, extra: string[] = []): string[] {
  return [
    '--base-url',
    baseUrl,
    '--config',
    path.join(here, 'restoapi-contract.json'),
    '--profile',
    'full',
    '--report',
    reportDir,
    ...extra,
  ];
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const target = await apiTarget();
  if (target.embedded) console.log(`No RESTOAPI_BASE_URL given: started a demo mock at ${target.baseUrl}`);
  const reportDir = path.resolve('reports/qa-contract');
  const code = await restoapiContract(contractArgs(target.baseUrl, reportDir, process.argv.slice(2)));
  console.log(`Reports: ${reportDir}/junit.xml, traceability.md, traceability.html`);
  await target.close();
  process.exitCode = code;
}
