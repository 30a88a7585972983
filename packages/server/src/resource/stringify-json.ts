import { S2SPError, type S2SPErrorCode } from '@s2sp/core';
import { returnJsonValues } from '../advice.js';

/**
 * `JSON.stringify` that reports failures (BigInt, cycles) as an {@link S2SPError} naming what was
 * being serialised, instead of a bare TypeError.
 */
export function stringifyJson(
  value: unknown,
  what: string,
  code: S2SPErrorCode = 'invalid_rows',
): string {
  try {
    return JSON.stringify(value);
  } catch (cause) {
    const reason = cause instanceof Error ? cause.message : String(cause);
    throw new S2SPError(
      code,
      `${what} cannot be serialised to JSON (${reason}). ${returnJsonValues}`,
      { cause },
    );
  }
}
