/**
 * Ephemeral Redis servers for tests: a real `redis-server` on a free loopback port with no
 * persistence, in a temporary directory that is removed on `stop()`, or a 3-master Redis Cluster.
 * Set `REDIS_URL` (and `REDIS_CLUSTER_URLS`, comma-separated) to test against servers you run
 * yourself; tests that must kill or reconfigure Redis always spawn their own.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const INSTALL_HINT =
  'redis-server was not found on PATH. Install it (Debian/Ubuntu: apt-get install redis-server; macOS: brew install redis) or set REDIS_URL to a Redis server the tests may use.';

/** Options for {@link startRedis}. */
export interface StartRedisOptions {
  /** Extra `redis-server` arguments, such as `['--maxmemory', '1mb']`. Implies `spawn: true`. */
  readonly args?: readonly string[];
  /**
   * Always spawn a local `redis-server`, even when `REDIS_URL` is set. Needed by tests that kill,
   * pause or restart Redis. Default: spawn only when `REDIS_URL` is unset.
   */
  readonly spawn?: boolean;
}

/** A Redis server for one test file; stop it with `stop()` or `await using`. */
export interface RedisTestServer extends AsyncDisposable {
  /** `redis://127.0.0.1:PORT` */
  readonly url: string;
  readonly host: string;
  readonly port: number;
  /** True when this is the server named by `REDIS_URL`: kill, pause and restart then throw. */
  readonly external: boolean;
  /** Stops the server (SIGTERM, then SIGKILL) and removes its directory. Idempotent. */
  stop(): Promise<void>;
  /**
   * Sends `signal` (default `SIGKILL`). Terminating signals wait until the process has exited;
   * `SIGSTOP`/`SIGCONT` freeze and thaw it (a hung Redis: connections stay open, nothing answers).
   */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Starts the server again on the same port with the same arguments (empty: no persistence). */
  restart(): Promise<void>;
}

/** A 3-master Redis Cluster; stop it with `stop()` or `await using`. */
export interface RedisClusterTestServer extends AsyncDisposable {
  /** One `redis://127.0.0.1:PORT` per master. */
  readonly urls: readonly string[];
  readonly nodes: readonly { readonly host: string; readonly port: number }[];
  readonly external: boolean;
  stop(): Promise<void>;
}

/** `redis-server` arguments for a throwaway server: loopback only, no persistence, quiet. */
function ephemeralArgs(dir: string): string[] {
  return [
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
    '--loglevel',
    'warning',
  ];
}

/** A port that was free a moment ago (bind port 0 on the loopback, read it, release it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (!port) throw new Error('could not pick a free port');
  return port;
}

// Children still alive when the test process exits are killed, so a crashed test run leaves no
// redis-server behind. A Set, because stop() removes them as they go.
const live = new Set<ChildProcess>();
let exitHookInstalled = false;
function track(child: ChildProcess): void {
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    process.once('exit', () => {
      for (const c of live) c.kill('SIGKILL');
    });
  }
}

/**
 * Sends one inline command over a raw socket and returns the reply text (simple string, error or
 * bulk string), so the helpers need no Redis client of their own.
 */
export function sendInline(port: number, command: string, timeoutMs = 1000): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let data = '';
    const done = (error?: Error, reply?: string) => {
      socket.destroy();
      clearTimeout(timer);
      if (error) reject(error);
      else resolve(reply ?? '');
    };
    const timer = setTimeout(() => done(new Error(`no reply to ${command}`)), timeoutMs);
    socket.setEncoding('utf8');
    socket.once('error', (error) => done(error));
    socket.once('connect', () => socket.write(`${command}\r\n`));
    socket.on('data', (chunk: string) => {
      data += chunk;
      const lineEnd = data.indexOf('\r\n');
      if (lineEnd < 0) return;
      const head = data.slice(0, lineEnd);
      if (head.startsWith('$')) {
        const length = Number(head.slice(1));
        const body = data.slice(lineEnd + 2);
        if (length < 0) done(undefined, '');
        else if (Buffer.byteLength(body) >= length + 2) done(undefined, body.slice(0, -2));
      } else {
        done(undefined, head);
      }
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 20_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

interface Spawned {
  readonly child: ChildProcess;
  readonly output: () => string;
}

async function spawnRedisServer(args: readonly string[]): Promise<Spawned> {
  const child = spawn('redis-server', [...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-4000);
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output = (output + chunk.toString('utf8')).slice(-4000);
  });
  await new Promise<void>((resolve, reject) => {
    child.once('spawn', () => resolve());
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(error.code === 'ENOENT' ? new Error(INSTALL_HINT) : error),
    );
  });
  track(child);
  return { child, output: () => output };
}

