/**
 * Resolves the tables of one `query_tables` call through `@s2sp/server`'s consumer machinery
 * (`S2SP.resolveConsumerRows`), so that every fetch follows the server's consumer rules: the
 * allow-list, public destinations only, the path check, byte cap and timeout, the shared fetch
 * concurrency limit, the row_ids / filter / abstract_data hand-offs, merge and column_mapping.
 *
 * @module
 */
import { type RowWithId, S2SPError } from '@s2sp/core';
import type { S2SP } from '@s2sp/server';
import type { TableSourceArguments } from './table-sources.js';

/**
 * Resolves one table's S2SP arguments to its merged rows. A source without a selection (only a
 * `resource_url`, or only `body_data`) is the whole table.
 *
 * @param s2sp - the runtime whose fetch rules and fetch limit the server uses
 * @param name - the table's name, for messages
 * @param source - resource_url or body_data, and optionally row_ids, filter, abstract_data,
 *   column_mapping
 * @param signal - the calling tool's abort signal
 * @throws S2SPError with the consumer machinery's code (`forbidden`, `not_found`, `timeout`,
 *   `payload_too_large`, `upstream_error`, `invalid_request`…), its message prefixed by the table
 */
export async function resolveTable(
  s2sp: S2SP,
  name: string,
  source: TableSourceArguments,
  signal?: AbortSignal,
): Promise<RowWithId[]> {
  try {
    const { rows } = await s2sp.resolveConsumerRows(source, {
      wholeTable: true,
      ...(signal && { signal }),
    });
    return rows;
  } catch (error) {
    if (!S2SPError.isInstance(error)) throw error;
    throw new S2SPError(error.code, `Table ${name}: ${error.message}`, {
      cause: error,
      ...(error.data && { data: error.data }),
    });
  }
}
