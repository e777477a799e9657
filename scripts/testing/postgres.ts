/**
 * A real PostgreSQL server for the tests: Debian's binaries (`pg_config --bindir`), a cluster made with
 * `initdb` in a temporary folder, started with `pg_ctl` on a loopback port as a non-root user (PostgreSQL
 * refuses to run as root). One server per test file; each test takes a fresh database from it.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
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

/** Starts a throw-away PostgreSQL server on a free loopback port (about 1–2 s). */
export async function startPostgres(): Promise<TestPostgres> {
  const reason = postgresUnavailable();
  if (reason) throw new Error(`cannot start PostgreSQL: ${reason}`);
  const bin = postgresBinDir()!;
  const dir = mkdtempSync(path.join(tmpdir(), 'restoapi-pg-'));
  const data = path.join(dir, 'data');
  const user = process.getuid?.() === 0 ? unixUser() : undefined;
  if (user) {
    execFileSync('chown', ['-R', `${user.uid}:${user.gid}`, dir]);
    chmodSync(dir, 0o700);
  }
  // Run as the postgres user when we are root: spawnSync's uid/gid drop the privileges for the child only.
  const run = (command: string, args: string[]): void => {
    const result = spawnSync(path.join(bin, command), args, {
      encoding: 'utf8',
      ...(user ? { uid: user.uid, gid: user.gid } : {}),
      env: { ...process.env, LC_ALL: 'C' },
    });
    if (result.status !== 0)
      throw new Error(`${command} failed (${result.status ?? result.signal}): ${result.stderr || result.stdout}`);
  };
  run('initdb', ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--no-instructions']);
  const port = await freePort();
  // fsync off and a small WAL: a test server holds nothing worth keeping through a power cut.
  const settings = [
    `-p ${port}`,
    '-c listen_addresses=127.0.0.1',
    `-c unix_socket_directories=${dir}`,
    '-c fsync=off',
    '-c synchronous_commit=off',
    '-c full_page_writes=off',
    '-c max_connections=100',
    '-c shared_buffers=32MB',
  ].join(' ');
  run('pg_ctl', ['-D', data, '-o', settings, '-l', path.join(dir, 'server.log'), '-w', '-t', '30', 'start']);
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let databases = 0;
  let stopped = false;
  return {
    url,
    async createDatabase(name = `t${process.pid}_${++databases}`) {
      const client = new pg.Client({ connectionString: url });
      await client.connect();
      try {
        await client.query(`CREATE DATABASE "${name}"`);
      } finally {
        await client.end();
      }
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    pids() {
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
    async stop() {
      if (stopped) return;
      stopped = true;
      try {
        run('pg_ctl', ['-D', data, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
