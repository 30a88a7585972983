/**
 * Throwaway MariaDB servers for tests: `mariadb-install-db` into a temporary directory, `mariadbd`
 * on a free loopback port with its socket in that directory, a `test` user (password `test`) that
 * may do anything, and the process killed and the directory removed on `stop()`. As root it runs
 * as root (`--user=root`: Debian's `mariadb-server-core` creates no `mysql` user). Set `MARIADB_URL`
 * (`mysql://user:password@host:port/database`) to use a server you run yourself instead.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './redis.js';

const INSTALL_HINT =
  'MariaDB was not found. Install it (Debian/Ubuntu: apt-get install mariadb-server-core mariadb-client-core; macOS: brew install mariadb) or set MARIADB_URL to a server the tests may use.';

/** A MariaDB server for one test file; stop it with `stop()` or `await using`. */
export interface MariaDbTestServer extends AsyncDisposable {
  readonly host: string;
  readonly port: number;
  readonly user: string;
  readonly password: string;
  /** A database created for the tests (`s2sp`). */
  readonly database: string;
  /** True when this is the server named by `MARIADB_URL`. */
  readonly external: boolean;
  /** Runs SQL with the `mariadb` client in {@link database} (stops at the first error). */
  sql(statements: string): Promise<string>;
  /** Stops the server and removes its directory. Idempotent. */
  stop(): Promise<void>;
}

/** The directory of `mariadbd`, `mariadb-install-db` and `mariadb`: `MARIADB_BIN`, else Debian's. */
function binaries(): { server: string; install: string; client: string } {
  const bin = process.env.MARIADB_BIN;
  const server = bin ? join(bin, 'mariadbd') : '/usr/sbin/mariadbd';
  const install = bin ? join(bin, 'mariadb-install-db') : '/usr/bin/mariadb-install-db';
  const client = bin ? join(bin, 'mariadb') : '/usr/bin/mariadb';
  if (![server, install, client].every((path) => existsSync(path))) throw new Error(INSTALL_HINT);
  return { server, install, client };
}

function run(
  program: string,
  args: readonly string[],
  timeoutMs = 60_000,
  input?: string,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      program,
      [...args],
      { timeout: timeoutMs, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
      (error, out, err) => {
        if (error) reject(new Error(`${program} failed: ${err || out || error.message}`));
        else resolve(out);
      },
    );
    child.stdin?.end(input);
  });
}

const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
const live = new Set<ChildProcess>();
let exitHookInstalled = false;

/**
 * Starts a throwaway MariaDB server on 127.0.0.1, or returns `MARIADB_URL` when set.
 *
 * @throws Error with an install hint when MariaDB is not installed
 */
export async function startMariaDb(): Promise<MariaDbTestServer> {
  const { server, install, client } = binaries();
  const external = process.env.MARIADB_URL;
  if (external) {
    const url = new URL(external);
    const spec = {
      host: url.hostname,
      port: Number(url.port || 3306),
      user: decodeURIComponent(url.username),
      password: decodeURIComponent(url.password),
      database: url.pathname.slice(1) || 's2sp',
    };
    const args = [
      `--host=${spec.host}`,
      `--port=${spec.port}`,
      `--user=${spec.user}`,
      `--password=${spec.password}`,
    ];
    return {
      ...spec,
      external: true,
      sql: (statements) => run(client, [...args, spec.database], 60_000, statements),
      stop: async () => {},
      [Symbol.asyncDispose]: async () => {},
    };
  }

  const dir = mkdtempSync(join(tmpdir(), 's2sp-mariadb-'));
  const data = join(dir, 'data');
  const socket = join(dir, 'mariadb.sock');
  const user = asRoot ? ['--user=root'] : [];
  const port = await freePort();
  let child: ChildProcess | undefined;
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    if (child) live.delete(child);
    rmSync(dir, { recursive: true, force: true });
  };
  // The statements go on standard input: an argument is limited to 128 KiB (E2BIG), a table's
  // INSERT is not.
  const asAdmin = (statements: string, database?: string) =>
    run(
      client,
      [`--socket=${socket}`, '--user=root', ...(database ? [database] : [])],
      60_000,
      statements,
    );

  try {
    await run(install, [
      '--no-defaults',
      `--datadir=${data}`,
      ...user,
      '--auth-root-authentication-method=normal',
      '--skip-test-db',
    ]);
    child = spawn(
      server,
      [
        '--no-defaults',
        `--datadir=${data}`,
        ...user,
        `--socket=${socket}`,
        `--port=${port}`,
        '--bind-address=127.0.0.1',
        '--skip-name-resolve',
        `--pid-file=${join(dir, 'mariadb.pid')}`,
        '--innodb-flush-log-at-trx-commit=0',
        '--innodb-buffer-pool-size=16M',
        '--skip-log-bin',
      ],
      { stdio: ['ignore', 'ignore', 'pipe'] },
    );
    live.add(child);
    if (!exitHookInstalled) {
      exitHookInstalled = true;
      process.once('exit', () => {
        for (const one of live) one.kill('SIGKILL');
      });
    }
    let log = '';
    child.stderr?.on('data', (chunk: Buffer) => {
      log = (log + chunk.toString()).slice(-4_000);
    });
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`mariadbd did not start:\n${log}`)), 30_000);
      const check = () => {
        if (log.includes('ready for connections')) {
          clearTimeout(timer);
          resolve();
        }
      };
      child?.stderr?.on('data', check);
      child?.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`mariadbd exited ${code}:\n${log}`));
      });
    });
    await asAdmin(
      "CREATE DATABASE s2sp; CREATE USER 'test'@'127.0.0.1' IDENTIFIED BY 'test'; GRANT ALL ON *.* TO 'test'@'127.0.0.1';",
    );
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    host: '127.0.0.1',
    port,
    user: 'test',
    password: 'test',
    database: 's2sp',
    external: false,
    sql: (statements) => asAdmin(statements, 's2sp'),
    stop,
    [Symbol.asyncDispose]: stop,
  };
}
