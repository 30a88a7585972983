import {
  PROTOCOL,
  parseRowFilter,
  type Row,
  type RowFilter,
  type RowWithId,
  S2SPError,
} from '@s2sp/core';
import { passResourceUrlToo, resourceUrlOrBodyData, useRowIdsFromResult } from '@s2sp/core/advice';
import { describeType, isPlainObject, parseJsonArgument, setColumn } from '@s2sp/core/json';
import {
  abstractDataOrSelection,
  keepRowIds,
  mapToUnusedName,
  passAbstractData,
  passRowsExactly,
  selectSyncRowsById,
} from '../advice.js';
import { decodeCompactRows, isCompactRows } from '../resource/compact-abstract.js';
import { parseRowIds } from './row-ids.js';

/** The four S2SP parameters of a consumer tool (PROTOCOL §4), as they arrive. */
export interface ConsumerArguments {
  /**
   * JSON array of abstract rows (string or parsed), as objects or in the compact encoding.
   * Required unless `row_ids` or `filter` is given.
   */
  abstract_data?: unknown;
  /** async mode: the resource server's `resource_url`. */
  resource_url?: unknown;
  /** sync mode: JSON array of body rows (string or parsed). */
  body_data?: unknown;
  /** JSON object `{"old": "new"}` renaming columns of the merged rows (string or parsed). */
  column_mapping?: unknown;
  /** Extension: `_row_id`s of the rows to process, instead of `abstract_data` (JSON or parsed). */
  row_ids?: unknown;
  /** Extension: a filter (see {@link parseRowFilter}) selecting the rows, instead of `abstract_data`. */
  filter?: unknown;
}

/** Validated consumer arguments. */
export interface ConsumerRequest {
  /**
   * Abstract rows, each with an integer `_row_id`, in the order given. With `rowIds` or `filter`
   * instead, `undefined`: the rows come from the body source.
   */
  readonly abstractRows: RowWithId[] | undefined;
  /** The rows asked for by id (deduplicated, in the order given), if any. */
  readonly rowIds: number[] | undefined;
  /** The filter the rows must meet, if any. */
  readonly filter: RowFilter | undefined;
  /** The `resource_url` to fetch the body from (async), if any. Not yet validated as a URL. */
  readonly resourceUrl: string | undefined;
  /** The inline body rows (sync), if any. */
  readonly bodyRows: RowWithId[] | undefined;
  /** The column renames, if any. */
  readonly columnMapping: Readonly<Record<string, string>> | undefined;
}

function rowsWithIds(name: string, raw: unknown): RowWithId[] {
  const value = isCompactRows(raw) ? decodeCompactRows(name, raw) : raw;
  if (!Array.isArray(value)) {
    throw new S2SPError(
      'invalid_request',
      `${name} must be a JSON array of rows, but it is ${describeType(value)}. ${passRowsExactly}`,
    );
  }
  value.forEach((row: unknown, i) => {
    if (!isPlainObject(row)) {
      throw new S2SPError(
        'invalid_request',
        `${name}[${i}] is ${describeType(row)}, not a row object. ${passRowsExactly}`,
      );
    }
    const id = row[PROTOCOL.rowId];
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) {
      const got = id === undefined ? 'it has none' : `it has ${JSON.stringify(id)}`;
      throw new S2SPError(
        'invalid_request',
        `${name}[${i}] needs an integer "${PROTOCOL.rowId}" but ${got}. ${keepRowIds}`,
      );
    }
  });
  return value as RowWithId[];
}

function parseMapping(value: unknown): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) {
    throw new S2SPError(
      'invalid_request',
      `column_mapping must be a JSON object such as {"areaDesc": "area"}, but it is ${describeType(value)}.`,
    );
  }
  const targets = new Map<string, string>();
  for (const [from, to] of Object.entries(value)) {
    if (typeof to !== 'string' || to === '') {
      throw new S2SPError(
        'invalid_request',
        `column_mapping["${from}"] must be a non-empty column name, but it is ${describeType(to)}.`,
      );
    }
    if (from === PROTOCOL.rowId || to === PROTOCOL.rowId) {
      throw new S2SPError(
        'invalid_request',
        `column_mapping cannot rename to or from "${PROTOCOL.rowId}" (it matches rows). Remove that entry.`,
      );
    }
    const other = targets.get(to);
    if (other !== undefined) {
      throw new S2SPError(
        'invalid_request',
        `column_mapping maps both "${other}" and "${from}" to "${to}", so one value would be lost. ${mapToUnusedName}`,
      );
    }
    targets.set(to, from);
  }
  return Object.keys(value).length > 0 ? (value as Record<string, string>) : undefined;
}

/** Options for {@link parseConsumerArguments}. */
export interface ParseConsumerOptions {
  /**
   * Arguments that select no rows (no `abstract_data`, `row_ids` or `filter`) stand for every row
   * of their `resource_url` or `body_data`, instead of being refused. Never a model-facing
   * parameter: a caller that means a whole table (a table source of its own tool) says so here.
   */
  readonly wholeTable?: boolean;
}

/**
 * Parses and validates a consumer tool's S2SP arguments. Every row problem is reported with its
 * index, never silently dropped.
 *
 * @param args - the raw tool arguments
 * @param options - whether arguments without a selection stand for the whole table
 * @throws S2SPError `invalid_request` on malformed JSON, rows without an integer `_row_id`, a bad
 *   mapping, or both `resource_url` and `body_data`
 */
