/**
 * What `@s2sp/server` alone tells a model: the advice sentences that end its error messages (the rest of
 * the catalogue, shared by several packages, is `@s2sp/core/advice`). A throw site states its facts
 * and ends with one of these entries; every entry ends with a sentence the model can act on (its
 * `advice.test.ts` checks it, with core's checks).
 *
 * @module
 */

/** For abstract rows that are not the rows the resource tool returned. */
export const passRowsExactly = 'Pass the rows exactly as the resource tool returned them.';

/** For an abstract row without its `_row_id`. */
export const keepRowIds =
  'Keep the "_row_id" of every row the resource tool returned; it is how rows are matched.';

/** For a `row_ids` list over the hand-off limit. */
export const passFilterInstead = 'Pass a filter instead, or fewer rows.';

/** For a `filter` in sync mode, where no `resource_url` holds the rows to filter. */
export const selectSyncRowsById =
  'Pass row_ids or abstract_data instead: in sync mode the rows are not behind a resource_url.';

/** For a consumer call with no way to select rows. */
export const passAbstractData =
  'Pass abstract_data: the abstract rows (with their _row_id) that the resource tool returned, filtered to the rows you want — or, with the resource_url, just their row_ids, or a filter.';

/** For a consumer call that selects rows twice. */
export const abstractDataOrSelection =
  'Pass either abstract_data or row_ids/filter, not both: row_ids and filter select the rows from the resource_url themselves.';

/** For a column_mapping that would put two values under one name. */
export const mapToUnusedName = 'Map each column to a name that no other column of the rows uses.';

/** How to write `abstract_domains`. */
export const abstractDomainsHowTo =
  'Pass abstract_domains as a comma-separated string ("event,severity") or a JSON array of column names (["event","severity"]).';

/** For unknown `abstract_domains` columns (the message lists the available ones before it). */
export const chooseAvailableColumns =
  'Call the tool again with abstract_domains chosen from the available columns.';

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

/** For an abstract with one row too large for any page: a column holds long values. */
export const chooseShorterColumns =
  'Call again with abstract_domains that leave out the column with long values (its values reach the consumer through the resource_url).';

/** For a sync-mode body too large to travel through the agent. */
export const callWithoutSyncMode =
  'Call again without mode (async mode keeps the body on this server), or ask for fewer rows.';

/** For a client that holds as many live entries as it may. */
export const redeemOrWait =
  'Pass the resource_urls you have to a consumer tool, read or drop the pages you started, wait until they expire, or call with mode="sync"; the operator can raise maxEntriesPerClient or maxBytesPerClient.';

/** For a server at its concurrency limit. */
export const retryOneAtATime = 'Retry in a few seconds, one call at a time.';

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

/** For a resource tool whose result is not JSON (tool authors read this). */
export const returnJsonValues =
  'Return only JSON values: strings, numbers, booleans, null, arrays and plain objects.';

/** For a 2026-07-28 client over its own cap of open `subscriptions/listen` streams. */
export const useOpenListenStreams =
  'Use the subscriptions/listen streams this client has open (one stream can carry every kind of change notification), or close one before opening another; ask the operator to raise maxListenStreamsPerClient if it needs more.';

/** For a `subscriptions/listen` refused because the server holds its most streams. */
export const retryListenLater =
  'Try again in a minute: the streams other clients hold close as they leave.';
