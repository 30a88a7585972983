/**
 * Deadlines in the Redis server's clock. A take carries the moment after which it must not run
 * (see the TAKE script); the moment is computed from the local clock plus the measured offset of
 * the Redis clock, so the two machines need not agree on the time.
 *
 * @module
 */

/** Parses a `TIME` reply (`[seconds, microseconds]`) into milliseconds. */
export function parseRedisTime(reply: unknown): number {
  if (!Array.isArray(reply) || reply.length < 2) throw new Error('unexpected TIME reply');
  const seconds = Number(String(reply[0]));
  const micros = Number(String(reply[1]));
  if (!Number.isFinite(seconds) || !Number.isFinite(micros))
    throw new Error('unexpected TIME reply');
  return seconds * 1000 + Math.floor(micros / 1000);
}

/** Measures and caches the offset between the local clock and Redis's. */
export class RedisClock {
  #offset: number | undefined;
  #uncertainty = 0;
  #measuredAt = 0;
  #pending: Promise<void> | undefined;

  /**
   * @param readTime - sends `TIME` (with the store's timeout)
   * @param refreshMs - how often the offset is measured again, in the background
   * @param now - the local clock
   */
  constructor(
    private readonly readTime: () => Promise<unknown>,
    private readonly refreshMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Forgets the offset, so the next deadline measures it again (Redis may have moved host). */
  reset(): void {
    this.#offset = undefined;
  }

  #measure(): Promise<void> {
    this.#pending ??= (async () => {
      try {
        const sent = this.now();
        const redisNow = parseRedisTime(await this.readTime());
        const received = this.now();
        // Redis read its clock somewhere during the round trip: assume the middle, and remember
        // how wrong that can be.
        this.#offset = redisNow - (sent + received) / 2;
        this.#uncertainty = (received - sent) / 2;
        this.#measuredAt = received;
      } finally {
        this.#pending = undefined;
      }
    })();
    return this.#pending;
  }

  /**
   * The Redis time at which a command must no longer run, for a caller that gives up waiting at
   * local time `giveUpAt`. It leaves a margin (a quarter of the timeout, at most 250 ms, plus the
   * measurement's uncertainty) for the answer's way back, so a command that runs in time is
   * normally answered in time too.
   *
   * @param giveUpAt - local time (ms) at which the caller stops waiting
   * @param timeoutMs - the caller's whole timeout, which sizes the margin
   */
  async deadline(giveUpAt: number, timeoutMs: number): Promise<number> {
    if (this.#offset === undefined) await this.#measure();
    return this.knownDeadline(giveUpAt, timeoutMs) as number;
  }

  /**
   * {@link RedisClock.deadline} without waiting: `undefined` while the offset is not known yet.
   * A take calls it first, so the usual case costs no timer and no promise.
   */
  knownDeadline(giveUpAt: number, timeoutMs: number): number | undefined {
    if (this.#offset === undefined) return undefined;
    if (this.now() - this.#measuredAt > this.refreshMs) this.#measure().catch(() => {});
    const margin = Math.min(timeoutMs / 4, 250) + this.#uncertainty + 1;
    return Math.floor(giveUpAt + this.#offset - margin);
  }
}
