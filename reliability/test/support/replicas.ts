/**
 * Data-plane replicas as real OS processes (`test/fixtures/replica.mjs` running the built
 * packages), so that "three replicas" race on a store across process boundaries as they would
 * behind a load balancer, and so that a replica can be SIGKILLed.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = (path: string) => fileURLToPath(new URL(`../../../${path}`, import.meta.url));
const FIXTURE = fileURLToPath(new URL('../fixtures/replica.mjs', import.meta.url));

/** The dist entry points a replica process loads. */
const DIST_FILES = [
  'packages/core/dist/index.js',
  'packages/client/dist/index.js',
  'packages/server/dist/index.js',
  'packages/cache-redis/dist/index.js',
];

/**
 * Fails with instructions when the packages have not been built: replica processes run `dist`,
 * not the sources vitest aliases to.
 *
 * @throws Error naming the missing files and the command that builds them
 */
export function assertDistBuilt(): void {
  const missing = DIST_FILES.filter((file) => !existsSync(root(file)));
  if (missing.length > 0) {
    throw new Error(
      `The reliability suite runs replicas as separate processes on the built packages, but ${missing.join(', ')} ${missing.length === 1 ? 'is' : 'are'} missing. Run \`pnpm build\` at the repository root first (\`pnpm test\` does it for you).`,
    );
  }
  warnIfStale();
}

let staleChecked = false;

/**
 * Warns (once) when a package's sources changed after its dist was built: the replicas would
 * then measure older code than the in-process tests. A warning, not an error, because a
 * checkout can touch sources without changing them.
 */
function warnIfStale(): void {
  if (staleChecked) return;
  staleChecked = true;
  const stale = DIST_FILES.filter((file) => {
    const built = statSync(root(file)).mtimeMs;
    return newestMtime(root(file.replace(/dist\/index\.js$/, 'src'))) > built;
  });
  if (stale.length > 0) {
    console.warn(
      `reliability: ${stale.map((file) => file.split('/')[1]).join(', ')} changed since the last build; replica processes run the old dist. Run \`pnpm build\`.`,
    );
  }
}

function newestMtime(dir: string): number {
  let newest = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) newest = Math.max(newest, newestMtime(path));
    // Colocated unit tests are not built into dist.
    else if (!entry.name.endsWith('.test.ts')) newest = Math.max(newest, statSync(path).mtimeMs);
  }
  return newest;
}

/** How a replica process is configured (see replica.mjs). */
export interface ReplicaConfig {
  readonly store: 'memory' | 'redis' | 'cluster' | 'racy-redis' | 'racy-memory';
  readonly redisUrl?: string;
  readonly clusterUrls?: readonly string[];
  readonly keyPrefix?: string;
  readonly commandTimeoutMs?: number;
  readonly connectTimeoutMs?: number;
  readonly ttlSeconds?: number;
  /** Rows of the replica's table (its `get_rows` tool and every minted entry). Default 8. */
  readonly rows?: number;
  readonly maxCacheBytes?: number;
  /** The server's `shutdownGraceMs` (what SIGTERM gives running requests). Default 10 000. */
  readonly shutdownGraceMs?: number;
  /** Start node with `--expose-gc`, for heap figures. */
  readonly exposeGc?: boolean;
}

/** A running replica process; `await using` (or `close()`) ends it. */
export interface ReplicaProcess extends AsyncDisposable {
  /** `http://127.0.0.1:PORT` */
  readonly url: string;
  readonly mcpUrl: string;
  readonly pid: number;
  /** Caches `count` entries of the replica's table, as its resource tool would, in the replica. */
  mint(count: number): Promise<string[]>;
  /** The replica's store counters and memory usage. */
  stats(): Promise<{
    stats: { entries: number; rows: number; bytes: number };
    memory: NodeJS.MemoryUsage;
  }>;
  /** Runs full garbage collections in the replica and returns its memory usage afterwards. */
  gc(): Promise<NodeJS.MemoryUsage>;
  /** Sends a signal; for a terminating one, waits until the process has exited. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** True while the process runs. */
  alive(): boolean;
  /** Shuts the replica down cleanly (SIGKILL if it does not exit within 5 s). */
  close(): Promise<void>;
}

