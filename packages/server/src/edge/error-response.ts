import { S2SPError } from '@s2sp/core';
import { toErrorBody } from '@s2sp/core/internal';
import type { Context } from 'hono';

/**
 * The one place an error becomes an HTTP response at the Hono edge: the status comes from core's
 * `S2SP_ERROR_STATUS` table, the body is the `{"error":{code,message,status}}` shape of PROTOCOL
 * §3, and messages of unexpected errors never leave the process.
 *
 * @param error - whatever was thrown
 * @param headers - extra headers (such as `Allow` on a 405)
 */
export function s2spErrorToResponse(
  error: unknown,
  headers: Record<string, string> = {},
): Response {
  const { status, body } = toErrorBody(error);
  // After a body that timed out, the rest of it may still be trickling in: the connection cannot
  // carry another request, so it is closed. (After a 413 Node discards the rest of the body and
  // the client reliably reads the answer; closing then would reset the connection under it.)
  const close: Record<string, string> = status === 408 ? { connection: 'close' } : {};
  return new Response(JSON.stringify(body), {
    status,
    headers: {
      'content-type': 'application/json',
      'cache-control': 'no-store',
      ...close,
      ...headers,
    },
  });
}

/** The `notFound` handler for apps that serve the data plane: the same JSON error shape. */
export function notFoundResponse(_c: Context): Response {
  return s2spErrorToResponse(
    new S2SPError(
      'not_found',
      'Nothing is served at this path. The S2SP data plane answers POST /s2sp/data/{token} and GET /s2sp/health.',
    ),
  );
}

/** A 405 naming the allowed methods. */
export function methodNotAllowed(allow: string): Response {
  return s2spErrorToResponse(new S2SPError('method_not_allowed', `Use ${allow} on this path.`), {
    allow,
  });
}
