/**
 * `@s2sp/core/receipt`: the savings receipt an S2SP result carries in its `_meta` (PROTOCOL §7.9),
 * so that a host can show its user what S2SP kept out of the model. Readers that do not know it
 * (the Python reference) ignore `_meta`; nothing else on the wire changes.
 *
 * This file is part of the package's public API: adding an export here is an API change.
 *
 * @module
 */

import { z } from 'zod';
import { PROTOCOL } from './protocol.js';

/** The savings receipt under `_meta["s2sp/receipt"]` of an S2SP resource-tool result. */
const S2SPReceiptSchema = z.looseObject({
  /** Table rows the model does not see in this result (filtered out, or on later pages). */
  rows_withheld: z.number().int().nonnegative(),
  /** Body columns the model does not see (they stay behind the `resource_url`, or in the agent). */
  columns_withheld: z.number().int().nonnegative(),
  /**
   * Model tokens saved: the plain result's tokens (every row and column) minus those of what the
   * model reads, in o200k_base tokens estimated without a tokenizer (this project: within ±10% of
   * the o200k_base count on JSON tables, more on text in one language other than English alone;
   * another model's tokenizer counts differently). Negative when a tiny table costs more as an
   * S2SP result than plainly.
   */
  tokens_saved: z.number().int(),
});

/** A savings receipt (see {@link S2SPReceiptSchema}). */
export type S2SPReceipt = z.infer<typeof S2SPReceiptSchema>;

/**
 * The receipt of a tool result, or `undefined` when it has none (a plain result, an error, a
 * server that does not send one) or carries one that does not match the schema.
 *
 * @example
 * ```ts
 * import { readS2SPReceipt } from '@s2sp/core/receipt';
 * const receipt = readS2SPReceipt(await client.callTool({ name: 'get_alerts', arguments }));
 * if (receipt) console.log(`S2SP kept ~${receipt.tokens_saved} tokens out of the model`);
 * ```
 */
export function readS2SPReceipt(result: unknown): S2SPReceipt | undefined {
  if (typeof result !== 'object' || result === null) return undefined;
  const meta = (result as { _meta?: unknown })._meta;
  if (typeof meta !== 'object' || meta === null) return undefined;
  const parsed = S2SPReceiptSchema.safeParse(
    (meta as Record<string, unknown>)[PROTOCOL.receiptMeta],
  );
  return parsed.success ? parsed.data : undefined;
}
