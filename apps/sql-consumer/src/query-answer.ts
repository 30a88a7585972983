import { budgetTokens, listNames } from '@s2sp/server';
import type { QueryOutput } from './sql-sandbox.js';
import type { LoadedTable } from './table-loader.js';

/** What the model reads for a query without `as_table`. */
export interface QueryAnswer {
  /** The result's columns, `name TYPE, …` (capped and counted when too many to fit). */
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

/** A column as the answer describes it. */
interface NamedColumn {
  readonly name: string;
  readonly type: string;
}

/**
 * How much of each column list a text shows, tried in order until the text fits the budget:
 * every column as it is, then at most 20 and 5 names of at most 64 characters (`listNames`, the
 * proxy's and the resource tool's rule), then only the count (`… and 255 more`).
 */
const DETAIL: readonly (number | undefined)[] = [undefined, 20, 5, 0];

function describeColumns(columns: readonly NamedColumn[], max: number | undefined): string {
  if (max === undefined) return columns.map((c) => `${c.name} ${c.type}`).join(', ');
  return listNames(
    columns.map((c) => c.name),
    { max, label: (i) => columns[i]?.type ?? '' },
  );
}

function describeTablesAt(
  tables: readonly LoadedTable[],
  max: number | undefined,
): Record<string, string> {
  return Object.fromEntries(
    tables.map((t) => [t.name, `${t.rows} rows: ${describeColumns(t.columns, max)}`]),
  );
}

/**
 * Each loaded table's row count and typed columns, `name TYPE, …`, in as much detail as fits
 * `tokenBudget` (estimated as the resource tool estimates its pages): wide tables or long column
 * names are listed in part and counted (`… and 240 more`), so a text that quotes them stays
 * within the budget whatever the tables are.
 *
 * @param tables - the loaded tables
 * @param tokenBudget - tokens the description may take
 */
export function describeTables(
  tables: readonly LoadedTable[],
  tokenBudget: number,
): Record<string, string> {
  let described: Record<string, string> = {};
  for (const max of DETAIL) {
    described = describeTablesAt(tables, max);
    if (budgetTokens(JSON.stringify(described)) <= tokenBudget) break;
  }
  return described;
}

/**
 * The bounded answer: at most `maxRows` rows, and no more than fit `tokenBudget` (estimated as
 * the resource tool estimates its pages), with `truncated` and the total when cut. The column
 * lists (the result's and the tables') are shortened first when even no rows would not fit, so
 * the whole text keeps to the budget (a query over 8 tables of 255 long-named columns answered
 * 536,838 characters before).
 *
 * @param output - the query's columns, first rows and total
 * @param tables - the loaded tables
 */
export function boundedAnswer(
  output: Pick<QueryOutput, 'columns' | 'rows' | 'totalRows'>,
  tables: readonly LoadedTable[],
  limits: { readonly maxRows: number; readonly tokenBudget: number },
): QueryAnswer {
  const at = (max: number | undefined) => (count: number) => ({
    columns: describeColumns(output.columns, max),
    rows: output.rows.slice(0, count),
    total_rows: output.totalRows,
    ...(count < output.totalRows && { truncated: true as const }),
    tables: describeTablesAt(tables, max),
  });
  const fits = (answer: QueryAnswer) => budgetTokens(JSON.stringify(answer)) <= limits.tokenBudget;
  let build = at(0);
  for (const max of DETAIL) {
    build = at(max);
    if (fits(build(0))) break;
  }
  let count = Math.min(limits.maxRows, output.rows.length);
  if (!fits(build(count))) {
    // The largest row count within the budget (rows are kept in order; binary search).
    let low = 0;
    let high = count;
    while (low < high) {
      const mid = Math.ceil((low + high) / 2);
      if (fits(build(mid))) low = mid;
      else high = mid - 1;
    }
    count = low;
  }
  return build(count);
}
