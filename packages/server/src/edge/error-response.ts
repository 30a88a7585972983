import { type ErrorBody, S2SP_ERROR_STATUS, S2SPError, type S2SPErrorCode } from '@s2sp/core';
import type { Context } from 'hono';
import { useDataPlanePaths } from '../advice.js';

const INTERNAL_MESSAGE =
  'The S2SP server failed unexpectedly. Retry later or contact its operator.';

/**
 * Turns any thrown value into the wire error body and its HTTP status. Messages of
 * {@link S2SPError}s are kept; anything else (and `internal`/`invalid_config` errors, whose messages
 * may describe server internals) becomes a generic `internal` error so nothing leaks.
 *
 * @param error - whatever was thrown
 * @returns the status and the body to send
 */
export function toErrorBody(error: unknown): { status: number; body: ErrorBody } {
  let code: S2SPErrorCode = 'internal';
  let message = INTERNAL_MESSAGE;
  if (S2SPError.isInstance(error) && error.code in S2SP_ERROR_STATUS) {
    if (error.code !== 'internal' && error.code !== 'invalid_config') {
      code = error.code;
      message = error.message;
    }
  }
  const status = S2SP_ERROR_STATUS[code];
  return { status, body: { error: { code, message, status } } };
}

/** An error answer's parts, in the order they go on the wire: see {@link errorResponseParts}. */
export interface ErrorResponseParts {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * The one place an error becomes an HTTP answer: the status comes from core's
 * `S2SP_ERROR_STATUS` table, the body is the `{"error":{code,message,status}}` shape of PROTOCOL
 * §3, and messages of unexpected errors never leave the process. {@link s2spErrorToResponse}
 * makes a Fetch `Response` of it; the data plane's Node front door writes it to Node directly.
 *
 * @param error - whatever was thrown
 * @param headers - extra headers (such as `Allow` on a 405)
 */
export function errorResponseParts(
  error: unknown,
  headers: Record<string, string> = {},
): ErrorResponseParts {
  const { status, body } = toErrorBody(error);
  // After a body that timed out, the rest of it may still be trickling in: the connection cannot
  // carry another request, so it is closed. (After a 413 Node discards the rest of the body and
  // the client reliably reads the answer; closing then would reset the connection under it.)
  const close: Record<string, string> = status === 408 ? { connection: 'close' } : {};
  return {
    status,
    headers: {
      'content-type': 'application/json',
      'cache-control': 'no-store',
      ...close,
      ...headers,
    },
    body: JSON.stringify(body),
  };
}

/**
 * {@link errorResponseParts} as a Fetch `Response`: how an error is answered at the Hono edge.
 *
 * @param error - whatever was thrown
 * @param headers - extra headers (such as `Allow` on a 405)
 */
export function s2spErrorToResponse(
  error: unknown,
  headers: Record<string, string> = {},
): Response {
  const parts = errorResponseParts(error, headers);
  return new Response(parts.body, { status: parts.status, headers: parts.headers });
}

/** The `notFound` handler for apps that serve the data plane: the same JSON error shape. */
export function notFoundResponse(_c: Context): Response {
  return s2spErrorToResponse(
    new S2SPError('not_found', `Nothing is served at this path. ${useDataPlanePaths}`),
  );
}

/** A 405 naming the allowed methods. */
export function methodNotAllowed(allow: string): Response {
  return s2spErrorToResponse(new S2SPError('method_not_allowed', `Use ${allow} on this path.`), {
    allow,
  });
}
