import { loadavg } from 'node:os';
import { type ChildHandle, startChild } from './child.js';
import type { LoadResult } from './http-load.js';

/** Which server a measurement is made against. */
/**
 * The servers a lab can run. `redis` redeems tables it wrote itself (served from its near cache);
 * `redis-peer` redeems tables another replica wrote (read from Redis), as a replica behind a load
 * balancer mostly does.
 */
export type ServerKind =
  | 'floor'
  | 'raw-redis'
  | 'memory'
  | 'redis'
  | 'redis-peer'
  | 'python'
  | 'python-fresh';

/** The Redis store's two kinds (see {@link ServerKind}). */
export const REDIS_STORES: ReadonlySet<ServerKind> = new Set(['redis', 'redis-peer']);

/** The data planes over a store, which the targets judge: the memory store and both Redis kinds. */
export const STORES: ReadonlySet<ServerKind> = new Set(['memory', ...REDIS_STORES]);

/** How a store kind's rows are named. */
export const STORE_NAME: Readonly<Partial<Record<ServerKind, string>>> = {
  memory: 'memory store',
  redis: 'redis store, tables it wrote (near cache)',
  'redis-peer': 'redis store, tables another replica wrote',
};

/** A server process of the lab. */
export interface LabServer {
  readonly kind: ServerKind;
  readonly port: number;
  readonly process: ChildHandle;
}

/**
 * The benchmark lab: every server under test in its own process, and one load-generator process.
 * The orchestrator (this process) only sends instructions and collects numbers, so no two of
 * client, server and floor ever share an event loop.
 */
export interface Lab {
  readonly servers: ReadonlyMap<ServerKind, LabServer>;
  /** Builds the table of `size` rows in every server; returns the whole-table body's bytes. */
  prepare(size: number): Promise<number>;
  /**
   * Runs one load: fresh tokens per request on data-plane servers (minted first, not timed), the
   * same path on the floors.
   */
  load(
    kind: ServerKind,
    options: {
      concurrency: number;
      requests: number;
      body?: string;
      accept?: string;
      /** The floors: send a fresh copy of the body per request (minted first, not timed). */
      fresh?: boolean;
      /**
       * Raw Redis: read each fresh copy with `GETDEL`, so it is deleted as it is read, as a
       * single-use store deletes what it redeems (implies `fresh`).
       */
      deleted?: boolean;
    },
  ): Promise<LoadResult>;
  /** The load process, for requests other than `load`. */
  readonly client: ChildHandle;
  /** The server process's memory usage. */
  memory(kind: ServerKind): Promise<{ rss: number; heapUsed: number; external: number }>;
  close(): Promise<void>;
}

/** The 1-minute load average, rounded (other work on the machine skews every timing). */
export function loadAverage(): number {
  return Math.round((loadavg()[0] ?? 0) * 100) / 100;
}

/**
 * The flags of every Node process of the lab. Without `--no-memory-reducer`, V8 shrinks an idle
 * process's heap and the next load pays for growing it again: measured in turns with the other
 * servers (section 3), the memory store's 10-row fetch at 1,000 rows took 0.23 ms and 255 µs of
 * CPU against 0.16 ms and 173 µs with the flag, the bare floor 0.12 ms against 0.085 ms. A server
 * under steady load never idles long enough for it, which is what the lab measures.
 */
const NODE_FLAGS = ['--expose-gc', '--no-memory-reducer'];

/** Starts a lab with the given servers (`redisUrl` for the Redis ones). */
export async function startLab(kinds: readonly ServerKind[], redisUrl?: string): Promise<Lab> {
  const servers = new Map<ServerKind, LabServer>();
  const children: ChildHandle[] = [];
  try {
    const client = await startChild('load-process', [], NODE_FLAGS);
    children.push(client);
    for (const kind of kinds) {
      const child = await startChild('server-process', [kind, redisUrl ?? ''], NODE_FLAGS);
      children.push(child);
      servers.set(kind, { kind, process: child, port: await child.call<number>({ op: 'port' }) });
    }
    const server = (kind: ServerKind) => {
      const found = servers.get(kind);
      if (!found) throw new Error(`no ${kind} server in this lab`);
      return found;
    };
    return {
      servers,
      client,
      async prepare(size) {
        let bytes = 0;
        for (const s of servers.values())
          bytes = await s.process.call<number>({ op: 'prepare', size });
        return bytes;
      },
      async load(kind, options) {
        const s = server(kind);
        const dataPlane = kind !== 'floor' && kind !== 'raw-redis';
        const deleted = kind === 'raw-redis' && options.deleted === true;
        const fresh =
          deleted || ((kind === 'raw-redis' || kind === 'floor') && options.fresh === true);
        const paths =
          dataPlane || fresh
            ? (await s.process.call<string[]>({ op: 'mint', count: options.requests })).map((id) =>
                deleted ? `/taken/${id}` : fresh ? `/fresh/${id}` : `/s2sp/data/${id}`,
              )
            : ['/floor'];
        return client.call<LoadResult>({
          op: 'load',
          port: s.port,
          paths,
          body: options.body ?? '{}',
          concurrency: options.concurrency,
          requests: options.requests,
          ...(options.accept ? { accept: options.accept } : {}),
        });
      },
      memory: (kind) => server(kind).process.call({ op: 'memory' }),
      async close() {
        await Promise.all(children.map((c) => c.close()));
      },
    };
  } catch (error) {
    await Promise.all(children.map((c) => c.close()));
    throw error;
  }
}
