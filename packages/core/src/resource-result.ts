import { z } from 'zod';
import type { ColumnSplit } from './column-split.js';
import { stringifyJson } from './json.js';
import type { RowWithId, Table } from './table.js';

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

/** How the body travels: cached behind a `resource_url` (`async`) or inline (`sync`). */
export const ModeSchema = z.enum(['async', 'sync']);

/** The `mode` argument of a resource tool. */
export type Mode = z.infer<typeof ModeSchema>;

/**
 * The async-mode result: abstract rows plus the capability URL; no body.
 *
 * @param split - from {@link splitColumns}
 * @param access - the minted `resource_url` and its expiry
 */
export function buildAsyncResult(
  split: ColumnSplit,
  access: { resourceUrl: string; expiresAt: Date },
): S2SPResult {
  return {
    total_rows: split.abstract.length,
    abstract_domains: [...split.abstractDomains],
    body_domains: [...split.bodyDomains],
    abstract: split.abstract,
    resource_url: access.resourceUrl,
    expires_at: access.expiresAt.toISOString(),
  };
}

/**
 * The sync-mode result: abstract rows plus the body rows inline; nothing is cached.
 *
 * @param split - from {@link splitColumns}
 * @param body - from {@link bodyRows}
 */
export function buildSyncResult(split: ColumnSplit, body: RowWithId[]): S2SPResult {
  return {
    total_rows: split.abstract.length,
    abstract_domains: [...split.abstractDomains],
    body_domains: [...split.bodyDomains],
    abstract: split.abstract,
    body,
  };
}

/**
 * Compact JSON of a plain (non-S2SP) tool result: the rows exactly as the tool returned them.
 * @throws S2SPError `invalid_rows` when a value cannot be serialised
 */
export function serializePlainResult(table: Table): string {
  return stringifyJson(table.rows, 'The tool result');
}

/**
 * Compact JSON of an S2SP result, for the text content block.
 * @throws S2SPError `invalid_rows` when a value cannot be serialised
 */
export function serializeS2SPResult(result: S2SPResult): string {
  return stringifyJson(result, 'The S2SP result');
}

/**
 * True if `value` has the shape of an S2SP result object. Used by agents to recognise results
 * that need rewriting; anything else passes through untouched.
 */
export function isS2SPResult(value: unknown): value is S2SPResult {
  return S2SPResultSchema.safeParse(value).success;
}
