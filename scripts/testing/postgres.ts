/**
 * A real PostgreSQL server for the tests: Debian's binaries (`pg_config --bindir`), a cluster made with
 * `initdb` in a temporary folder, started with `pg_ctl` on a loopback port as a non-root user (PostgreSQL
 * refuses to run as root). One server per test file ({@link startPostgres}), or one for the whole vitest
 * run ({@link sharedPostgres}, started by the first file that asks and stopped by the global setup,
 * scripts/testing/global-setup.ts); each test takes a fresh database from it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';

/** A running test server. */
export interface TestPostgres {
  /** Connection string of the `postgres` database, e.g. `postgres://postgres@127.0.0.1:54012/postgres`. */
  url: string;
  /** Makes an empty database and answers its connection string. */
  createDatabase(name?: string): Promise<string>;
  /** Process ids of the server and its backends (for CPU time readings). */
  pids(): number[];
  /** Stops the server and removes its folder. */
  stop(): Promise<void>;
}

/** The folder of `initdb`, `pg_ctl` and `postgres`: `PG_BINDIR`, else `pg_config --bindir`, else Debian's newest. */
export function postgresBinDir(): string | undefined {
  if (process.env.PG_BINDIR)
    return existsSync(path.join(process.env.PG_BINDIR, 'pg_ctl')) ? process.env.PG_BINDIR : undefined;
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
    if (existsSync(path.join(dir, 'pg_ctl'))) return dir;
  } catch {
    // no pg_config on PATH: try the usual Debian place
  }
  // Debian's postgresql package has no pg_config (that is libpq-dev): look where it puts each version.
  const versions = existsSync('/usr/lib/postgresql')
    ? readdirSync('/usr/lib/postgresql')
        .filter((v) => existsSync(`/usr/lib/postgresql/${v}/bin/pg_ctl`))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  return versions[0] === undefined ? undefined : `/usr/lib/postgresql/${versions[0]}/bin`;
}

/** The reason the server cannot be started here, or `undefined` when it can. */
export function postgresUnavailable(): string | undefined {
  if (!postgresBinDir())
    return `no PostgreSQL binaries (${process.env.PG_BINDIR ? `no pg_ctl in PG_BINDIR=${process.env.PG_BINDIR}` : 'pg_config --bindir, /usr/lib/postgresql/*/bin'}): apt-get install -y postgresql, or set PG_BINDIR`;
  if (process.getuid?.() === 0 && !unixUser())
    return 'running as root and no "postgres" system user to run the server as (PostgreSQL refuses root)';
  return undefined;
}

/**
 * Whether the tests of `suite` that need PostgreSQL run. Without a server they skip with the reason,
 * except under CI (`CI=true`, where .ci/run installs Debian's postgresql): there they run and fail
 * loudly, so a missing server can never pass as green.
 */
export function postgresTestsRun(suite: string): boolean {
  const reason = postgresUnavailable();
  if (!reason || process.env.CI === 'true') return true;
  console.warn(`[${suite}] SKIPPED: no PostgreSQL server can be started: ${reason}.`);
  return false;
}

