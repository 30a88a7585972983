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

/** The advice of a sync-mode (`ddi://`) handle that is unknown or used. */
export const callResourceToolAgainSync =
  'Call the resource tool again with mode="sync" and pass its new resource_url.';

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

/** For abstract rows that are not the rows the resource tool returned. */
export const passRowsExactly = 'Pass the rows exactly as the resource tool returned them.';

/** For an abstract row without its `_row_id`. */
export const keepRowIds =
  'Keep the "_row_id" of every row the resource tool returned; it is how rows are matched.';

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

/** For a `row_ids` list over the hand-off limit. */
export const passFilterInstead = 'Pass a filter instead, or fewer rows.';

/** For `row_ids` or `filter` given without the `resource_url` they select from. */
export const passResourceUrlToo = 'Pass the resource_url the resource tool returned as well.';

/** For a `filter` in sync mode, where no `resource_url` holds the rows to filter. */
export const selectSyncRowsById =
  'Pass row_ids or abstract_data instead: in sync mode the rows are not behind a resource_url.';

/** For a consumer call with no way to select rows. */
export const passAbstractData =
  'Pass abstract_data: the abstract rows (with their _row_id) that the resource tool returned, filtered to the rows you want — or, with the resource_url, just their row_ids, or a filter.';

/** For a consumer call that selects rows twice. */
export const abstractDataOrSelection =
  'Pass either abstract_data or row_ids/filter, not both: row_ids and filter select the rows from the resource_url themselves.';

/** For a consumer call with both sources of body rows. */
export const resourceUrlOrBodyData =
  'Pass either resource_url (async mode) or body_data (sync mode), not both: the resource_url already stands for the body rows.';

/** For a column_mapping that would put two values under one name. */
export const mapToUnusedName = 'Map each column to a name that no other column of the rows uses.';

/** For a `ddi://` handle that reached a tool whose server is not an S2SP consumer. */
export const passHandleToConsumer =
  'Pass the handle, which is still valid, to a consumer tool (one that takes resource_url and abstract_data) on another server.';

// ---------------------------------------------------------------------------------------------
// Choosing columns, rows and pages

/** How to write `abstract_domains`. */
export const abstractDomainsHowTo =
  'Pass abstract_domains as a comma-separated string ("event,severity") or a JSON array of column names (["event","severity"]).';

/** For unknown `abstract_domains` columns (the message lists the available ones before it). */
export const chooseAvailableColumns =
  'Call the tool again with abstract_domains chosen from the available columns.';

/** For a filter on a column that is not an abstract column. */
export const filterOnAbstractColumns =
  'Set abstract_domains to the columns you filter on (and any others you need to see).';

/** For a `mode` that is neither of the two. */
export const chooseMode =
  'Use mode "async" (the default: other columns stay on the server behind a resource_url) or "sync" (they come back inline).';

/** For a cursor that is not, or no longer, a page of this tool. */
export const passNextCursor =
  'Pass the next_cursor of the previous result exactly, or call the tool again without cursor for a fresh result.';

/**
 * For an abstract over the tool's token budget.
 *
 * @param sync - whether the call was in sync mode, which is not paged
 */
export function narrowTheAbstract(sync: boolean): string {
  const narrow = 'narrow it: fewer abstract_domains, or a filter that keeps fewer rows.';
  return sync
    ? `Call again without mode (async mode pages the abstract), or ${narrow}`
    : `${narrow.charAt(0).toUpperCase()}${narrow.slice(1)}`;
}

/**
 * For an `abstract_budget_tokens` too small for any column of the table (the S2SP proxy).
 *
 * @param needed - tokens the cheapest choice takes
 */
export function raiseAbstractBudget(needed: number): string {
  return `Call again with abstract_budget_tokens of at least ${needed.toLocaleString('en-US')}, or name abstract_domains yourself, or add a filter that keeps fewer rows.`;
}

/** For an abstract with one row too large for any page: a column holds long values. */
export const chooseShorterColumns =
  'Call again with abstract_domains that leave out the column with long values (its values reach the consumer through the resource_url).';

/** For a sync-mode body too large to travel through the agent. */
export const callWithoutSyncMode =
  'Call again without mode (async mode keeps the body on this server), or ask for fewer rows.';

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

