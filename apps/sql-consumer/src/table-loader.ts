import {
  type DuckDBConnection,
  DuckDBDataChunkWriter,
  DuckDBDateValue,
  DuckDBTimestampTZValue,
  type DuckDBValue,
} from '@duckdb/node-api';
import { S2SPError } from '@s2sp/core';
import { selectFewerRows } from '@s2sp/core/advice';
import { type ColumnType, inferColumns, type TableColumn } from './column-types.js';
import { quoteIdentifier } from './quote-identifier.js';

/** A table as the model will see it described: name, row count, typed columns. */
export interface LoadedTable {
  readonly name: string;
  readonly rows: number;
  readonly columns: readonly TableColumn[];
}

/** Limits of one table. */
export interface TableLoadLimits {
  readonly maxRows: number;
  readonly maxColumns: number;
}

const MAX_COLUMN_NAME_CHARS = 256;
const DAY_MS = 86_400_000;

/** A JSON value as the DuckDB value of its column's inferred type. */
function duckValue(type: ColumnType, value: unknown): DuckDBValue {
  if (value === null || value === undefined) return null;
  if (type === 'BIGINT') return BigInt(value as number);
  if (type === 'DOUBLE') return value as number;
  if (type === 'BOOLEAN') return value as boolean;
  if (type === 'TIMESTAMPTZ')
    return new DuckDBTimestampTZValue(BigInt(Date.parse(value as string)) * 1000n);
  if (type === 'DATE')
    return new DuckDBDateValue(Math.round(Date.parse(`${value as string}T00:00:00Z`) / DAY_MS));
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Creates table `name` and loads `rows` into it with DuckDB's appender, in data chunks: the DDL holds only quoted
 * identifiers and the fixed type names of {@link inferColumns}, and every value goes in through
 * the appender, typed — no row value is ever part of SQL text.
 *
 * @throws S2SPError `payload_too_large` (too many rows or columns), `invalid_request` (a column
 *   name that is empty or too long)
 */
export async function loadTable(
  connection: DuckDBConnection,
  name: string,
  rows: readonly Readonly<Record<string, unknown>>[],
  limits: TableLoadLimits,
): Promise<LoadedTable> {
  if (rows.length > limits.maxRows) {
    throw new S2SPError(
      'payload_too_large',
      `Table ${name} has ${rows.length} rows, more than the ${limits.maxRows} one table may load. ${selectFewerRows}`,
    );
  }
  const columns = inferColumns(rows);
  if (columns.length > limits.maxColumns) {
    throw new S2SPError(
      'payload_too_large',
      `Table ${name} has ${columns.length} columns, more than the ${limits.maxColumns} one table may load.`,
    );
  }
  if (columns.length === 0) {
    // No rows (or rows without keys): a table with no column cannot be created, so it gets one.
    columns.push({ name: '_row_id', type: 'BIGINT' });
  }
  const badName = columns.find((c) => c.name === '' || c.name.length > MAX_COLUMN_NAME_CHARS);
  if (badName) {
    throw new S2SPError(
      'invalid_request',
      `Table ${name} has a column whose name is empty or longer than ${MAX_COLUMN_NAME_CHARS} characters; it cannot be loaded.`,
    );
  }
  const ddl = `CREATE TABLE ${quoteIdentifier(name)} (${columns
    .map((c) => `${quoteIdentifier(c.name)} ${c.type}`)
    .join(', ')})`;
  await connection.run(ddl);
  const appender = await connection.createAppender(name);
  try {
    // Whole data chunks (2,048 rows a call) rather than one appender call per value: the bench
    // (section 12 of bench/BENCHMARKS.md) measured it 12-36% faster on 100,000 rows.
    const writer = DuckDBDataChunkWriter.forAppender(appender);
    const values: DuckDBValue[] = new Array(columns.length);
    for (const row of rows) {
      columns.forEach((column, i) => {
        values[i] = duckValue(
          column.type,
          Object.hasOwn(row, column.name) ? row[column.name] : undefined,
        );
      });
      writer.appendRow(values);
    }
    writer.flush();
    appender.flushSync();
  } finally {
    appender.closeSync();
  }
  return { name, rows: rows.length, columns };
}
