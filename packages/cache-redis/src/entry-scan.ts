/**
 * Counting live entries for `stats()`: SCAN every master for main keys and read their metadata.
 *
 * @module
 */

import type { BodyStoreStats } from '@s2sp/core/store';
import { corrupt, text } from './entry-reader.js';
import { BYTES_FIELD, entryScanPattern, ROWS_FIELD } from './key-layout.js';
import type { NodeSender } from './redis-connection.js';
import { withTimeout } from './store-errors.js';

/**
 * Counts the complete entries under `keyPrefix` on one node. An entry without metadata (expired
 * meanwhile, still being written, or taken) is not live and not counted.
 */
export async function scanNode(
  send: NodeSender,
  keyPrefix: string,
  commandTimeoutMs: number,
): Promise<BodyStoreStats> {
  const pattern = entryScanPattern(keyPrefix);
  const seen = new Set<string>(); // SCAN may return a key more than once
  const totals = { entries: 0, rows: 0, bytes: 0 };
  let cursor = '0';
  do {
    const reply = await withTimeout(
      send(['SCAN', cursor, 'MATCH', pattern, 'COUNT', '1000']),
      commandTimeoutMs,
    );
    if (!Array.isArray(reply) || !Array.isArray(reply[1]))
      throw corrupt('an unexpected reply to SCAN');
    cursor = text(reply[0]) ?? '0';
    const keys = (reply[1] as unknown[])
      .map((key) => text(key))
      .filter((key): key is string => key !== undefined && !seen.has(key));
    for (const key of keys) seen.add(key);
    const metas = await Promise.all(
      keys.map((key) =>
        withTimeout(send(['HMGET', key, ROWS_FIELD, BYTES_FIELD]), commandTimeoutMs),
      ),
    );
    for (const meta of metas) {
      const rows = Array.isArray(meta) ? text(meta[0]) : undefined;
      if (rows === undefined) continue;
      totals.entries++;
      totals.rows += Number(rows);
      totals.bytes += Number(text((meta as unknown[])[1]) ?? 0);
    }
  } while (cursor !== '0');
  return totals;
}

/** Adds up per-node counts. */
export function sumStats(nodes: readonly BodyStoreStats[]): BodyStoreStats {
  return nodes.reduce(
    (sum, node) => ({
      entries: sum.entries + node.entries,
      rows: sum.rows + node.rows,
      bytes: sum.bytes + node.bytes,
    }),
    { entries: 0, rows: 0, bytes: 0 },
  );
}
