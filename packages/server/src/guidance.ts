import { ROW_FILTER_OPERATORS } from '@s2sp/core';
/**
 * The S2SP how-to for the model, said once (PROTOCOL §7, shorter tools/list): with
 * `toolGuidance: "instructions"`, tools carry one short line and this text goes into the MCP
 * server's `instructions`, which clients show the model once per session.
 *
 * @module
 */

/** Human wording of a TTL: "10 minutes", "1 minute", "30 seconds". */
export function describeTtl(ttlMs: number): string {
  const minutes = Math.round(ttlMs / 60_000);
  return minutes >= 1
    ? `${minutes} minute${minutes === 1 ? '' : 's'}`
    : `${Math.round(ttlMs / 1000)} seconds`;
}

/**
 * The S2SP paragraph of a server's MCP `instructions`.
 *
 * @param ttlMs - the `resource_url` lifetime
 * @param encoding - how results write the abstract; the compact form gets one sentence more
 */
export function s2spInstructions(ttlMs: number, encoding: 'json' | 'compact' = 'json'): string {
  return (
    'S2SP tables: a tool marked "S2SP table" takes abstract_domains, the FEW columns you need to filter or reason on; ' +
    'it returns those columns with a _row_id per row, and a resource_url that holds the full rows. ' +
    (encoding === 'compact'
      ? 'abstract is a header row, then value rows; a value row whose _row_id is a list stands for each of those rows. '
      : '') +
    `filter keeps only matching rows: {"col":"v"}, {"col":["a","b"]}, {"col":{"contains":"x"}}, {"col":{"gte":1,"lt":5}}; operators ${Object.keys(ROW_FILTER_OPERATORS).join(', ')}. ` +
    'A large result comes in pages: profile summarises each column; pass next_cursor as cursor for the next page. ' +
    'Hand rows to a tool marked "S2SP consumer" with the resource_url plus row_ids (the _row_id values you keep) or the same filter; do not copy rows. ' +
    `A resource_url works once and expires after ${describeTtl(ttlMs)}.`
  );
}

/** The one line a resource tool carries when the how-to is in the instructions. */
export const RESOURCE_TOOL_LINE = 'S2SP table (see server instructions).';

/** The one line a consumer tool carries when the how-to is in the instructions. */
export const CONSUMER_TOOL_LINE = 'S2SP consumer (see server instructions).';
