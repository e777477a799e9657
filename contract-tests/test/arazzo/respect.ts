import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** One step of a Respect run: its id, whether it passed, and the checks that failed. */
export interface RespectStep {
  workflowId: string;
  stepId: string;
  passed: boolean;
  failedChecks: string[];
}

/** What `redocly respect` printed and wrote (its JSON log), read back per step. */
export interface RespectRun {
  exitCode: number;
  /** The console output without the banner and the colour codes. */
  output: string;
  /** The summary lines of each file ("Workflows: 1 passed, 1 total", "Steps: …", "Checks: …"). */
  summary: string[];
  steps: RespectStep[];
}

/** The repository's root: npx finds the installed @redocly/cli there (and never downloads one). */
const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * Runs `npx redocly respect FILES` (absolute paths) with each source description's server set to `baseUrl`
 * (`--server NAME=URL`), asynchronously so that a mock served by this process keeps answering.
 */
export async function respect(files: string[], sources: string[], baseUrl: string): Promise<RespectRun> {
  const dir = await mkdtemp(join(tmpdir(), 'respect-'));
  const json = join(dir, 'respect.json');
  const args = ['redocly', 'respect', ...files, ...sources.flatMap((name) => ['--server', `${name}=${baseUrl}`])];
  try {
    const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile(
        'npx',
        [...args, '--json-output', json],
        { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' }, maxBuffer: 64 * 1024 * 1024 },
        (error, out, err) => resolve({ code: error ? Number(error.code ?? 1) : 0, stdout: `${out}${err}` }),
      );
    });
    // eslint-disable-next-line no-control-regex
    const output = stdout.replace(/\u001b\[[0-9;]*m/g, '');
    const log = JSON.parse(await readFile(json, 'utf8').catch(() => '{"files":{}}')) as {
      files: Record<string, { executedWorkflows: { workflowId: string; executedSteps: RawStep[] }[] }>;
    };
    const steps = Object.values(log.files).flatMap((file) =>
      file.executedWorkflows.flatMap((workflow) =>
        workflow.executedSteps.map((step) => ({
          workflowId: workflow.workflowId,
          stepId: step.stepId,
          passed: step.checks.every((check) => check.passed),
          failedChecks: step.checks.filter((check) => !check.passed).map((check) => check.condition ?? check.name),
        })),
      ),
    );
    const summary = output
      .split('\n')
      .map((line) => line.trim())
      .filter((line) => /^(Summary for|Workflows:|Steps:|Checks:)/.test(line));
    return { exitCode: code, output, summary, steps };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

interface RawStep {
  stepId: string;
  checks: { name: string; passed: boolean; condition?: string }[];
}
