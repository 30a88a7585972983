/**
 * `@s2sp/core/advice`: the one home of what the S2SP libraries tell a model.
 *
 * - **Advice** (`./advice.ts`): the sentences that end error messages, saying what to do next
 *   (`callResourceToolAgain`, `rowIdsOverTable(asked, rows)`, `waitForExpiry(limit)` …). A throw
 *   site states its facts and appends one of them, so the same advice reads the same from every
 *   package and a better wording lands everywhere at once.
 * - **Guidance** (`./guidance.ts`): the how-to appended to S2SP tools, the one-line tool texts,
 *   the `instructions` paragraph and the descriptions of the parameters S2SP adds.
 *
 * Why one catalogue in core rather than one per package: every package's advice is about the
 * protocol — the resource_url, row_ids, filter, mode, the cache, the allow-list — and core is the
 * one package all others (and apps, and third-party servers) depend on. Facts that only one
 * package knows (a Redis reply, an upstream's name, a DuckDB message) stay at its throw site; the
 * advice they end with comes from here. A repository test (`packages/core/test/inline-messages.test.ts`)
 * fails on a long message written inline in a library package.
 *
 * This file is part of the package's public API: adding an export here is an API change. The
 * wording of an entry is not: messages may change in any release; codes are the stable part.
 *
 * @module
 */

export {
  abstractDataOrSelection,
  abstractDomainsHowTo,
  askForFewerRowIds,
  askForFewerRows,
  askOperatorToAllowList,
  askUpstreamForLess,
  callAgainOnceConnected,
  callFromServer,
  callResourceToolAgain,
  callResourceToolAgainAsync,
  callResourceToolAgainSync,
  callToolPlainly,
  callWithoutSyncMode,
  chooseAvailableColumns,
  chooseMode,
  chooseShorterColumns,
  filterOnAbstractColumns,
  ifItPersists,
  keepRowIds,
  mapToUnusedName,
  nameTheTable,
  narrowTheAbstract,
  operatorMust,
  passAbstractData,
  passFilterInstead,
  passHandleToConsumer,
  passJsonAsReturned,
  passNextCursor,
  passResourceUrlExactly,
  passResourceUrlToo,
  passRowsExactly,
  raiseAbstractBudget,
  redeemOrWait,
  renameRowIdColumn,
  resourceUrlGone,
  resourceUrlOrBodyData,
  retryOneAtATime,
  retryOrAskForLess,
  retryOrUseSync,
  retryRedemption,
  retryShortly,
  retryThenCallAgain,
  returnJsonValues,
  returnRowObjects,
  rowIdsOverTable,
  selectFewerRows,
  selectSyncRowsById,
  sendBearerToken,
  sendDataPlaneRequest,
  sendIdempotencyKey,
  sendJson,
  sendToolArguments,
  sendWholeBody,
  useDataPlanePaths,
  useDataPlaneUrl,
  useFewerFilterConditions,
  useOwnHost,
  usePublicResourceUrl,
  useRowIdsFromResult,
  waitForExpiry,
} from './advice.js';
export {
  CONSUMER_PARAMETER_TEXT,
  CONSUMER_TOOL_HOW_TO,
  CONSUMER_TOOL_LINE,
  describeTtl,
  PROXY_TABLE_TEXT,
  RESOURCE_PARAMETER_TEXT,
  RESOURCE_TOOL_LINE,
  resourceToolHowTo,
  s2spInstructions,
} from './guidance.js';
