import type { BodyStore } from '@s2sp/core/store';

/** The JSON of the `weather://cache` resource. */
export interface CacheStatus {
  /** Tables waiting on the data plane for their single redemption. */
  readonly entries: number;
  /** Rows across those tables. */
  readonly rows: number;
  /** Size of those rows, in JSON characters. */
  readonly bytes: number;
  /** Lifetime of a `resource_url`, in seconds. */
  readonly ttl_seconds: number;
}

/**
 * What the data plane holds right now, from the store's counters. Unlike the Python reference
 * (which lists entries by resource id), it names no entry: an id there is a live token, and a
 * resource any MCP client can read must not hand out other agents' data.
 *
 * @param store - the server's body store
 * @param ttlSeconds - the configured `resource_url` lifetime
 */
export async function cacheStatus(store: BodyStore, ttlSeconds: number): Promise<CacheStatus> {
  const { entries, rows, bytes } = await store.stats();
  return { entries, rows, bytes, ttl_seconds: ttlSeconds };
}
