/**
 * Reading a data-plane request (PROTOCOL §3 and the exact body rules of §7.8): the content type,
 * the body text and the row ids to ask the store for.
 *
 * @module
 */

import { type DataPlaneRequest, DataPlaneRequestSchema, S2SPError } from '@s2sp/core';
import { sendDataPlaneRequest } from '@s2sp/core/advice';
import { describeType, formatIssues, isPlainObject, parseJsonText } from '@s2sp/core/json';

/** Default maximum size of a data-plane request body: 1 MiB. */
export const DEFAULT_MAX_REQUEST_BYTES = 1024 * 1024;

const JSON_WHITESPACE = /^[ \t\n\r]*$/;

/** True when `text` is empty or only JSON whitespace (space, tab, LF, CR; RFC 8259 §2). */
export function isJsonWhitespace(text: string): boolean {
  return JSON_WHITESPACE.test(text);
}

/**
 * True for `application/json`, optionally with `charset=utf-8` (any case, quoted or not), and
 * nothing else (PROTOCOL §3): not `text/plain`, not `application/x+json`, no other charset and no
 * other parameter.
 *
 * @param contentType - the `Content-Type` header, if any
 */
export function isJsonContentType(contentType: string | null | undefined): boolean {
  if (!contentType) return false;
  const [type, ...parameters] = contentType.split(';');
  if (type?.trim().toLowerCase() !== 'application/json') return false;
  return parameters.every((parameter) => {
    const trimmed = parameter.trim();
    if (trimmed === '') return true;
    const match = /^charset\s*=\s*("?)utf-8\1$/i.exec(trimmed);
    return match !== null;
  });
}

/**
 * Parses a data-plane request body from its text. An empty body (or JSON whitespace only) counts
 * as `{}`.
 *
 * @param text - the raw request body
 * @throws S2SPError `invalid_request` for bad JSON, a non-object, or wrong member types
 */
export function parseDataPlaneRequest(text: string): DataPlaneRequest {
  // JSON's own whitespace only: `trim()` also strips U+00A0, U+2028, U+FEFF…, which JSON does not
  // allow, and a body of those must be a 400 that keeps the token, not an empty `{}` that uses it.
  if (isJsonWhitespace(text)) return {};
  const json = parseJsonText(
    text,
    () =>
      new S2SPError(
        'invalid_request',
        `The request body is not valid JSON. ${sendDataPlaneRequest}`,
      ),
  );
  if (!isPlainObject(json)) {
    throw new S2SPError(
      'invalid_request',
      `The request body is ${describeType(json)}, not a JSON object. ${sendDataPlaneRequest}`,
    );
  }
  const parsed = DataPlaneRequestSchema.safeParse(json);
  if (!parsed.success) {
    throw new S2SPError(
      'invalid_request',
      `Invalid data-plane request: ${formatIssues(parsed.error)}. ${sendDataPlaneRequest}`,
    );
  }
  return parsed.data;
}

/**
 * The row ids to ask the store for: `undefined` (all rows) when none were requested, otherwise
 * deduplicated and in ascending (table) order.
 */
export function requestedRowIds(request: DataPlaneRequest): number[] | undefined {
  const ids = request.row_ids;
  if (!ids || ids.length === 0) return undefined;
  return [...new Set(ids)].sort((a, b) => a - b);
}
