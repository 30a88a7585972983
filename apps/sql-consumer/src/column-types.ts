/**
 * Column types of a loaded table, inferred from its JSON rows so that the model's SQL can compare
 * numbers, filter booleans and do date arithmetic on timestamps without casts.
 *
 * @module
 */

/** The DuckDB types a JSON column is loaded as. */
export type ColumnType = 'BIGINT' | 'DOUBLE' | 'BOOLEAN' | 'TIMESTAMPTZ' | 'DATE' | 'VARCHAR';

/** A column of a loaded table: its name and the type it was loaded as. */
export interface TableColumn {
  readonly name: string;
  readonly type: ColumnType;
}

// ISO 8601 date-times as NWS writes them (2026-09-13T10:00:00-05:00), with seconds, fractions and
// a zone (Z or ±hh:mm) required: a value without a zone has no single instant, so it stays text.
const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})$/;
const ISO_DATE = /^\d{4}-\d{2}-\d{2}$/;

// A real calendar day: Date.parse rolls 2026-02-30 over to March 2 instead of refusing it.
function isCalendarDay(value: string): boolean {
  const year = Number(value.slice(0, 4));
  const month = Number(value.slice(5, 7));
  const day = Number(value.slice(8, 10));
  const date = new Date(Date.UTC(year, month - 1, day));
  return date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
}

/** Whether `value` is an ISO 8601 timestamp with a zone, on a real calendar day. */
export function isIsoTimestamp(value: string): boolean {
  return ISO_TIMESTAMP.test(value) && isCalendarDay(value) && !Number.isNaN(Date.parse(value));
}

function isIsoDate(value: string): boolean {
  return ISO_DATE.test(value) && isCalendarDay(value);
}

function typeOfColumn(values: readonly unknown[]): ColumnType {
  let seen = 0;
  let integers = 0;
  let numbers = 0;
  let booleans = 0;
  let timestamps = 0;
  let dates = 0;
  for (const value of values) {
    if (value === null || value === undefined) continue;
    seen++;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) return 'VARCHAR';
      numbers++;
      if (Number.isSafeInteger(value)) integers++;
    } else if (typeof value === 'boolean') booleans++;
    else if (typeof value === 'string') {
      if (isIsoTimestamp(value)) timestamps++;
      else if (isIsoDate(value)) dates++;
      else return 'VARCHAR';
    } else return 'VARCHAR';
  }
  if (seen === 0) return 'VARCHAR';
  if (integers === seen) return 'BIGINT';
  if (numbers === seen) return 'DOUBLE';
  if (booleans === seen) return 'BOOLEAN';
  if (timestamps === seen) return 'TIMESTAMPTZ';
  if (dates === seen) return 'DATE';
  return 'VARCHAR';
}

/**
 * The columns of a table (the union of row keys, in first-seen order, as PROTOCOL §1 says) with
 * the type every non-null value of the column fits: `BIGINT` (safe integers), `DOUBLE` (finite
 * numbers), `BOOLEAN`, `TIMESTAMPTZ` (ISO 8601 with a zone), `DATE` (`YYYY-MM-DD`), else
 * `VARCHAR` — objects and arrays are loaded as their JSON text, mixed columns as text.
 *
 * @param rows - the table's rows, plain JSON objects
 */
export function inferColumns(rows: readonly Readonly<Record<string, unknown>>[]): TableColumn[] {
  const names: string[] = [];
  const seen = new Set<string>();
  for (const row of rows) {
    for (const key of Object.keys(row)) {
      if (!seen.has(key)) {
        seen.add(key);
        names.push(key);
      }
    }
  }
  return names.map((name) => ({
    name,
    type: typeOfColumn(rows.map((row) => (Object.hasOwn(row, name) ? row[name] : undefined))),
  }));
}
