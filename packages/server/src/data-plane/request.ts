/**
 * Reading a data-plane request (PROTOCOL §3 and the exact body rules of §7.8): the content type,
 * the body text and the row ids to ask the store for.
 *
 * @module
 */

import {
  type DataPlaneRequest,
  DataPlaneRequestSchema,
  S2SPError,
  tokenStorageKey,
} from '@s2sp/core';
import { describeType, formatIssues, isPlainObject, parseJsonText } from '@s2sp/core/json';
import { sendDataPlaneRequest, sendIdempotencyKey } from '../advice.js';

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
  // `{}`, every whole-table request of the reference's consumer and ours: nothing to check.
  if (text === '{}' || isJsonWhitespace(text)) return {};
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

// base64url's alphabet (a UUID's hex and dashes fit too), 22 to 128 characters: 22 base64url
// characters carry 132 bits. Hex carries 4 bits a character, so a key of hex digits alone needs 32.
const IDEMPOTENCY_KEY = /^[A-Za-z0-9_-]{22,128}$/;
const HEX_ONLY = /^[0-9A-Fa-f]+$/;

/**
 * Checks the `Idempotency-Key` header of a retry-safe redemption (PROTOCOL §7.10): absent, or 22
 * to 128 characters from `A-Z a-z 0-9 - _` holding at least 128 bits (32 characters when they are
 * all hex digits). Checked before the token is looked up, so a bad key never uses the token.
 *
 * @param header - the header's value, if any
 * @returns the key, or `undefined` when there is none
 * @throws S2SPError `invalid_request` for a key that is not one (the value is not echoed)
 */
export function parseIdempotencyKey(header: string | null | undefined): string | undefined {
  if (header === undefined || header === null) return undefined;
  if (!IDEMPOTENCY_KEY.test(header) || (HEX_ONLY.test(header) && header.length < 32)) {
    throw new S2SPError(
      'invalid_request',
      `The Idempotency-Key header is not a usable key (${header.length} characters). ${sendIdempotencyKey}`,
    );
  }
  return header;
}

/**
 * What a repeat of a redemption must match in the store (`TakeRetry.key`): SHA-256 hex of the
 * idempotency key and of the request as the data plane reads it (the ids deduplicated and sorted,
 * the columns as named, the format). The same key with another request gets another digest, so
 * the store answers it as a used token. The key itself never reaches the store.
 *
 * @param idempotencyKey - from {@link parseIdempotencyKey}
 * @param rowIds - from {@link requestedRowIds}
 * @param request - the parsed request
 * @param format - the negotiated response format
 */
export function retryDigest(
  idempotencyKey: string,
  rowIds: readonly number[] | undefined,
  request: DataPlaneRequest,
  format: string,
): Promise<string> {
  const columns = request.columns && request.columns.length > 0 ? request.columns : null;
  return tokenStorageKey(JSON.stringify([idempotencyKey, format, rowIds ?? null, columns]));
}
