/**
 * Throwaway PostgreSQL clusters for tests: `initdb` into a temporary directory, `pg_ctl start` on
 * a free loopback port with trust authentication and no fsync, `pg_ctl stop -m immediate` and the
 * directory removed on `stop()`. PostgreSQL refuses to run as root, so as root every command runs
 * as the `postgres` user (`runuser`) in a directory owned by it. Set `POSTGRES_URL` to use a
 * server you run yourself instead.
 */
import { execFile, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './redis.js';

const INSTALL_HINT =
  'PostgreSQL was not found. Install it (Debian/Ubuntu: apt-get install postgresql; macOS: brew install postgresql) or set POSTGRES_URL to a server the tests may use.';

/** A PostgreSQL server for one test file; stop it with `stop()` or `await using`. */
export interface PostgresTestServer extends AsyncDisposable {
  /** `postgresql://postgres@127.0.0.1:PORT/postgres` */
  readonly url: string;
  readonly port: number;
  /** True when this is the server named by `POSTGRES_URL`. */
  readonly external: boolean;
  /** Runs SQL with `psql` (stops at the first error) and returns its unaligned output. */
  sql(statements: string): Promise<string>;
  /** Stops the server and removes its directory. Idempotent. */
  stop(): Promise<void>;
}

/** The directory of `initdb`, `pg_ctl` and `psql`: `PG_BIN`, else the newest Debian install. */
export function postgresBinDir(): string {
  if (process.env.PG_BIN) return process.env.PG_BIN;
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root)
    ? readdirSync(root)
        .filter((v) => existsSync(join(root, v, 'bin', 'initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions[0]) return join(root, versions[0], 'bin');
  const fromPath = spawnSync('pg_config', ['--bindir'], { encoding: 'utf8' });
  if (fromPath.status === 0 && existsSync(join(fromPath.stdout.trim(), 'initdb'))) {
    return fromPath.stdout.trim();
  }
  throw new Error(INSTALL_HINT);
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;

function command(bin: string, file: string, args: readonly string[]): [string, string[]] {
  const path = join(bin, file);
  return asRoot ? ['runuser', ['-u', 'postgres', '--', path, ...args]] : [path, [...args]];
}

function run(
  bin: string,
  file: string,
  args: readonly string[],
  timeoutMs = 60_000,
  input?: string,
): Promise<string> {
  const [program, argv] = command(bin, file, args);
  return new Promise((resolve, reject) => {
    const child = execFile(
      program,
      argv,
      { timeout: timeoutMs, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`${file} failed: ${stderr || stdout || error.message}`));
        else resolve(stdout);
      },
    );
    child.stdin?.end(input);
  });
}

// The statements go on standard input: an argument is limited to 128 KiB (E2BIG), a table's
// INSERT is not.
function psql(bin: string, url: string, statements: string): Promise<string> {
  return run(
    bin,
    'psql',
    [url, '-X', '-q', '-A', '-t', '-v', 'ON_ERROR_STOP=1', '-f', '-'],
    60_000,
    statements,
  );
}

// Clusters still running when the test process exits are stopped, so a crashed run leaves none.
const live = new Map<string, () => void>();
let exitHookInstalled = false;

/**
 * Starts a throwaway PostgreSQL cluster on 127.0.0.1, or returns `POSTGRES_URL` when set.
 *
 * @throws Error with an install hint when PostgreSQL is not installed
 */
export async function startPostgres(): Promise<PostgresTestServer> {
  const bin = postgresBinDir();
  const external = process.env.POSTGRES_URL;
  if (external) {
    return {
      url: external,
      port: Number(new URL(external).port || 5432),
      external: true,
      sql: (statements) => psql(bin, external, statements),
      stop: async () => {},
      [Symbol.asyncDispose]: async () => {},
    };
  }

  const dir = mkdtempSync(join(tmpdir(), 's2sp-postgres-'));
  const data = join(dir, 'data');
  if (asRoot) {
    const ids = spawnSync('id', ['-u', 'postgres'], { encoding: 'utf8' });
    const gids = spawnSync('id', ['-g', 'postgres'], { encoding: 'utf8' });
    if (ids.status !== 0)
      throw new Error(`running as root needs a "postgres" user. ${INSTALL_HINT}`);
    chownSync(dir, Number(ids.stdout.trim()), Number(gids.stdout.trim()));
    chmodSync(dir, 0o700);
  }
  const port = await freePort();
  const url = `postgresql://postgres@127.0.0.1:${port}/postgres`;
  const stopSync = () => {
    const [program, argv] = command(bin, 'pg_ctl', ['-D', data, '-m', 'immediate', 'stop']);
    spawnSync(program, argv, { stdio: 'ignore', timeout: 10_000 });
  };
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    live.delete(dir);
    await run(bin, 'pg_ctl', ['-D', data, '-m', 'immediate', 'stop'], 15_000).catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await run(bin, 'initdb', [
      '-D',
      data,
      '-U',
      'postgres',
      '--auth=trust',
      '-E',
      'UTF8',
      '--no-sync',
      '--locale=C',
    ]);
    live.set(dir, stopSync);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.once('exit', () => {
        for (const stopOne of live.values()) stopOne();
      });
    }
    const settings = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off`;
    await run(bin, 'pg_ctl', [
      '-D',
      data,
      '-l',
      join(dir, 'server.log'),
      '-o',
      settings,
      '-w',
      '-t',
      '30',
      'start',
    ]);
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    url,
    port,
    external: false,
    sql: (statements) => psql(bin, url, statements),
    stop,
    [Symbol.asyncDispose]: stop,
  };
}