// Replicas still running when the test process exits are killed, so no run leaves one behind.
const live = new Set<ChildProcess>();
let exitHook = false;

interface Pending {
  resolve: (value: Record<string, unknown>) => void;
  reject: (error: Error) => void;
  timer: ReturnType<typeof setTimeout>;
}

function exited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

async function waitForExit(child: ChildProcess, timeoutMs: number): Promise<boolean> {
  if (exited(child)) return true;
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/**
 * Forks a replica process and waits until it listens.
 *
 * @param config - its store and limits
 * @throws Error when dist is missing or the replica cannot start (with its standard error)
 */
export async function startReplica(config: ReplicaConfig): Promise<ReplicaProcess> {
  assertDistBuilt();
  const { exposeGc, ...rest } = config;
  const child = fork(FIXTURE, [JSON.stringify(rest)], {
    // Not the vitest worker's flags: the replica is a plain node process running dist.
    execArgv: exposeGc ? ['--expose-gc'] : [],
    stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    cwd: root('reliability'),
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  if (!exitHook) {
    exitHook = true;
    process.once('exit', () => {
      for (const c of live) c.kill('SIGKILL');
    });
  }
  let stderr = '';
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString('utf8')).slice(-4000);
  });

  const pending = new Map<number, Pending>();
  let nextId = 1;
  child.on('message', (message: { id?: number; ok?: boolean; error?: string }) => {
    const waiting = message.id === undefined ? undefined : pending.get(message.id);
    if (!waiting || message.id === undefined) return;
    pending.delete(message.id);
    clearTimeout(waiting.timer);
    if (message.ok) waiting.resolve(message as Record<string, unknown>);
    else waiting.reject(new Error(`replica: ${message.error ?? 'failed'}`));
  });
  child.once('exit', (code, signal) => {
    for (const [, waiting] of pending) {
      clearTimeout(waiting.timer);
      waiting.reject(new Error(`replica exited (${signal ?? code}) before answering: ${stderr}`));
    }
    pending.clear();
  });

  const ready = await new Promise<{ url: string; mcpUrl: string; pid: number }>(
    (resolve, reject) => {
      const timer = setTimeout(() => {
        child.kill('SIGKILL');
        reject(new Error(`replica did not start within 20 s: ${stderr}`));
      }, 20_000);
      child.on(
        'message',
        (message: { type?: string; url: string; mcpUrl: string; pid: number }) => {
          if (message.type !== 'ready') return;
          clearTimeout(timer);
          resolve(message);
        },
      );
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`replica exited (${signal ?? code}) while starting: ${stderr}`));
      });
    },
  );

  const request = (type: string, extra: object = {}, timeoutMs = 120_000) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      if (exited(child) || !child.connected) {
        reject(new Error('replica is not running'));
        return;
      }
      const id = nextId++;
      const timer = setTimeout(() => {
        pending.delete(id);
        reject(new Error(`replica did not answer ${type} within ${timeoutMs} ms`));
      }, timeoutMs);
      pending.set(id, { resolve, reject, timer });
      child.send({ id, type, ...extra });
    });

  const kill = async (signal: NodeJS.Signals = 'SIGKILL') => {
    if (exited(child)) return;
    child.kill(signal);
    if (signal !== 'SIGSTOP' && signal !== 'SIGCONT') await waitForExit(child, 10_000);
  };
  const close = async () => {
    if (exited(child)) return;
    child.kill('SIGCONT'); // a frozen process cannot shut down
    await request('close', {}, 5000).catch(() => {});
    if (!(await waitForExit(child, 5000))) await kill('SIGKILL');
  };

  return {
    url: ready.url,
    mcpUrl: ready.mcpUrl,
    pid: ready.pid,
    mint: async (count) => (await request('mint', { count })).tokens as string[],
    stats: async () => (await request('stats')) as Awaited<ReturnType<ReplicaProcess['stats']>>,
    gc: async () => (await request('gc')).memory as NodeJS.MemoryUsage,
    kill,
    alive: () => !exited(child),
    close,
    [Symbol.asyncDispose]: close,
  };
}
