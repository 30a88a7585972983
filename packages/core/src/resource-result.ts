import { z } from 'zod';

/** A JSON object row as tools return it. */
export type Row = Record<string, unknown>;

/** A row carrying a non-negative integer `_row_id`; other members are kept as they are. */
export const RowWithIdSchema = z.looseObject({ _row_id: z.number().int().nonnegative() });

/**
 * The S2SP object a resource tool returns when `abstract_domains` is given (PROTOCOL §2). Read
 * loosely: unknown members (such as the Python reference's `columns`) are kept and ignored.
 */
export const S2SPResultSchema = z.looseObject({
  total_rows: z.number().int().nonnegative(),
  abstract_domains: z.array(z.string()),
  body_domains: z.array(z.string()),
  abstract: z.array(RowWithIdSchema),
  /** async mode: the single-use capability URL of the cached rows. */
  resource_url: z.string().optional(),
  /** async mode: when `resource_url` stops working (ISO 8601). */
  expires_at: z.string().optional(),
  /** sync mode: `_row_id` plus the body columns of every row. */
  body: z.array(RowWithIdSchema).optional(),
});

/** An S2SP resource-tool result object. */
export type S2SPResult = z.infer<typeof S2SPResultSchema>;

/** A row that carries its `_row_id`. */
export type RowWithId = Row & { _row_id: number };
