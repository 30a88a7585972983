import type { RowWithId } from '@s2sp/core';

/**
 * One panel of a statistics chart: per value of one column, how many rows have it — or, with a
 * value column, the sum of that column over those rows.
 */
export interface Panel {
  /** Heading shown above the bars. */
  readonly title: string;
  /** The column grouped by. */
  readonly column: string;
  /** The numeric column summed as bar heights; absent when rows are counted. */
  readonly valueColumn?: string;
  /**
   * Values and their bar heights (row counts, or sums of `valueColumn`), highest first (ties by
   * value).
   */
  readonly counts: readonly { readonly value: string; readonly count: number }[];
  /** Distinct values before `top` cut the list. */
  readonly distinct: number;
}

/** How one panel is made from a column. */
export interface PanelDefinition {
  readonly title: string;
  readonly column: string;
  /** Sum this numeric column as the bar heights instead of counting rows. */
  readonly valueColumn?: string;
  /** Keep only the most frequent values. */
  readonly top?: number;
  /** Count each part of a value split on this separator (e.g. `areaDesc` on `;`). */
  readonly split?: string;
}

/** The label for rows without a value in the column. */
export const MISSING = '(none)';

/**
 * The eight panels of the reference chart for NWS weather alerts: event, severity, urgency,
 * certainty, issuing office (top 8), message type, category, affected area (top 8).
 */
export const WEATHER_ALERT_PANELS: readonly PanelDefinition[] = [
  { title: 'Event Type', column: 'event' },
  { title: 'Severity', column: 'severity' },
  { title: 'Urgency', column: 'urgency' },
  { title: 'Certainty', column: 'certainty' },
  { title: 'NWS Office', column: 'senderName', top: 8 },
  { title: 'Message Type', column: 'messageType' },
  { title: 'Category', column: 'category' },
  { title: 'Affected Area', column: 'areaDesc', top: 8, split: ';' },
];

/** Most panels a chart draws. */
export const MAX_PANELS = 8;

function labelOf(value: unknown): string {
  if (value === undefined || value === null || value === '') return MISSING;
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/**
 * Counts the values of one column as a panel — or, with `definition.valueColumn`, sums that
 * column per value (absent and `null` add nothing; check the values with
 * {@link nonNumericRow} first).
 */
export function countPanel(rows: readonly RowWithId[], definition: PanelDefinition): Panel {
  const counts = new Map<string, number>();
  const measure = definition.valueColumn;
  for (const row of rows) {
    const value = row[definition.column];
    const height = measure === undefined ? 1 : ((row[measure] as number | null | undefined) ?? 0);
    const parts =
      definition.split && typeof value === 'string'
        ? value
            .split(definition.split)
            .map((p) => p.trim())
            .filter(Boolean)
        : [labelOf(value)];
    for (const part of parts.length > 0 ? parts : [MISSING])
      counts.set(part, (counts.get(part) ?? 0) + height);
  }
  const sorted = [...counts]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([value, count]) => ({ value, count }));
  return {
    title: definition.title,
    column: definition.column,
    ...(measure !== undefined && { valueColumn: measure }),
    counts: definition.top ? sorted.slice(0, definition.top) : sorted,
    distinct: sorted.length,
  };
}

function humanise(column: string): string {
  const spaced = column.replace(/[_-]+/g, ' ').replace(/([a-z])([A-Z])/g, '$1 $2');
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/**
 * The first row whose `column` holds something other than a finite number (absent and `null`
 * are allowed: they add nothing to a sum).
 *
 * @returns the row's `_row_id` and the JSON type found, or `undefined` when every value is usable
 */
export function nonNumericRow(
  rows: readonly RowWithId[],
  column: string,
): { rowId: number; type: string } | undefined {
  for (const row of rows) {
    const value = row[column];
    if (value === undefined || value === null) continue;
    if (typeof value !== 'number' || !Number.isFinite(value))
      return { rowId: row._row_id, type: Array.isArray(value) ? 'array' : typeof value };
  }
  return undefined;
}

/** Columns of the rows, in first-seen order, without `_row_id`. */
export function columnsOf(rows: readonly RowWithId[]): string[] {
  const seen = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) if (key !== '_row_id') seen.add(key);
  return [...seen];
}

/**
 * Picks the panels for a table:
 * - with `groupBy`, one panel per named column (top 12 values each);
 * - rows that look like NWS alerts (they have `event` and `severity`) get the eight
 *   {@link WEATHER_ALERT_PANELS} that are present;
 * - otherwise, the first columns whose values are categorical (strings, booleans or small
 *   integers with 2–30 distinct values, or one value repeated).
 */
export function choosePanels(
  rows: readonly RowWithId[],
  groupBy?: readonly string[],
  valueColumn?: string,
): PanelDefinition[] {
  const measured = valueColumn === undefined ? {} : { valueColumn };
  // The summed column is the bar height, never a panel of its own.
  const columns = columnsOf(rows).filter((column) => column !== valueColumn);
  if (groupBy && groupBy.length > 0)
    return groupBy
      .slice(0, MAX_PANELS)
      .map((column) => ({ title: humanise(column), column, top: 12, ...measured }));
  if (columns.includes('event') && columns.includes('severity')) {
    return WEATHER_ALERT_PANELS.filter((panel) => columns.includes(panel.column)).map((panel) =>
      valueColumn === undefined ? panel : { ...panel, valueColumn },
    );
  }
  const picked: PanelDefinition[] = [];
  for (const column of columns) {
    if (picked.length >= MAX_PANELS) break;
    const values = new Set<string>();
    let categorical = true;
    for (const row of rows) {
      const value = row[column];
      if (
        value !== undefined &&
        value !== null &&
        typeof value !== 'string' &&
        typeof value !== 'boolean' &&
        !(Number.isInteger(value) && Math.abs(value as number) < 1000)
      ) {
        categorical = false;
        break;
      }
      values.add(labelOf(value));
      if (values.size > 30) break;
    }
    if (categorical && values.size <= 30 && (values.size >= 2 || rows.length > 1))
      picked.push({ title: humanise(column), column, top: 12, ...measured });
  }
  return picked;
}
