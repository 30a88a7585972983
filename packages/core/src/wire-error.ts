import { z } from 'zod';

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
