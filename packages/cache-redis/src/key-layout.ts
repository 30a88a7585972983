import { S2SPError } from '@s2sp/core';
import { z } from 'zod';
/**
 * Where entries live in Redis. An entry stored under `<key>` (the SHA-256 hex of the token: the
 * store never sees a token) is a few keys sharing the hash tag `{<key>}`:
 *
 * - `<prefix>{<key>}` — a hash of metadata: `#c` (columns JSON array), `#n` (row count), `#b`
 *   (size in JSON characters, what the budget counts), `#k` (number of blocks), `#j` (bytes of
 *   the rows joined), `#s` (block size). Written last: an entry whose rows are still being
 *   written is invisible to `take` and `stats`.
 * - `<prefix>{<key>}:0`, `:1`, … — the blocks: the rows' UTF-8 JSON joined by commas, cut every
 *   `#s` bytes regardless of rows (see row-blocks). Their concatenation is the body of a
 *   whole-table response, so it is read with a few large binary GETs and written out as it is.
 * - `<prefix>{<key>}:o` — where each row ends in the joined bytes, 4 bytes per row (little
 *   endian), so a script reads row `i` with two `GETRANGE`s, whatever the table's size.
 *
 * The braces are a Redis Cluster hash tag: every key of an entry hashes to the same slot, so the
 * Lua scripts that touch them run on one node.
 *
 * @module
 */

/** The default key prefix. */
export const DEFAULT_KEY_PREFIX = 's2sp:';

/** Suffix of the offsets key of an entry. */
export const OFFSETS_SUFFIX = ':o';

/** Hash field of the number of rows. */
export const ROWS_FIELD = '#n';
/** Hash field of the size of the rows and columns, in JSON characters. */
export const BYTES_FIELD = '#b';

// A prefix is also used, unescaped, in a SCAN MATCH pattern, and braces would break the hash tag.
// Allowing only these characters keeps both simple and safe.
/** A key prefix: the one rule, for the `keyPrefix` option and {@link assertValidKeyPrefix}. */
export const KeyPrefixSchema: z.ZodString = z
  .string()
  .regex(/^[A-Za-z0-9:_.\-/|]{1,64}$/)
  .meta({ allowed: '1 to 64 letters, digits or ": _ . - / |" (such as "s2sp:" or "myapp:s2sp:")' });
// Storage keys are SHA-256 hex digests in practice; tests and other stores use short names.
const KEY_PATTERN = /^[A-Za-z0-9_.:-]{1,128}$/;

/**
 * Checks a key prefix.
 *
 * @throws S2SPError `invalid_config` when it is empty, too long, or has characters other than
 *   letters, digits and `: _ . - / |`
 */
export function assertValidKeyPrefix(prefix: unknown): asserts prefix is string {
  if (!KeyPrefixSchema.safeParse(prefix).success) {
    throw new S2SPError(
      'invalid_config',
      `keyPrefix must be 1 to 64 letters, digits or ": _ . - / |" (such as "s2sp:" or "myapp:s2sp:"), got ${JSON.stringify(prefix)}.`,
    );
  }
}

/**
 * Checks a storage key handed to the store.
 *
 * @throws S2SPError `invalid_config` for anything but 1 to 128 letters, digits or `_ . : -`
 */
export function assertValidStorageKey(key: unknown): asserts key is string {
  if (typeof key !== 'string' || !KEY_PATTERN.test(key)) {
    // The value is not echoed: whatever it is, it should have been a hash.
    throw new S2SPError(
      'invalid_config',
      'The storage key must be 1 to 128 letters, digits or "_ . : -" (a SHA-256 hex digest from tokenStorageKey).',
    );
  }
}

/** The Redis key of the entry stored under `key`. */
export function entryKey(prefix: string, key: string): string {
  return `${prefix}{${key}}`;
}

/** The key of block `index` of the entry whose main key is `entry`. */
export function blockKey(entry: string, index: number): string {
  return `${entry}:${index}`;
}

/** The key of the row offsets of the entry whose main key is `entry`. */
export function offsetsKey(entry: string): string {
  return `${entry}${OFFSETS_SUFFIX}`;
}

/** The SCAN MATCH pattern of every entry key under `prefix`. */
export function entryScanPattern(prefix: string): string {
  // The prefix holds no glob characters (see KeyPrefixSchema), so it needs no escaping. Only
  // main keys end with "}": blocks and offsets never match.
  return `${prefix}{*}`;
}

/**
 * The sorted set of the optional byte budget (see byte-budget). Without braces it is its own
 * hash tag (in a cluster it lives on one node, apart from the entries), and it never matches
 * {@link entryScanPattern}.
 */
export function budgetKey(prefix: string): string {
  return `${prefix}#budget`;
}
