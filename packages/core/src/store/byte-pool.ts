/**
 * Buffers a store hands out again once their table has been written out. A single-use table is
 * allocated when its tool call caches it and dropped right after its one redemption; at the rate
 * a server mints them, each a megabyte or more of memory outside the JavaScript heap, the engine
 * answers that churn with a full collection every few dozen tables (the bench's memory store spent
 * about a seventh of its whole-table time in them). Reusing the buffers takes the churn away.
 *
 * The rule that keeps it safe: a buffer is given back only by whoever knows that nothing reads it
 * any more (the data plane, once its response has been written out). A buffer not made here, or
 * given back while it is free already, is ignored, and the bytes a reused buffer held beyond its new length are zeroed,
 * so a view never shows another table's rows.
 *
 * @module
 */

/** Allocates `size` bytes (the contents are not defined). */
export type ByteAllocator = (size: number) => Uint8Array;

/** Options of {@link createBytePool}. */
export interface BytePoolOptions {
  /**
   * Most bytes of free buffers that may be kept now, asked whenever one is given back or made
   * anew (the memory store answers: what its budget has left after its live entries).
   */
  readonly maxFreeBytes: () => number;
  /** Free buffers are all dropped once none has been reused for this long, in ms. Default 30 s. */
  readonly idleMs?: number;
}

/** A pool of reusable buffers (see the module's comment). */
export interface BytePool {
  /** A buffer of `size` bytes: a reused one when one of its size class is free. */
  readonly allocate: ByteAllocator;
  /**
   * Gives back the buffer under `bytes` (a view of one {@link allocate} returned) for reuse. Call
   * it only when nothing reads those bytes any more; ignored for a buffer made elsewhere or one
   * that is free already.
   */
  give(bytes: Uint8Array): void;
  /** Drops every free buffer. */
  clear(): void;
  /** Bytes of the free buffers kept. */
  readonly freeBytes: number;
}

/** Smallest size pooled: below it the engine's own allocation is as cheap, and churns little. */
export const POOLED_MIN_BYTES = 64 * 1024;
/**
 * Largest size pooled: a larger table is rare enough not to churn, and its class's eighth would
 * be megabytes held beyond what it asked for.
 */
export const POOLED_MAX_BYTES = 64 * 1024 * 1024;
/** Size classes per doubling: a buffer is at most 1/8 larger than asked for. */
const CLASSES_PER_DOUBLING = 8;

/** The capacity of the size class that holds `size` bytes. */
export function sizeClass(size: number): number {
  const power = 2 ** Math.floor(Math.log2(size));
  const step = power / CLASSES_PER_DOUBLING;
  return Math.ceil(size / step) * step;
}

/**
 * Creates a {@link BytePool}. Sizes under {@link POOLED_MIN_BYTES} or over {@link POOLED_MAX_BYTES}
 * are allocated plainly and never kept; free buffers never add up to more than `maxFreeBytes()`,
 * and go when the pool is idle.
 */
export function createBytePool({ maxFreeBytes, idleMs = 30_000 }: BytePoolOptions): BytePool {
  const free = new Map<number, ArrayBuffer[]>();
  // Only buffers made here come back, each once: a WeakMap from buffer to "is free".
  const made = new WeakMap<ArrayBuffer, boolean>();
  let freeBytes = 0;
  let reusedAt = 0;
  let idle: ReturnType<typeof setTimeout> | undefined;

  const clear = () => {
    for (const list of free.values()) for (const buffer of list) made.delete(buffer);
    free.clear();
    freeBytes = 0;
    if (idle !== undefined) clearTimeout(idle);
    idle = undefined;
  };
  // Drops free buffers, largest classes first, until at most `limit` bytes are kept.
  const trim = (limit: number) => {
    const classes = [...free.keys()].sort((a, b) => b - a);
    for (const capacity of classes) {
      const list = free.get(capacity) as ArrayBuffer[];
      while (freeBytes > limit && list.length > 0) {
        made.delete(list.pop() as ArrayBuffer);
        freeBytes -= capacity;
      }
      if (list.length === 0) free.delete(capacity);
      if (freeBytes <= limit) return;
    }
  };
  const watchIdle = () => {
    if (idle !== undefined) return;
    const check = () => {
      idle = undefined;
      if (Date.now() - reusedAt >= idleMs) clear();
      else watchIdle();
    };
    idle = setTimeout(check, idleMs);
    // unref is Node/Bun/Deno only; in browsers there is no process to keep alive.
    (idle as { unref?: () => void }).unref?.();
  };

  return {
    allocate(size) {
      if (size < POOLED_MIN_BYTES || size > POOLED_MAX_BYTES) return new Uint8Array(size);
      const capacity = sizeClass(size);
      const reused = free.get(capacity)?.pop();
      if (!reused) {
        // A buffer made anew counts against what may be kept: free ones make room for it.
        trim(Math.max(0, maxFreeBytes() - capacity));
        const buffer = new ArrayBuffer(capacity);
        made.set(buffer, false);
        return new Uint8Array(buffer, 0, size);
      }
      made.set(reused, false);
      freeBytes -= capacity;
      reusedAt = Date.now();
      // What lies past the new length was another table's: never left where a view could reach.
      new Uint8Array(reused, size).fill(0);
      return new Uint8Array(reused, 0, size);
    },
    give(bytes) {
      const buffer = bytes.buffer;
      if (!(buffer instanceof ArrayBuffer) || made.get(buffer) !== false) return;
      if (freeBytes + buffer.byteLength > maxFreeBytes()) return;
      made.set(buffer, true);
      freeBytes += buffer.byteLength;
      const list = free.get(buffer.byteLength);
      if (list) list.push(buffer);
      else free.set(buffer.byteLength, [buffer]);
      if (reusedAt === 0) reusedAt = Date.now();
      watchIdle();
    },
    clear,
    get freeBytes() {
      return freeBytes;
    },
  };
}
