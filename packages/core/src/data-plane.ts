import { z } from 'zod';
import { RowWithIdSchema } from './resource-result.js';

/**
 * The data-plane request body (PROTOCOL §3). Both members are optional; `null` counts as absent
 * and unknown members are ignored, so requests from other implementations are understood.
 */
export const DataPlaneRequestSchema = z.object({
  row_ids: z
    .array(z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER), {
      error: 'row_ids must be an array of non-negative integers such as [0, 2, 5]',
    })
    .nullish(),
  columns: z
    .array(z.string(), {
      error: 'columns must be an array of column names such as ["description"]',
    })
    .nullish(),
});

/** A parsed data-plane request. */
export type DataPlaneRequest = z.infer<typeof DataPlaneRequestSchema>;

/**
 * The data plane's 200 body. `columns_returned` and `missing_row_ids` are optional when read,
 * because the Python reference does not send them.
 */
export const DataPlaneResponseSchema = z.looseObject({
  body: z.array(RowWithIdSchema),
  total_rows: z.number().int().nonnegative().optional(),
  columns_returned: z.array(z.string()).optional(),
  missing_row_ids: z.array(z.number().int().nonnegative()).optional(),
});

/** A data-plane response body: the rows, each with its `_row_id`. */
export type DataPlaneResponse = z.infer<typeof DataPlaneResponseSchema>;
