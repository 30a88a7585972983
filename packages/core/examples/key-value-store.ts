// A body store on any key-value service that has expiry and an atomic get-and-delete (Memcached's
// gat/delete pair behind a lock, DynamoDB's DeleteItem with ReturnValues, Cloudflare Durable
// Objects, …), written only with the public exports of @s2sp/core. `describeBodyStoreContract`
// from @s2sp/core/testing runs against it in packages/core/test/key-value-store.test.ts.
import { S2SPError } from '@s2sp/core';
import {
  assertValidTtl,
  type BodyStore,
  type BodyStoreStats,
  encodeRows,
  type PutOptions,
  type StoredTable,
  selectRows,
  type TakenRows,
  tooManyRowIds,
} from '@s2sp/core/store';

/** What the store needs from the service. */
export interface KeyValueBackend {
  /** Stores `value` under `key`; the service drops it after `ttlMs`, with no request needed. */
  set(key: string, value: Uint8Array, ttlMs: number): Promise<void>;
  /** The value under `key`, or `undefined`. */
  get(key: string): Promise<Uint8Array | undefined>;
  /** Removes `key` and returns its value, atomically: of concurrent calls, one gets it. */
  getDel(key: string): Promise<Uint8Array | undefined>;
  /** Every live value, for `stats()`. */
  values(): Promise<Uint8Array[]>;
}

// One value per entry: a 4-byte length, a JSON header (columns and row ends), then the rows'
// UTF-8 JSON joined by commas, exactly as `encodeRows` lays them out for `selectRows`.
function encodeEntry(table: StoredTable): Uint8Array {
  const { joined, ends } = encodeRows(table);
  const header = new TextEncoder().encode(
    JSON.stringify({ columns: table.columns, ends: [...ends] }),
  );
  const value = new Uint8Array(4 + header.byteLength + joined.byteLength);
  new DataView(value.buffer).setUint32(0, header.byteLength);
  value.set(header, 4);
  value.set(joined, 4 + header.byteLength);
  return value;
}

function decodeEntry(value: Uint8Array): {
  columns: string[];
  ends: Uint32Array;
  joined: Uint8Array;
} {
  const length = new DataView(value.buffer, value.byteOffset).getUint32(0);
  const header = JSON.parse(new TextDecoder().decode(value.subarray(4, 4 + length))) as {
    columns: string[];
    ends: number[];
  };
  return {
    columns: header.columns,
    ends: Uint32Array.from(header.ends),
    joined: value.subarray(4 + length),
  };
}

/**
 * A `BodyStore` on a key-value service. Single use comes from the service's atomic get-and-delete;
 * expiry from its TTL. The row-count check reads the entry before taking it, so a request for
 * more rows than the table has leaves the entry for a correct retry.
 */
export function createKeyValueStore(backend: KeyValueBackend): BodyStore {
  return {
    async put(key: string, table: StoredTable, { ttlMs }: PutOptions): Promise<void> {
      assertValidTtl(ttlMs);
      try {
        await backend.set(key, encodeEntry(table), ttlMs);
      } catch (cause) {
        throw new S2SPError('unavailable', 'The S2SP cache cannot be reached. Retry in a moment.', {
          cause,
        });
      }
    },

    async take(key: string, rowIds?: readonly number[]): Promise<TakenRows | undefined> {
      if (rowIds) {
        const peeked = await backend.get(key);
        const rows = peeked && decodeEntry(peeked).ends.length;
        if (rows !== undefined && rowIds.length > rows) throw tooManyRowIds(rowIds.length, rows);
      }
      const value = await backend.getDel(key);
      return value && selectRows(decodeEntry(value), rowIds);
    },

    async stats(): Promise<BodyStoreStats> {
      let rows = 0;
      let bytes = 0;
      const values = await backend.values();
      for (const value of values) {
        const { ends, joined } = decodeEntry(value);
        rows += ends.length;
        bytes += joined.byteLength;
      }
      return { entries: values.length, rows, bytes };
    },

    async close(): Promise<void> {},
  };
}

/** An in-process stand-in for the service, with real expiry timers (for tests and demos). */
export function createMapBackend(): KeyValueBackend {
  const values = new Map<string, { value: Uint8Array; timer: ReturnType<typeof setTimeout> }>();
  const drop = (key: string) => {
    const held = values.get(key);
    if (held) clearTimeout(held.timer);
    values.delete(key);
    return held?.value;
  };
  return {
    async set(key, value, ttlMs) {
      drop(key);
      const timer = setTimeout(() => drop(key), ttlMs);
      (timer as { unref?: () => void }).unref?.();
      values.set(key, { value, timer });
    },
    async get(key) {
      return values.get(key)?.value;
    },
    async getDel(key) {
      return drop(key);
    },
    async values() {
      return [...values.values()].map((held) => held.value);
    },
  };
}
