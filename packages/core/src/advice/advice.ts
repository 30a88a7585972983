/**
 * What a model reads next in an S2SP error: the advice sentences, and the few whole messages whose
 * facts are the protocol's own. A throw site states what went wrong (its facts, the values it
 * knows) and ends with one of these entries, so each piece of advice is written once and reads
 * the same from every package. Every entry ends with a sentence the model can act on (a test
 * checks it).
 *
 * Entries are plain constants, or small functions taking the facts they mention. They never
 * quote foreign data (an upstream's text, a token, a full resource_url): a caller that must show
 * such text labels it (`«…»`) in its own facts.
 *
 * @module
 */

/** Lowercases the first letter, so that an advice sentence can follow "if it keeps failing, ". */
function continueWith(sentence: string): string {
  return sentence.charAt(0).toLowerCase() + sentence.slice(1);
}

// ---------------------------------------------------------------------------------------------
// The resource_url and its rows

/** The way out of any failure that may have used up or outlived a `resource_url`. */
export const callResourceToolAgain =
  'Call the resource tool again to get a fresh resource_url, then retry with it.';

/** For a transient failure of the resource server: retry first, then start over. */
export const retryThenCallAgain = `Retry in a moment; if it keeps failing, ${continueWith(callResourceToolAgain)}`;

/** For a `ddi://` handle where only an http(s) resource_url can work. */
export const callResourceToolAgainAsync =
  'Call the resource tool again without mode="sync" and pass its http(s) resource_url.';

/**
 * The one message for an unknown, expired or used `resource_url` (PROTOCOL §3: one 404 for all
 * three, so it tells nothing about which), on the data plane and in a consumer alike.
 */
export const resourceUrlGone = `No data for this resource_url: it is unknown, expired or already used (each one works once, for a limited time). ${callResourceToolAgain}`;

/** For a malformed `resource_url`: models sometimes shorten or re-encode it. */
export const passResourceUrlExactly =
  'Pass the resource_url exactly as the resource tool returned it.';

/** For a consumer argument that must be the JSON the resource tool returned. */
export const passJsonAsReturned =
  'Pass it as a JSON string or a JSON value, exactly as the resource tool returned it.';

/** For `_row_id`s that are not in the table. */
export const useRowIdsFromResult = 'Use only _row_id values from the same resource tool result.';

/** For a `row_ids` list the data plane refuses before redeeming (the token survives). */
export const askForFewerRowIds =
  'Ask for fewer row_ids, or omit row_ids to get every row; the resource_url is still unused.';

/**
 * The refusal of a take that asks for more row ids than the table has rows (the entry stays).
 *
 * @param asked - how many ids were asked for
 * @param tableRows - how many rows the table has
 */
export function rowIdsOverTable(asked: number, tableRows: number): string {
  return `row_ids lists ${asked} ids but this table has only ${tableRows} rows. ${useRowIdsFromResult} ${askForFewerRowIds}`;
}

/** For `row_ids` or `filter` given without the `resource_url` they select from. */
export const passResourceUrlToo = 'Pass the resource_url the resource tool returned as well.';

/** For a consumer call with both sources of body rows. */
export const resourceUrlOrBodyData =
  'Pass either resource_url (async mode) or body_data (sync mode), not both: the resource_url already stands for the body rows.';

// ---------------------------------------------------------------------------------------------
// Choosing columns, rows and pages

/** For a filter on a column that is not an abstract column. */
export const filterOnAbstractColumns =
  'Set abstract_domains to the columns you filter on (and any others you need to see).';

/** For a filter that would take too much work on a large table (conditions × rows). */
export const useFewerFilterConditions =
  'Call again with fewer filter conditions (one operator per column where one will do: a list of values is one condition), or without filter, selecting rows by _row_id instead.';

/** For more rows than a consumer can take in one call. */
export const selectFewerRows = 'Select fewer rows (pass row_ids or a filter) and call again.';

// ---------------------------------------------------------------------------------------------
// A full cache, a busy or unreachable service

/**
 * For a cache with no room for a new result; live results are never evicted.
 *
 * @param limit - the setting the operator can raise (`maxBytes`, `Redis maxmemory`)
 */
export function waitForExpiry(limit: string): string {
  return `Retry in a few minutes when older results expire, ask for fewer rows, or call the tool with mode="sync"; the operator can raise ${limit}.`;
}

/**
 * For one result larger than the whole cache: waiting will not help.
 *
 * @param limit - the setting the operator can raise
 */
export function askForFewerRows(limit: string): string {
  return `Ask for fewer rows, or call the tool with mode="sync"; the operator can raise ${limit}.`;
}

/** For a transient failure that a short wait cures. */
export const retryShortly = 'Try again in a few seconds.';

/**
 * The last sentence of an outage's advice: after retries, only the operator can help.
 *
 * @param service - what must be running (`Redis`, `the upstream MCP server "db"`)
 */
export function ifItPersists(service: string): string {
  return `If this persists, tell the user that the operator must check that ${service} is running and reachable.`;
}

// ---------------------------------------------------------------------------------------------
// The server's configuration, not the call

/**
 * For a refusal that only the operator can lift: say so, so that a model does not retry or
 * rewrite its call.
 *
 * @param fix - what the operator must do, as a verb phrase
 */
export function operatorMust(fix: string): string {
  return `This is the server's configuration, not a mistake in your call, so retrying or changing the call will not help. Tell the user that its operator must ${fix}.`;
}

const ALLOW_LIST_ORIGIN = 'allow-list that origin (allowedOrigins, S2SP_ALLOWED_ORIGINS)';

/** For a resource_url whose origin is not on the consumer's allow-list. */
export const askOperatorToAllowList = operatorMust(ALLOW_LIST_ORIGIN);

/** For a resource_url at a non-public address, which a model might have written itself. */
export const usePublicResourceUrl = `Use the resource_url a public resource server returned, or tell the user that this consumer's operator must ${ALLOW_LIST_ORIGIN}.`;

/** For a resource server that answers with a redirect, which S2SP never follows. */
export const useDataPlaneUrl = `Use a resource_url that points at the data plane itself. ${callResourceToolAgain}`;
