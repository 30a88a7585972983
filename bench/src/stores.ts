import { generateToken, tokenStorageKey } from '@s2sp/core';
import type { BodyStore, StoredTable } from '@s2sp/core/store';

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

/** Caches `table` under `count` fresh tokens (each redeemable once), as `count` tool calls would. */
export async function mintTokens(
  store: BodyStore,
  table: StoredTable,
  count: number,
): Promise<string[]> {
  const tokens = Array.from({ length: count }, generateToken);
  for (const token of tokens)
    await store.put(await tokenStorageKey(token), table, { ttlMs: 600_000 });
  return tokens;
}
