/**
 * A table tool named by the operator, `NAME[:POINTER][:FORMAT]` (`--table-tool`, a config file's
 * `tableTools`): the tool, where its rows are (a JSON Pointer into its result's JSON document),
 * and which one format is tried. With a text format, the pointer names a string member holding
 * the table (`export_query_to_csv:/csv:csv`).
 *
 * @module
 */

import { configError } from '@s2sp/core/options';
import { isTableFormat, TABLE_FORMATS, type TableFormat } from './detect/text-formats.js';

/** A tool named as a table tool, optionally with where its rows are. */
export interface TableToolRule {
  readonly name: string;
  /**
   * JSON Pointer to the rows inside the result (`/rows`), or to a string holding them in a text
   * format (`/csv`). Default: detected.
   */
  readonly pointer?: string;
  /** The format the rows come in; only it is tried. Default: detected. */
  readonly format?: TableFormat;
}

/**
 * Parses `NAME`, `NAME:POINTER`, `NAME:FORMAT` or `NAME:POINTER:FORMAT`.
 *
 * @param flag - where the text came from (`--table-tool`, a config file), for the error
 * @throws S2SPError `invalid_config` naming `flag`
 */
export function parseTableToolRule(flag: string, text: string): TableToolRule {
  const colon = text.indexOf(':');
  const name = colon < 0 ? text : text.slice(0, colon);
  if (!/^[A-Za-z0-9_.\-/]{1,128}$/.test(name)) {
    throw configError(
      flag,
      `${JSON.stringify(text)} does not start with a tool name; use NAME, NAME:/json/pointer or NAME:/json/pointer:FORMAT.`,
    );
  }
  if (colon < 0) return { name };
  let pointer = text.slice(colon + 1);
  let format: TableFormat | undefined;
  const last = pointer.lastIndexOf(':');
  const suffix = pointer.slice(last + 1);
  if (isTableFormat(suffix)) {
    format = suffix;
    pointer = last < 0 ? '' : pointer.slice(0, last);
  } else if (!pointer.startsWith('/') && pointer !== '' && !pointer.includes('/')) {
    throw configError(
      flag,
      `${JSON.stringify(suffix)} in ${JSON.stringify(text)} is not a format; use one of ${TABLE_FORMATS.join(', ')}.`,
    );
  }
  if (pointer !== '' && !pointer.startsWith('/')) {
    throw configError(
      flag,
      `the JSON Pointer in ${JSON.stringify(text)} must start with "/", such as ${name}:/rows.`,
    );
  }
  return {
    name,
    ...((pointer !== '' || format === undefined) && { pointer }),
    ...(format && { format }),
  };
}
