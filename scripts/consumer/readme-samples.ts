/**
 * The README samples that CI runs as written. A fenced block whose info string is `ts sample` (or
 * `ts sample server`) is one: `examples/first-run/readme-samples.test.ts` runs each against the sources,
 * and the consumer-project check (`check-consumer.ts`) runs each from an ESM and a CJS file in a new
 * project that installed the packed packages. See CONTRIBUTING.md, "README samples".
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

/** How long a sample may run before it counts as hung. */
export const SAMPLE_TIMEOUT_MS = 300_000;

/** The READMEs whose samples run: the root one and every publishable package's. */
export const SAMPLE_READMES = [
  'README.md',
  'openapi/README.md',
  'packages/sdk/README.md',
  'packages/mock-server/README.md',
  'packages/carrier-kit/README.md',
  'contract-tests/README.md',
] as const;

/** One marked block of a README. */
export interface ReadmeSample {
  /** `packages/sdk/README.md:10`: the README and the line of the opening fence. */
  id: string;
  readme: string;
  /** The block's language (`ts`; other languages are found but only TypeScript runs today). */
  lang: string;
  /** Marked `server`: the sample keeps running (it serves something); it passes once it has printed a line. */
  server: boolean;
  code: string;
}

const FENCE = /^```(\w+) sample( server)?[ \t]*\n([\s\S]*?)^```[ \t]*$/gm;

/** The marked samples of the READMEs of `root` (default {@link SAMPLE_READMES}), in document order. */
export function readmeSamples(root: string, readmes: readonly string[] = SAMPLE_READMES): ReadmeSample[] {
  return readmes.flatMap((readme) => {
    const text = readFileSync(path.join(root, readme), 'utf8');
    return [...text.matchAll(FENCE)].map((match) => ({
      id: `${readme}:${text.slice(0, match.index).split('\n').length}`,
      readme,
      lang: match[1]!,
      server: Boolean(match[2]),
      code: match[3]!,
    }));
  });
}

/**
 * The sample as it runs in a test: the service address the READMEs use (`http://localhost:4010` or
 * `http://127.0.0.1:4010`) becomes `baseUrl`, and fixed listening ports (`port: 4020`) become 0, so
 * samples never collide with each other or with anything on the machine.
 */
export function pointAt(code: string, baseUrl: string): string {
  return code.replace(/http:\/\/(?:localhost|127\.0\.0\.1):4010/g, baseUrl).replace(/\bport: \d{2,5}\b/g, 'port: 0');
}

const transpile = (code: string, module: ts.ModuleKind): string =>
  ts.transpileModule(code, {
    compilerOptions: { module, target: ts.ScriptTarget.ES2022, esModuleInterop: true, verbatimModuleSyntax: false },
  }).outputText;

/** The sample as an ES module (`.mjs`): types stripped, imports and top-level await kept. */
export function toEsm(code: string): string {
  return transpile(code, ts.ModuleKind.ESNext);
}

/**
 * The sample as a CommonJS module (`.cjs`): imports become `require` calls and the rest runs in an
 * async function (CommonJS has no top-level await); a rejection is printed and sets exit code 1.
 */
export function toCjs(code: string): string {
  const source = ts.createSourceFile('sample.ts', code, ts.ScriptTarget.ES2022, true);
  const imports = source.statements.filter(ts.isImportDeclaration).map((s) => s.getFullText());
  const body = source.statements.filter((s) => !ts.isImportDeclaration(s)).map((s) => s.getFullText());
  const wrapped = `${imports.join('')}\n(async () => {${body.join('')}\n})().catch((error) => {\n  console.error(error);\n  process.exitCode = 1;\n});\n`;
  return transpile(wrapped, ts.ModuleKind.CommonJS);
}

/** What a sample's process printed. */
export interface SampleRun {
  stdout: string;
  stderr: string;
}

/**
 * Runs `node ...args` in `cwd` (`node`: another Node binary than this one). Resolves when it exits
 * with 0 (a `server` sample: once it has printed a line; it is then stopped); rejects with its output
 * when it fails, times out, or (`server`) exits.
 */
export function runSample(
  args: string[],
  options: { cwd: string; server: boolean; timeoutMs?: number; env?: NodeJS.ProcessEnv; node?: string },
): Promise<SampleRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(options.node ?? process.execPath, args, { cwd: options.cwd, env: options.env ?? process.env });
    const run: SampleRun = { stdout: '', stderr: '' };
    let settled = false;
    const settle = (error?: string): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (child.exitCode === null) child.kill('SIGTERM');
      if (error) reject(new Error(`${error}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`));
      else resolve(run);
    };
    // A hang guard, not a budget: the contract README's sample runs the whole suite, which takes minutes on a
    // loaded 2-core machine (the full run timed out at 60 s with load 15).
    const limit = options.timeoutMs ?? SAMPLE_TIMEOUT_MS;
    const timer = setTimeout(() => settle(`timed out after ${limit} ms`), limit);
    child.stdout.on('data', (chunk: Buffer) => {
      run.stdout += chunk.toString();
      if (options.server && run.stdout.includes('\n')) settle();
    });
    child.stderr.on('data', (chunk: Buffer) => (run.stderr += chunk.toString()));
    child.on('error', (error) => settle(error.message));
    child.on('close', (code, signal) => {
      if (code === 0 && !options.server) settle();
      else settle(`exited with ${signal ?? code}${options.server ? ' before printing a line' : ''}`);
    });
  });
}
