/**
 * What a model reads about S2SP before it calls anything: the how-to appended to resource and
 * consumer tools, the one-line tool texts with the server's `instructions` paragraph that replaces
 * them (PROTOCOL §7, shorter tools/list), and the descriptions of the parameters S2SP adds. They
 * describe the protocol's own parameters; the S2SP proxy speaks through this server's, so every
 * server, proxy and consumer says the same.
 *
 * Every token here is paid on each tools/list (the bench counts them): make a text shorter, never
 * longer, unless the model needs the words.
 *
 * @module
 */
import { ROW_FILTER_OPERATORS } from '@s2sp/core';
import { compactAbstractReading } from '@s2sp/core/advice';
import type { AbstractEncoding } from './resource/table-pages.js';

// The operator list the model reads comes from the grammar's one table.
const FILTER_OPERATOR_NAMES = Object.keys(ROW_FILTER_OPERATORS).join(', ');

/**
 * Human wording of a TTL: "10 minutes", "1 minute", "30 seconds".
 *
 * @param ttlMs - the lifetime in milliseconds
 */
export function describeTtl(ttlMs: number): string {
  const minutes = Math.round(ttlMs / 60_000);
  return minutes >= 1
    ? `${minutes} minute${minutes === 1 ? '' : 's'}`
    : `${Math.round(ttlMs / 1000)} seconds`;
}

/**
 * The S2SP paragraph of a server's MCP `instructions`, which clients show the model once per
 * session (with `toolGuidance: "instructions"`).
 *
 * @param ttlMs - the `resource_url` lifetime
 * @param encoding - how results write the abstract; the compact form gets one sentence more
 */
export function s2spInstructions(ttlMs: number, encoding: AbstractEncoding = 'json'): string {
  return (
    'S2SP tables: a tool marked "S2SP table" takes abstract_domains, the FEW columns you need to filter or reason on; ' +
    'it returns those columns with a _row_id per row, and a resource_url that holds the full rows. ' +
    (encoding === 'compact' ? `${compactAbstractReading} ` : '') +
    `filter keeps only matching rows: {"col":"v"}, {"col":["a","b"]}, {"col":{"contains":"x"}}, {"col":{"gte":1,"lt":5}}; operators ${FILTER_OPERATOR_NAMES}. ` +
    'A large result comes in pages: profile summarises each column; pass next_cursor as cursor for the next page. ' +
    'Hand rows to a tool marked "S2SP consumer" with the resource_url plus row_ids (the _row_id values you keep) or the same filter; do not copy rows. ' +
    `A resource_url works once and expires after ${describeTtl(ttlMs)}.`
  );
}

/** The one line a resource tool carries when the how-to is in the instructions. */
export const RESOURCE_TOOL_LINE = 'S2SP table (see server instructions).';

/** The one line a consumer tool carries when the how-to is in the instructions. */
export const CONSUMER_TOOL_LINE = 'S2SP consumer (see server instructions).';

/**
 * How S2SP works for a resource tool, appended to its description (PROTOCOL §2 SHOULD: few
 * abstract columns, single-use URL with its TTL).
 *
 * @param ttlMs - the `resource_url` lifetime
 */
export function resourceToolHowTo(ttlMs: number): string {
  return (
    'S2SP: this tool returns a table. Set abstract_domains to the FEW columns you need to filter or reason; you get those columns plus a _row_id per row, and a resource_url for the full rows. ' +
    'Pass the rows you keep (with their _row_id) and the resource_url to an S2SP consumer tool, which fetches the remaining columns directly. ' +
    `The resource_url works once and expires after ${describeTtl(ttlMs)}.`
  );
}

/** How to pass S2SP data to a consumer tool, appended to its description (PROTOCOL §4). */
export const CONSUMER_TOOL_HOW_TO =
  'S2SP consumer: pass abstract_data (the abstract rows you chose, with _row_id) and the resource_url from the resource tool. ' +
  'The tool fetches the remaining columns directly from the resource server and merges them by _row_id; the full rows never pass through you. ' +
  'Instead of abstract_data you may pass row_ids (the _row_id values you keep) or the filter you used, with the resource_url.';

/** Descriptions of the parameters S2SP adds to a resource tool (PROTOCOL §2 and §7). */
export const RESOURCE_PARAMETER_TEXT = Object.freeze({
  abstract_domains:
    'Columns you need to see to filter or reason, as few as possible: a comma-separated string ("event,severity") or a JSON array. Omit for a plain result with every column.',
  mode: '"async" (default): the other columns stay on this server behind a single-use resource_url. "sync": they come back inline as body (for agents whose S2SP client keeps them out of the model).',
  filter: `Only rows whose abstract columns match, e.g. {"severity":["Severe","Extreme"],"event":{"contains":"flood"}}; ops ${FILTER_OPERATOR_NAMES}.`,
  cursor: 'next_cursor of a previous result, for its next page.',
});

/** Descriptions of the parameters S2SP adds to a consumer tool (PROTOCOL §4 and §7). */
export const CONSUMER_PARAMETER_TEXT = Object.freeze({
  abstract_data:
    'The abstract rows to process, each with its _row_id, as the resource tool returned them (filtered to the rows you want): a JSON array, or its JSON text.',
  resource_url:
    'The resource_url the resource tool returned (an http(s) URL in async mode, or the ddi:// handle your S2SP client gave you in sync mode). The tool fetches the remaining columns itself.',
  body_data:
    'Body rows (with _row_id) when you have them inline instead of a resource_url: a JSON array or its JSON text. Omit when you pass resource_url.',
  column_mapping: 'Optional object renaming columns, {"oldName": "newName"}, or its JSON text.',
  row_ids:
    'Instead of abstract_data: the _row_id values of the rows to process, e.g. [0,4,7], with resource_url.',
  filter:
    'Instead of abstract_data: the filter that selects the rows (same grammar as the resource tool), with resource_url.',
});