export function parseConsumerArguments(
  args: ConsumerArguments,
  options: ParseConsumerOptions = {},
): ConsumerRequest {
  const abstract = parseJsonArgument('abstract_data', args.abstract_data);
  const rowIds = parseRowIds(parseJsonArgument('row_ids', args.row_ids));
  const filter = parseRowFilter(args.filter);
  const selected = rowIds !== undefined || filter !== undefined;
  if (abstract === undefined && !selected && !options.wholeTable) {
    throw new S2SPError('invalid_request', `abstract_data is required. ${passAbstractData}`);
  }
  if (abstract !== undefined && selected) {
    throw new S2SPError('invalid_request', abstractDataOrSelection);
  }
  const abstractRows = abstract === undefined ? undefined : rowsWithIds('abstract_data', abstract);

  let resourceUrl: string | undefined;
  if (args.resource_url !== undefined && args.resource_url !== null) {
    if (typeof args.resource_url !== 'string') {
      throw new S2SPError(
        'invalid_request',
        `resource_url must be a string, but it is ${describeType(args.resource_url)}.`,
      );
    }
    resourceUrl = args.resource_url.trim() === '' ? undefined : args.resource_url.trim();
  }
  const body = parseJsonArgument('body_data', args.body_data);
  const bodyRows = body === undefined ? undefined : rowsWithIds('body_data', body);
  if (resourceUrl !== undefined && bodyRows !== undefined) {
    throw new S2SPError('invalid_request', resourceUrlOrBodyData);
  }
  if (selected && resourceUrl === undefined && bodyRows === undefined) {
    throw new S2SPError(
      'invalid_request',
      `row_ids and filter select rows behind a resource_url. ${passResourceUrlToo}`,
    );
  }
  if (abstract === undefined && !selected && resourceUrl === undefined && bodyRows === undefined) {
    // Only with wholeTable: a whole table of nothing.
    throw new S2SPError('invalid_request', `resource_url is required. ${passResourceUrlToo}`);
  }
  if (filter !== undefined && bodyRows !== undefined) {
    throw new S2SPError(
      'invalid_request',
      `filter works with a resource_url (async mode) only. ${selectSyncRowsById}`,
    );
  }
  const columnMapping = parseMapping(parseJsonArgument('column_mapping', args.column_mapping));
  return { abstractRows, rowIds, filter, resourceUrl, bodyRows, columnMapping };
}

/**
 * The rows a `row_ids` hand-off asked for, in the order asked, from the full rows.
 *
 * @throws S2SPError `invalid_request` naming ids the table does not have
 */
export function pickRows(
  rows: readonly RowWithId[],
  rowIds: readonly number[],
  options: MergeOptions = {},
): RowWithId[] {
  return mergeRows(
    rowIds.map((id) => ({ _row_id: id })),
    rows,
    options,
  );
}

/** Options for {@link mergeRows}. */
export interface MergeOptions {
  /** Names where the body came from, for the error about missing rows. */
  readonly source?: string;
}

/**
 * Merges abstract rows with body rows by `_row_id` (PROTOCOL §4): the output keeps the order of
 * `abstract`, and a body value is added only where the abstract row lacks that key.
 *
 * @param abstract - abstract rows
 * @param body - body rows (sync body columns, or full rows from the data plane)
 * @throws S2SPError `invalid_request` if an abstract row has no body row — a silently partial
 *   merge would hand the tool rows with columns missing
 */
export function mergeRows(
  abstract: readonly RowWithId[],
  body: readonly RowWithId[],
  options: MergeOptions = {},
): RowWithId[] {
  const byId = new Map<number, RowWithId>();
  for (const row of body) byId.set(row._row_id, row);
  const missing: number[] = [];
  const merged = abstract.map((row) => {
    const extra = byId.get(row._row_id);
    if (!extra) {
      missing.push(row._row_id);
      return row;
    }
    const out: RowWithId = { ...row };
    for (const key of Object.keys(extra)) {
      if (!Object.hasOwn(out, key)) setColumn(out, key, extra[key]);
    }
    return out;
  });
  if (missing.length > 0) {
    const ids = [...new Set(missing)];
    const shown =
      ids.slice(0, 20).join(', ') + (ids.length > 20 ? `, … (${ids.length} in all)` : '');
    throw new S2SPError(
      'invalid_request',
      `${options.source ?? 'The body'} has no rows with _row_id ${shown}. ${useRowIdsFromResult}`,
      { data: { missingRowIds: ids } },
    );
  }
  return merged;
}

/**
 * Renames columns (PROTOCOL §4). Keys not in the mapping keep their names.
 *
 * @param rows - merged rows
 * @param mapping - `{old: new}`; `_row_id` is never renamed
 * @throws S2SPError `invalid_request` if a rename would overwrite another column of the same row
 */
export function applyColumnMapping(
  rows: readonly RowWithId[],
  mapping: Readonly<Record<string, string>> | undefined,
): RowWithId[] {
  if (!mapping) return [...rows];
  return rows.map((row) => {
    const out: Row = {};
    for (const key of Object.keys(row)) {
      const name = Object.hasOwn(mapping, key) ? (mapping[key] as string) : key;
      if (Object.hasOwn(out, name)) {
        throw new S2SPError(
          'invalid_request',
          `column_mapping renames a column to "${name}", which row ${row._row_id} already has. ${mapToUnusedName}`,
        );
      }
      setColumn(out, name, row[key]);
    }
    return out as RowWithId;
  });
}
