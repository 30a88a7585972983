import { estimateTokens } from '@s2sp/server';
import type { QueryOutput } from './sql-sandbox.js';

/** What the model reads for a query without `as_table`. */
export interface QueryAnswer {
  /** The result's columns, `name TYPE, …`. */
  readonly columns: string;
  /** The first rows of the result. */
  readonly rows: Record<string, unknown>[];
  /** Every row the query produced. */
  readonly total_rows: number;
  /** Present (true) when `rows` holds fewer than `total_rows`. */
  readonly truncated?: true;
  /** Each loaded table's row count and typed columns, so the model can correct its SQL. */
  readonly tables: Record<string, string>;
}

/**
 * The bounded answer: at most `maxRows` rows, and no more than fit `tokenBudget` (estimated as
 * the resource tool estimates its pages), with `truncated` and the total when cut.
 *
 * @param output - the query's columns, first rows and total
 * @param tables - `describeTables` of the loaded tables
 */
export function boundedAnswer(
  output: QueryOutput,
  tables: Record<string, string>,
  limits: { readonly maxRows: number; readonly tokenBudget: number },
): QueryAnswer {
  const columns = output.columns.map((c) => `${c.name} ${c.type}`).join(', ');
  const build = (count: number): QueryAnswer => ({
    columns,
    rows: output.rows.slice(0, count),
    total_rows: output.totalRows,
    ...(count < output.totalRows && { truncated: true as const }),
    tables,
  });
  const fits = (count: number) =>
    estimateTokens(JSON.stringify(build(count))) <= limits.tokenBudget;
  let count = Math.min(limits.maxRows, output.rows.length);
  if (!fits(count)) {
    // The largest row count within the budget (rows are kept in order; binary search).
    let low = 0;
    let high = count;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (fits(mid)) low = mid;
      else high = mid - 1;
    }
    count = low;
  }
  return build(count);
}