function unixUser(): { uid: number; gid: number } | undefined {
  try {
    const line = readFileSync('/etc/passwd', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('postgres:'));
    if (!line) return undefined;
    const [, , uid, gid] = line.split(':');
    return { uid: Number(uid), gid: Number(gid) };
  } catch {
    return undefined;
  }
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** Runs a PostgreSQL program, as the postgres user when we are root (spawnSync's uid/gid drop the privileges for the child only). */
function runAs(command: string, args: string[]): void {
  const user = process.getuid?.() === 0 ? unixUser() : undefined;
  const result = spawnSync(path.join(postgresBinDir()!, command), args, {
    encoding: 'utf8',
    ...(user ? { uid: user.uid, gid: user.gid } : {}),
    env: { ...process.env, LC_ALL: 'C' },
  });
  if (result.status !== 0)
    throw new Error(`${command} failed (${result.status ?? result.signal}): ${result.stderr || result.stdout}`);
}

/** Stops the server whose folder `startPostgres` made (`<dir>/data`) and removes the folder. */
export function stopPostgresIn(dir: string): void {
  try {
    runAs('pg_ctl', ['-D', path.join(dir, 'data'), '-m', 'immediate', '-w', 'stop']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A handle on a running server at `url` (a `postgres` database URL); `stop` is the caller's to give. */
function onServer(url: string, data: string | undefined, stop: () => Promise<void>): TestPostgres {
  const at = new URL(url);
  let databases = 0;
  const tag = randomBytes(4).toString('hex');
  return {
    url,
    // The pid and a random tag: test files sharing one server (sharedPostgres) never pick the same name.
    async createDatabase(name = `t${process.pid}_${tag}_${++databases}`) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name}"`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${at.port}/${name}`;
    },
    pids() {
      if (!data) throw new Error('pids() reads the server of startPostgres(), not a shared one');
      const main = Number(readFileSync(path.join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
      // The backends are the postmaster's children: read each process's parent from /proc (no pgrep needed).
      const children = readdirSync('/proc')
        .filter((entry) => /^\d+$/.test(entry))
        .filter((pid) => {
          try {
            return Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1]) === main;
          } catch {
            return false;
          }
        })
        .map(Number);
      return [main, ...children];
    },
    stop,
  };
}

/**
 * Makes and starts a cluster in a new temporary folder; answers its URL and folder. `maxConnections`: a server
 * shared by files that run side by side serves all their pools at once.
 */
async function launch(maxConnections = 100): Promise<{ url: string; dir: string }> {
  const reason = postgresUnavailable();
  if (reason) throw new Error(`cannot start PostgreSQL: ${reason}`);
  const dir = mkdtempSync(path.join(tmpdir(), 'restoapi-pg-'));
  const data = path.join(dir, 'data');
  const user = process.getuid?.() === 0 ? unixUser() : undefined;
  if (user) {
    execFileSync('chown', ['-R', `${user.uid}:${user.gid}`, dir]);
    chmodSync(dir, 0o700);
  }
  runAs('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--no-instructions']);
  const port = await freePort();
  // fsync off and a small WAL: a test server holds nothing worth keeping through a power cut.
  const settings = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${dir}`,
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    `-c max_connections=${maxConnections}`,
    '-c shared_buffers=32MB',
  ].join(' ');
  runAs('pg_ctl', ['-D', data, '-o', settings, '-l', path.join(dir, 'server.log'), '-w', '-t', '30', 'start']);
  return { url: `postgres://postgres@127.0.0.1:${port}/postgres`, dir };
}

/** Starts a throw-away PostgreSQL server on a free loopback port (about 1–2 s). */
export async function startPostgres(): Promise<TestPostgres> {
  const { url, dir } = await launch();
  let stopped = false;
  return onServer(url, path.join(dir, 'data'), async () => {
    if (stopped) return;
    stopped = true;
    stopPostgresIn(dir);
  });
}

/** The variable naming the folder where the global setup keeps the servers the test files of one vitest run share. */
export const SHARED_DIR_ENV = 'RESTOAPI_TEST_SHARED';

/**
 * A PostgreSQL server shared by every test file of the vitest run that asks for it: the first file starts it
 * (the others wait for its address), and the global setup (scripts/testing/global-setup.ts) stops it when the
 * run ends, so its `stop()` does nothing. Each test still takes a database of its own (`createDatabase`), so
 * files do not see each other's tables. Outside such a run (a benchmark, a script) it is {@link startPostgres}.
 * A test that stops, kills or reconfigures its server needs one of its own: {@link startPostgres}.
 */
export async function sharedPostgres(): Promise<TestPostgres> {
  const shared = process.env[SHARED_DIR_ENV];
  if (!shared) return startPostgres();
  const record = path.join(shared, 'postgres.json');
  const failure = path.join(shared, 'postgres.error');
  let starter = false;
  try {
    // mkdir is atomic: exactly one file of the run starts the server.
    mkdirSync(path.join(shared, 'postgres.lock'));
    starter = true;
  } catch {
    // another file is starting it, or has
  }
  if (starter) {
    try {
      // Written whole, then renamed into place: a waiting file never reads half a record.
      writeFileSync(`${record}.tmp`, JSON.stringify(await launch(400)));
      renameSync(`${record}.tmp`, record);
    } catch (error) {
      writeFileSync(failure, (error as Error).message);
      throw error;
    }
  }
  const deadline = Date.now() + 120_000;
  while (!existsSync(record)) {
    if (existsSync(failure)) throw new Error(`the shared PostgreSQL did not start: ${readFileSync(failure, 'utf8')}`);
    if (Date.now() > deadline) throw new Error('the shared PostgreSQL did not start within 120 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const { url } = JSON.parse(readFileSync(record, 'utf8')) as { url: string };
  return onServer(url, undefined, async () => {});
}

/** Stops the shared server of the run whose folder is `shared`, if a file started one (the global setup's teardown). */
export function stopSharedPostgres(shared: string): void {
  const record = path.join(shared, 'postgres.json');
  if (existsSync(record)) stopPostgresIn((JSON.parse(readFileSync(record, 'utf8')) as { dir: string }).dir);
}
