import { z } from 'zod';
import { S2SP_ERROR_STATUS, S2SPError, type S2SPErrorCode } from './errors.js';

/**
 * The one error body of the data plane, on every status (PROTOCOL §3):
 * `{"error":{"code":"not_found","message":"...","status":404}}`.
 * `code` is read as any string so that codes added by a newer peer are still understood.
 */
export const ErrorBodySchema = z.object({
  error: z.object({
    code: z.string(),
    message: z.string(),
    status: z.number().int(),
  }),
});

/** The data plane's error body. */
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

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
