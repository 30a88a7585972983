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

/**
 * How long Redis's key count must hold still to call it settled: longer than two of its expiry
 * cycles (`hz` 10: one every 100 ms while no client sends anything). Settled after 50 ms, it was
 * often between two cycles, and the next server's run paid for the rest: raw Redis's one `GET`
 * at 100,000 rows came out at 471 µs of Redis CPU, its own being under 50.
 */
const STILL_MS = 250;

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
   * within a millisecond, and Redis frees them in its expiry cycles): done when its key count
   * holds still for {@link STILL_MS}, or after 10 s.
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
    const until = Date.now() + 10_000;
    let keys = await redis.dbSize();
    for (let stillSince = Date.now(); Date.now() - stillSince < STILL_MS && Date.now() < until; ) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      const now = await redis.dbSize();
      if (now !== keys) stillSince = Date.now();
      keys = now;
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
