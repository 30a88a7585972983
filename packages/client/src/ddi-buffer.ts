import { generateToken, PROTOCOL, type RowWithId, S2SPError } from '@s2sp/core';
import { parseOptions, positiveInteger, positiveNumber } from '@s2sp/core/options';
import { z } from 'zod';
import { callResourceToolAgainSync } from './advice.js';

/** Options for {@link DdiBuffer}. */
export interface DdiBufferOptions {
  /**
   * Most bodies held at once; the oldest is dropped beyond it (its handle then fails with a
   * clear error). Default 256.
   */
  readonly maxEntries?: number;
  /** How long a handle stays usable, in ms. Default 30 minutes. */
  readonly ttlMs?: number;
}

/** The options of {@link DdiBuffer}: their rules and defaults. */
const DdiBufferOptionsSchema = z.object({
  maxEntries: positiveInteger().default(256),
  ttlMs: positiveNumber()
    .default(30 * 60_000)
    .meta({ type: 'ms' }),
} satisfies Record<keyof DdiBufferOptions, z.ZodType>);

interface Entry {
  readonly rows: RowWithId[];
  readonly expiresAt: number;
}

/**
 * An in-process buffer of sync-mode bodies (PROTOCOL §5): body rows wait here, under a fresh
 * `ddi://` handle, between the resource tool's result and the consumer tool's call, so they pass
 * through the agent process but never through the model. Handles carry 256 random bits and
 * work once.
 */
export class DdiBuffer {
  readonly #entries = new Map<string, Entry>();
  readonly #maxEntries: number;
  readonly #ttlMs: number;

  /**
   * @param options - capacity and lifetime of handles
   * @throws S2SPError `invalid_config` for a non-positive or fractional capacity or lifetime
   */
  constructor(options: DdiBufferOptions = {}) {
    const { maxEntries, ttlMs } = parseOptions(DdiBufferOptionsSchema, options, {
      factory: 'DdiBuffer',
    });
    this.#maxEntries = maxEntries;
    this.#ttlMs = ttlMs;
  }

  /** True if `value` is a `ddi://` handle (known or not). */
  static isHandle(value: unknown): value is string {
    return typeof value === 'string' && value.startsWith(PROTOCOL.ddiScheme);
  }

  /**
   * Buffers body rows.
   * @returns a fresh single-use handle
   */
  put(rows: RowWithId[]): string {
    this.#sweep();
    while (this.#entries.size >= this.#maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest === undefined) break;
      this.#entries.delete(oldest);
    }
    const handle = `${PROTOCOL.ddiScheme}${generateToken()}`;
    this.#entries.set(handle, { rows, expiresAt: Date.now() + this.#ttlMs });
    return handle;
  }

  /**
   * Removes and returns the rows behind a handle.
   * @throws S2SPError `not_found` for an unknown, used or expired handle — never an empty body,
   *   which a consumer would silently process as "no data"
   */
  take(handle: string): RowWithId[] {
    const entry = this.#entries.get(handle);
    this.#entries.delete(handle);
    if (!entry || Date.now() >= entry.expiresAt) {
      throw new S2SPError(
        'not_found',
        `This ddi:// resource_url is unknown, expired or already used (each works once). ${callResourceToolAgainSync}`,
      );
    }
    return entry.rows;
  }

  /** True while `handle` can still be taken. */
  has(handle: string): boolean {
    const entry = this.#entries.get(handle);
    return entry !== undefined && Date.now() < entry.expiresAt;
  }

  /** Handles not yet used. */
  get size(): number {
    this.#sweep();
    return this.#entries.size;
  }

  /** Drops every buffered body. */
  clear(): void {
    this.#entries.clear();
  }

  // Entries share one TTL, so insertion order is expiry order: stop at the first live one.
  #sweep(): void {
    const now = Date.now();
    for (const [handle, entry] of this.#entries) {
      if (entry.expiresAt > now) break;
      this.#entries.delete(handle);
    }
  }
}
