import { S2SPError } from '@s2sp/core';
import { describeType } from '@s2sp/core/json';
import { passFilterInstead } from '../advice.js';

/** Most `row_ids` a consumer call may name (PROTOCOL §7.4, hand-off by row ids). */
export const MAX_HANDOFF_ROW_IDS = 100_000;

/**
 * Reads a consumer's `row_ids` (already JSON-parsed): non-negative integers, deduplicated in the
 * order given.
 *
 * @returns the ids, or `undefined` when absent
 * @throws S2SPError `invalid_request` for anything else, an empty list or too many ids
 */
export function parseRowIds(value: unknown): number[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    throw new S2SPError(
      'invalid_request',
      `row_ids must be a JSON array of _row_id integers such as [0, 3, 7], but it is ${describeType(value)}.`,
    );
  }
  if (value.length > MAX_HANDOFF_ROW_IDS) {
    throw new S2SPError(
      'invalid_request',
      `row_ids lists ${value.length} ids; at most ${MAX_HANDOFF_ROW_IDS} are allowed. ${passFilterInstead}`,
    );
  }
  if (value.length === 0) {
    throw new S2SPError(
      'invalid_request',
      'row_ids is empty. Pass the _row_id of at least one row.',
    );
  }
  value.forEach((id: unknown, i) => {
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) {
      throw new S2SPError(
        'invalid_request',
        `row_ids[${i}] is ${JSON.stringify(id) ?? describeType(id)}, not a _row_id (a non-negative integer).`,
      );
    }
  });
  return [...new Set(value as number[])];
}
