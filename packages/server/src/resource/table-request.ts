import { parseRowFilter, type RowFilter, S2SPError } from '@s2sp/core';
import { filterOnAbstractColumns } from '@s2sp/core/advice';
import { describeType } from '@s2sp/core/json';
import { chooseMode, passNextCursor } from '../advice.js';
import { parseAbstractDomains } from './abstract-domains.js';
import { type Mode, ModeSchema } from './s2sp-result.js';

/** The S2SP arguments of a resource tool call, as the caller sent them (PROTOCOL §2). */
export interface TableResultArguments {
  /** Columns the model asked to see: a comma-separated string, a JSON-array string or an array. */
  readonly abstract_domains?: unknown;
  /** `"async"` (default) or `"sync"`; `null` counts as absent. */
  readonly mode?: unknown;
  /** Extension: a filter on abstract columns (PROTOCOL §7); `null` counts as absent. */
  readonly filter?: unknown;
  /** Extension: the `next_cursor` of a previous result, for its next page; `null` counts as absent. */
  readonly cursor?: unknown;
}

/** The S2SP arguments, checked. */
export interface TableRequest {
  /** The abstract columns; empty for a plain result. */
  readonly domains: readonly string[];
  readonly mode: Mode;
  /** Rows to keep, by their abstract columns. */
  readonly filter?: RowFilter;
  /** The cursor of the page asked for; the handler does not run then. */
  readonly cursor?: string;
}

/**
 * Checks the S2SP arguments — before a handler runs, so a bad call costs nothing upstream.
 *
 * @throws S2SPError `invalid_request` with advice for the model
 */
export function parseTableRequest(args: TableResultArguments): TableRequest {
  if (args.cursor !== undefined && args.cursor !== null && args.cursor !== '') {
    if (typeof args.cursor !== 'string') {
      throw new S2SPError(
        'invalid_request',
        `cursor is ${describeType(args.cursor)}, not a string. ${passNextCursor}`,
      );
    }
    return { domains: [], mode: 'async', cursor: args.cursor };
  }
  const domains = parseAbstractDomains(args.abstract_domains);
  const mode = parseMode(args.mode);
  const filter = parseRowFilter(args.filter, domains.length > 0 ? domains : undefined);
  if (filter && domains.length === 0) {
    throw new S2SPError(
      'invalid_request',
      `filter works on abstract columns, and abstract_domains names none. ${filterOnAbstractColumns}`,
    );
  }
  return { domains, mode, ...(filter && { filter }) };
}

function parseMode(mode: unknown): Mode {
  if (mode === undefined || mode === null || mode === '') return 'async';
  const parsed = ModeSchema.safeParse(mode);
  if (!parsed.success) {
    throw new S2SPError(
      'invalid_request',
      `mode is ${JSON.stringify(mode)}, which is not a mode. ${chooseMode}`,
    );
  }
  return parsed.data;
}