async function waitUntilExited(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (child.exitCode !== null || child.signalCode !== null) return true;
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

async function terminate(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGCONT'); // a frozen server cannot handle SIGTERM
  child.kill('SIGTERM');
  if (!(await waitUntilExited(child, 3000))) {
    child.kill('SIGKILL');
    await waitUntilExited(child, 3000);
  }
}

function externalServer(url: string): RedisTestServer {
  const parsed = new URL(url);
  const unsupported = async () => {
    throw new Error(
      'This test needs a Redis it may kill or restart; it spawns one unless REDIS_URL is set. Pass { spawn: true }.',
    );
  };
  return {
    url,
    host: parsed.hostname,
    port: Number(parsed.port || 6379),
    external: true,
    stop: async () => {},
    kill: unsupported,
    restart: unsupported,
    [Symbol.asyncDispose]: async () => {},
  };
}

/**
 * Starts a throwaway `redis-server` on 127.0.0.1 (no RDB, no AOF, its own temporary directory),
 * or returns `REDIS_URL` when that is set and neither `args` nor `spawn` is given. Because other
 * tests may share an external server, give each store its own key prefix.
 *
 * @param options - extra arguments, or `spawn: true` to ignore `REDIS_URL`
 * @throws Error with an install hint when `redis-server` is not installed
 */
export async function startRedis(options: StartRedisOptions = {}): Promise<RedisTestServer> {
  const external = process.env.REDIS_URL;
  if (external && !options.args && !options.spawn) return externalServer(external);

  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 's2sp-redis-'));
  const args = ['--port', String(port), ...ephemeralArgs(dir), ...(options.args ?? [])];
  let current: Spawned | undefined;
  let stopped = false;

  const launch = async () => {
    const spawned = await spawnRedisServer(args);
    current = spawned;
    try {
      await waitFor(`redis-server on port ${port}`, async () => {
        if (spawned.child.exitCode !== null)
          throw new Error(`redis-server exited: ${spawned.output()}`);
        return (await sendInline(port, 'PING')) === '+PONG';
      });
    } catch (error) {
      await terminate(spawned.child);
      throw new Error(`redis-server did not start on port ${port}: ${spawned.output()}`, {
        cause: error,
      });
    }
  };

  const stop = async () => {
    if (stopped) return;
    stopped = true;
    if (current) await terminate(current.child);
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    await launch();
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    url: `redis://127.0.0.1:${port}`,
    host: '127.0.0.1',
    port,
    external: false,
    stop,
    async kill(signal: NodeJS.Signals = 'SIGKILL') {
      const child = current?.child;
      if (!child) return;
      child.kill(signal);
      if (signal !== 'SIGSTOP' && signal !== 'SIGCONT' && signal !== 'SIGTSTP')
        await waitUntilExited(child, 5000);
    },
    async restart() {
      if (stopped) throw new Error('this Redis test server was stopped');
      if (current) await terminate(current.child);
      await launch();
    },
    [Symbol.asyncDispose]: stop,
  };
}

function run(file: string, args: readonly string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(file, [...args], { timeout: 30_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${file} ${args.join(' ')} failed: ${stderr || stdout}`));
      else resolve(stdout);
    });
  });
}

/**
 * Starts a Redis Cluster of three masters and no replicas on 127.0.0.1 (`redis-server
 * --cluster-enabled yes` three times, then `redis-cli --cluster create`), and waits until every
 * node reports `cluster_state:ok`. Uses `REDIS_CLUSTER_URLS` instead when that is set.
 *
 * @throws Error with an install hint when `redis-server` is not installed
 */
export async function startRedisCluster(): Promise<RedisClusterTestServer> {
  const external = process.env.REDIS_CLUSTER_URLS;
  if (external) {
    const urls = external.split(',').map((u) => u.trim());
    return {
      urls,
      nodes: urls.map((u) => ({ host: new URL(u).hostname, port: Number(new URL(u).port) })),
      external: true,
      stop: async () => {},
      [Symbol.asyncDispose]: async () => {},
    };
  }

  const dir = mkdtempSync(join(tmpdir(), 's2sp-redis-cluster-'));
  const children: ChildProcess[] = [];
  const ports: number[] = [];
  let stopped = false;
  const stop = async () => {
    if (stopped) return;
    stopped = true;
    await Promise.all(children.map((child) => terminate(child)));
    rmSync(dir, { recursive: true, force: true });
  };

  try {
    for (let i = 0; i < 3; i++) {
      // A free port can be taken by another process before redis-server binds it (parallel test
      // files and runs): a node that exits instead of answering is started again on new ports.
      for (let attempt = 1; ; attempt++) {
        const port = await freePort();
        // The bus port is set explicitly (Redis 7): the default port + 10000 may be taken or > 65535.
        const busPort = await freePort();
        const { child, output } = await spawnRedisServer([
          '--port',
          String(port),
          '--cluster-port',
          String(busPort),
          '--cluster-enabled',
          'yes',
          '--cluster-config-file',
          join(dir, `nodes-${port}.conf`),
          '--cluster-node-timeout',
          '5000',
          ...ephemeralArgs(dir),
        ]);
        children.push(child);
        // Done when it answers, or when it exited (then `exitCode` is set and we retry).
        await waitFor(
          `cluster node ${port}`,
          async () => child.exitCode !== null || (await sendInline(port, 'PING')) === '+PONG',
        );
        if (child.exitCode === null) {
          ports.push(port);
          break;
        }
        if (attempt >= 3)
          throw new Error(`redis-server on port ${port} exited at start: ${output()}`);
      }
    }
    await run('redis-cli', [
      '--cluster',
      'create',
      ...ports.map((port) => `127.0.0.1:${port}`),
      '--cluster-replicas',
      '0',
      '--cluster-yes',
    ]);
    for (const port of ports)
      await waitFor(`cluster_state:ok on ${port}`, async () =>
        (await sendInline(port, 'CLUSTER INFO')).includes('cluster_state:ok'),
      );
  } catch (error) {
    await stop();
    throw error;
  }

  return {
    urls: ports.map((port) => `redis://127.0.0.1:${port}`),
    nodes: ports.map((port) => ({ host: '127.0.0.1', port })),
    external: false,
    stop,
    [Symbol.asyncDispose]: stop,
  };
}
