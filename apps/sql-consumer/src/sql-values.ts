import { DuckDBTypeId, type JS } from '@duckdb/node-api';

/**
 * A DuckDB value (as `@duckdb/node-api`'s JS converter gives it) as plain JSON: integers beyond
 * 2^53 and HUGEINTs as decimal strings (never a rounded number), timestamps as ISO 8601 strings,
 * dates as `YYYY-MM-DD`, non-finite numbers as `null`, blobs as base64, lists and structs
 * converted member by member.
 *
 * @param value - the converted value
 * @param typeId - the column's type, to tell a DATE from a TIMESTAMP (both arrive as `Date`)
 */
export function toJsonValue(value: JS, typeId?: DuckDBTypeId): unknown {
  if (value === null) return null;
  if (typeof value === 'bigint')
    return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
      ? Number(value)
      : value.toString();
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (value instanceof Date) {
    if (Number.isNaN(value.getTime())) return null;
    const iso = value.toISOString();
    return typeId === DuckDBTypeId.DATE ? iso.slice(0, 10) : iso;
  }
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (Array.isArray(value)) return value.map((item) => toJsonValue(item));
  if (typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) {
      // Defined, not assigned: a "__proto__" member stays a member.
      Object.defineProperty(out, key, {
        value: toJsonValue(item),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return out;
  }
  return value;
}
