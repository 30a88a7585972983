import type { BodyStore } from '@s2sp/core';

/** A store the benchmarks run against. */
export interface StoreUnderTest {
  readonly name: string;
  /** A fresh, empty store. */
  make(): Promise<BodyStore>;
  /** Memory used by the store's backend, in bytes, when it can be read (Redis `used_memory`). */
  usedMemory?(): Promise<number>;
  /** Empties the backend between benchmarks. */
  flush?(): Promise<void>;
}
