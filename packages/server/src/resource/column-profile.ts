import type { Row } from '@s2sp/core';

/** The profile of one abstract column: min/max for numbers, else the most frequent values. */
export type ColumnProfile =
  | {
      /** Smallest number in the column. */
      readonly min: number;
      /** Largest number in the column. */
      readonly max: number;
      /** How many distinct numbers the column has, only with `ProfileOptions.distinct`. */
      readonly distinct?: number;
      /** Rows without a value (absent or null), only when some. */
      readonly missing?: number;
    }
  | {
      /** How many distinct values the column has. */
      readonly distinct: number;
      /** The most frequent values (text, cut to a few dozen characters) with their row counts. */
      readonly top: Readonly<Record<string, number>>;
      /** Rows without a value (absent or null), only when some. */
      readonly missing?: number;
    };

/** Options for {@link profileColumns}. */
export interface ProfileOptions {
  /** How many of the most frequent values to list per column. Default 10. */
  readonly top?: number;
  /** Longest value text kept; longer values are cut and end in `…`. Default 40. */
  readonly maxValueLength?: number;
  /**
   * Also count the distinct values of numeric columns (the paged result's `profile` leaves that
   * out, to stay small; a column catalogue ranks columns by it). Default false.
   */
  readonly distinct?: boolean;
}

function valueKey(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

function cut(text: string, maxLength: number): string {
  return text.length > maxLength ? `${text.slice(0, maxLength - 1)}…` : text;
}

/**
 * Profiles the abstract columns of a table so a model can decide without reading every row: for
 * a column whose values are all numbers its min and max, otherwise the number of distinct values
 * and the most frequent ones with their counts (ties in first-seen order). Absent and `null`
 * values are counted as `missing`.
 *
 * @param rows - the rows (only the named columns are read)
 * @param columns - the abstract columns
 */
export function profileColumns(
  rows: readonly Row[],
  columns: readonly string[],
  options: ProfileOptions = {},
): Record<string, ColumnProfile> {
  const topCount = options.top ?? 10;
  const maxLength = options.maxValueLength ?? 40;
  const out: Record<string, ColumnProfile> = Object.create(null);
  for (const column of columns) {
    let missing = 0;
    let numeric = true;
    let min = Number.POSITIVE_INFINITY;
    let max = Number.NEGATIVE_INFINITY;
    const counts = new Map<string, number>();
    for (const row of rows) {
      const value = Object.hasOwn(row, column) ? row[column] : undefined;
      if (value === undefined || value === null) {
        missing++;
        continue;
      }
      if (typeof value === 'number' && Number.isFinite(value)) {
        if (value < min) min = value;
        if (value > max) max = value;
      } else numeric = false;
      const key = valueKey(value);
      counts.set(key, (counts.get(key) ?? 0) + 1);
    }
    const extra = missing > 0 ? { missing } : {};
    if (numeric && counts.size > 0) {
      out[column] = { min, max, ...(options.distinct && { distinct: counts.size }), ...extra };
      continue;
    }
    // A stable sort keeps first-seen order among equal counts.
    const sorted = [...counts.entries()].sort((a, b) => b[1] - a[1]).slice(0, topCount);
    const top: Record<string, number> = Object.create(null);
    for (const [key, count] of sorted) {
      const shown = cut(key, maxLength);
      top[shown] = (top[shown] ?? 0) + count;
    }
    out[column] = { distinct: counts.size, top: { ...top }, ...extra };
  }
  return { ...out };
}
