import { S2SPError, type S2SPErrorCode } from '@s2sp/core';
import { NwsError } from './nws-error.js';

/**
 * The stable S2SP code for a failure of this app's tools. The server puts it in the tool error's
 * `_meta`, so that HTTP surfaces (SLOP) answer with a fitting status — 400 for a bad area or
 * point, 503 while NWS is busy, 504 on a timeout — instead of a generic 500.
 */
function codeOf(error: NwsError): S2SPErrorCode {
  switch (error.kind) {
    case 'timeout':
      return 'timeout';
    case 'network':
      return 'unavailable';
    case 'http':
      if (error.status === 429 || (error.status !== undefined && error.status >= 500)) {
        return 'unavailable';
      }
      // NWS's 400 (bad parameter) and 404 (a point outside its coverage) are the caller's to fix.
      return error.status === 400 || error.status === 404 ? 'invalid_request' : 'upstream_error';
    default:
      return 'upstream_error';
  }
}

/**
 * Runs a tool's NWS calls, re-throwing NWS failures as `S2SPError`s with a stable code and the
 * same message. Other errors pass through unchanged (the server reports them as `tool_error`).
 *
 * @param run - the handler body
 */
export async function withNwsErrors<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof NwsError) {
      throw new S2SPError(codeOf(error), error.message, { cause: error });
    }
    throw error;
  }
}

/**
 * Checks a tool's input with a parser that throws a descriptive `Error`
 * (`parseAreaCode`, `parseCoordinates`), turning its failure into an `invalid_request`.
 *
 * @param parse - the check
 * @returns what the parser returned
 * @throws S2SPError `invalid_request` with the parser's message
 */
export function validInput<T>(parse: () => T): T {
  try {
    return parse();
  } catch (error) {
    throw new S2SPError('invalid_request', error instanceof Error ? error.message : String(error), {
      cause: error,
    });
  }
}
