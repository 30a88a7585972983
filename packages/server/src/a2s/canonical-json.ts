import { S2SPError } from '@s2sp/core';
import { isPlainObject } from '@s2sp/core/json';

/**
 * The canonical serialisation the checksum is computed over: JSON with object keys sorted by
 * UTF-16 code unit (as JavaScript's default sort does), no whitespace, strings and numbers as
 * `JSON.stringify` writes them — the JSON Canonicalization Scheme (RFC 8785) for documents made of
 * strings, integers, booleans, null, arrays and objects.
 *
 * @throws S2SPError `invalid_request` for values JSON cannot represent
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value === 'boolean' || typeof value === 'string')
    return JSON.stringify(value);
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw new S2SPError('invalid_request', 'A2S documents cannot hold NaN or Infinity.');
    return JSON.stringify(value);
  }
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isPlainObject(value)) {
    const members = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`);
    return `{${members.join(',')}}`;
  }
  throw new S2SPError(
    'invalid_request',
    `A2S documents hold only JSON values, not ${typeof value}.`,
  );
}
