/**
 * What the loads of one server under test cost Redis, for the bench's server process: the
 * commands' own time (`INFO commandstats`, every command but the bench's own) and the Redis
 * process's CPU (`INFO cpu`, all its threads), since the last reading, minting left out. Figures
 * the machine's load moves far less than a latency.
 *
 * The CPU includes freeing what the takes deleted, which Redis does on its main thread outside
 * any command (a taken table's blocks expire and its active expiry frees them): up to ~65 µs per
 * MiB when hundreds of megabytes go at once. So every reading, and every mint, first waits until
 * Redis has freed what the last load left ({@link RedisMeter.settle}).
 *
 * @module
 */
import { createClient } from 'redis';

/** What a load cost Redis, in µs. */
export interface RedisSpent {
  /** Its commands' own time. */
  readonly usec: number;
  /** The Redis process's CPU, freeing included. */
  readonly cpuUs: number;
}

/** See the module's comment. Without a Redis URL every method is a no-op reading zeros. */
export interface RedisMeter {
  /**
   * Waits until Redis has freed what the last load left to expire (a taken table's blocks expire
   * within a millisecond, and Redis frees them over the next ~100 ms): done when its key count
   * holds still for 50 ms, or after 2 s.
   */
  settle(): Promise<void>;
  /** Runs `work` (minting), settled first, and leaves what it cost Redis out of {@link read}. */
  excluding<T>(work: () => Promise<T>): Promise<T>;
  /** What Redis spent since the last reading, minting left out, once it has settled. */
  read(): Promise<RedisSpent>;
}

/** Creates a {@link RedisMeter} for the Redis at `url`, if any. */
export function createRedisMeter(url: string | undefined): RedisMeter {
  const admin = url ? createClient({ url }) : undefined;
  admin?.on('error', () => {}); // Redis stopping before this process must not crash it
  const connected = async () => {
    if (admin && !admin.isOpen) await admin.connect();
    return admin;
  };
  const usec = async () => {
    const redis = await connected();
    if (!redis) return 0;
    let spent = 0;
    const info = await redis.info('commandstats');
    for (const [, name, time] of info.matchAll(/cmdstat_([^:]+):calls=\d+,usec=(\d+)/g))
      if (!/^(info|config|client)/.test(name as string)) spent += Number(time);
    return spent;
  };
  const cpuUs = async () => {
    const redis = await connected();
    if (!redis) return 0;
    const info = await redis.info('cpu');
    const seconds = (name: string) => Number(info.match(new RegExp(`${name}:([0-9.]+)`))?.[1] ?? 0);
    return Math.round((seconds('used_cpu_sys') + seconds('used_cpu_user')) * 1e6);
  };
  const settle = async () => {
    const redis = await connected();
    if (!redis) return;
    const until = Date.now() + 2000;
    let last = -1;
    for (let keys = await redis.dbSize(); keys !== last && Date.now() < until; ) {
      last = keys;
      await new Promise((resolve) => setTimeout(resolve, 50));
      keys = await redis.dbSize();
    }
  };
  const last = { usec: 0, cpuUs: 0 };
  const left = { usec: 0, cpuUs: 0 };
  return {
    settle,
    async excluding(work) {
      await settle();
      const before = { usec: await usec(), cpuUs: await cpuUs() };
      try {
        return await work();
      } finally {
        left.usec += (await usec()) - before.usec;
        left.cpuUs += (await cpuUs()) - before.cpuUs;
      }
    },
    async read() {
      await settle();
      const now = { usec: await usec(), cpuUs: await cpuUs() };
      const spent = {
        usec: now.usec - last.usec - left.usec,
        cpuUs: now.cpuUs - last.cpuUs - left.cpuUs,
      };
      Object.assign(last, now);
      Object.assign(left, { usec: 0, cpuUs: 0 });
      return spent;
    },
  };
}