/**
 * For one upstream answer larger than the proxy accepts: only a smaller answer can pass, and the
 * mode does not change its size.
 *
 * @param limit - the setting the operator can raise
 */
export function askUpstreamForLess(limit: string): string {
  return `Call the tool again with arguments that make it return less (a narrower query, a lower limit, one page at a time); the operator can raise ${limit}.`;
}

/**
 * For a table call whose result holds no table the proxy can split (or one it left parts of out):
 * the plain call returns the upstream's result untouched.
 */
export const callToolPlainly =
  'Call the tool again without abstract_domains and mode to get its result as the upstream server returns it.';

/** For a result with several arrays of rows and no `table` argument naming one. */
export const nameTheTable =
  'Call the tool again with table set to one of these names (or a JSON Pointer such as /result/items), and abstract_domains naming columns of that array.';

/** For a client that holds as many live entries as it may. */
export const redeemOrWait =
  'Pass the resource_urls you have to a consumer tool, read or drop the pages you started, wait until they expire, or call with mode="sync"; the operator can raise maxEntriesPerClient or maxBytesPerClient.';

/** For a transient failure that a short wait cures. */
export const retryShortly = 'Try again in a few seconds.';

/** For a slow answer: the next try may be faster, a smaller one surely is. */
export const retryOrAskForLess = 'Try again, or ask for less.';

/** For a server at its concurrency limit. */
export const retryOneAtATime = 'Retry in a few seconds, one call at a time.';

/** For a tool whose server is not connected on the agent's side. */
export const callAgainOnceConnected = 'Call the tool again once its server is connected.';

/** For a cache outage while a tool call stores its result: sync mode needs no cache. */
export const retryOrUseSync =
  'Retry the tool call in a few seconds, or call it with mode="sync", which needs no cache.';

/** For a cache outage while a resource_url is redeemed: the token may or may not survive. */
export const retryRedemption =
  'The resource_url may no longer work: the cache may have completed this redemption before the connection failed, or restarted without its data. Retry the same request in a few seconds; if it answers 404, call the resource tool again.';

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

// ---------------------------------------------------------------------------------------------
// Tool results and HTTP requests

/** For a resource tool whose result is not JSON (tool authors read this). */
export const returnJsonValues =
  'Return only JSON values: strings, numbers, booleans, null, arrays and plain objects.';

/** For a resource tool whose result is not a table (tool authors read this). */
export const returnRowObjects =
  'Return an array of plain JSON objects, such as [{"event": "Wind Advisory"}].';

/** For a resource tool whose rows carry the reserved column (tool authors read this). */
export const renameRowIdColumn =
  'Rename that column in the tool (for example to "row_id"): "_row_id" is reserved by S2SP.';

/** The data-plane request body, for a request that is not one. */
export const sendDataPlaneRequest =
  'Send {"row_ids": [0, 2], "columns": ["description"]} (both optional) or {}.';

/** For a data-plane request of another media type. */
export const sendJson =
  'Send the request body as Content-Type: application/json (charset=utf-8 at most).';

/** For a data-plane request whose `Idempotency-Key` header is not a usable key (PROTOCOL §7.10). */
export const sendIdempotencyKey =
  'Send an Idempotency-Key of 22 to 128 characters from A-Z a-z 0-9 - _ holding at least 128 random bits (such as 32 random bytes in base64url), or no Idempotency-Key at all.';

/** For a SLOP tool call whose body is not a JSON object. */
export const sendToolArguments =
  'Send the tool arguments as one JSON object, with Content-Type: application/json.';

/** For a request body that did not arrive in time. */
export const sendWholeBody = 'Send the whole body at once, then retry.';

/** For a request without an accepted bearer token. */
export const sendBearerToken =
  'Send Authorization: Bearer <token> with a token this server accepts.';

/** For a path the data plane does not serve. */
export const useDataPlanePaths =
  'Use POST /s2sp/data/{token} or GET /s2sp/health: the S2SP data plane answers nothing else.';

/** For a browser request from another site. */
export const callFromServer =
  "Call this server from a server, or have the operator add the page's origin to the allowed browser origins.";

/** For a `Host` this server does not answer to (DNS-rebinding protection). */
export const useOwnHost =
  "Use the server's own address, or have the operator add the host to the allowed hosts (allowedHosts, S2SP_ALLOWED_HOSTS) or set publicUrl.";
