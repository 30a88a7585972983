/**
 * `@s2sp/core/json`: reading JSON from a model or a peer safely — plain objects only, a
 * `"__proto__"` column kept as a column, and parse failures as an `S2SPError` whose message says
 * what to send instead.
 *
 * This file is part of the package's public API: adding an export here is an API change.
 *
 * @module
 */
import type { z } from 'zod';
import { passJsonAsReturned } from './advice/advice.js';
import { S2SPError } from './errors.js';
import type { Row } from './resource-result.js';

/** True for `{}`-style objects (not arrays, null, class instances such as Date or Map). */
export function isPlainObject(value: unknown): value is Row {
  if (typeof value !== 'object' || value === null) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/**
 * Sets `row[key] = value` as an own, enumerable property. A plain assignment to `"__proto__"`
 * would replace the object's prototype instead of adding a column, and JSON from an LLM or a
 * remote server may well contain that key.
 */
export function setColumn(row: Row, key: string, value: unknown): void {
  if (key === '__proto__') {
    Object.defineProperty(row, key, {
      value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  } else {
    row[key] = value;
  }
}

/** Names a value's JSON type for error messages ("a string", "null", "an array", ...). */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  if (typeof value === 'string') return 'a string';
  if (typeof value === 'number') return 'a number';
  if (typeof value === 'boolean') return 'a boolean';
  return `a ${typeof value}`;
}

/**
 * Reads a tool argument that may arrive as a JSON string (how the seed declares consumer
 * parameters, so any MCP client can call them) or as an already-parsed JSON value.
 *
 * @param name - the argument's name, for the error message
 * @param value - the raw argument
 * @returns the parsed value, or `undefined` for absent, `null` or blank-string arguments
 * @throws S2SPError `invalid_request` when a string is not valid JSON
 */
export function parseJsonArgument(name: string, value: unknown): unknown {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') return value;
  const text = value.trim();
  if (text === '') return undefined;
  return parseJsonText(
    text,
    (reason) =>
      new S2SPError(
        'invalid_request',
        `${name} is not valid JSON (${reason}). ${passJsonAsReturned}`,
      ),
  );
}

/**
 * `JSON.parse` of foreign JSON (tool arguments, request and response bodies, a text block that may
 * hold a handle), with one of two failure contracts, chosen by the caller and stable:
 *
 * - with `failure`: text that is not JSON throws the {@link S2SPError} `failure` builds from the
 *   parser's reason (with the parse error as its `cause`), so each parser fails with its own
 *   advice;
 * - without it: text that is not JSON gives `undefined`, for a caller to whom "not JSON" is an
 *   answer, not an error (JSON never parses to `undefined`, so the two cannot be confused).
 *
 * @param text - the JSON text
 * @param failure - builds the error from the parser's reason (never quote `text` itself: it may
 *   hold a token or data for a model)
 * @returns the parsed value; without `failure`, `undefined` when `text` is not JSON
 * @throws the error `failure` returns, with the parse error as its cause
 * @example
 * ```ts
 * parseJsonText('[1]'); // [1]
 * parseJsonText('[1'); // undefined
 * parseJsonText('[1', (reason) => new S2SPError('invalid_request', `Not JSON (${reason}).`)); // throws
 * ```
 */
export function parseJsonText(text: string, failure?: (reason: string) => S2SPError): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    if (!failure) return undefined;
    const error = failure(cause instanceof Error ? cause.message : String(cause));
    if (error.cause === undefined) Object.defineProperty(error, 'cause', { value: cause });
    throw error;
  }
}

/** Formats zod issues as `row_ids[2]: message; columns: message`. */
export function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      const path = issue.path
        .map((p) => (typeof p === 'number' ? `[${p}]` : `.${String(p)}`))
        .join('');
      return `${path.replace(/^\./, '') || 'body'}: ${issue.message}`;
    })
    .join('; ');
}
