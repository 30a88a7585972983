/**
 * `@s2sp/core/advice`: the advice sentences more than one S2SP package (or app) ends its error
 * messages with — about the protocol's own things: the resource_url and its rows, the filter, the
 * cache, the operator's configuration. A throw site states its facts and appends one of them, so
 * the same advice reads the same from every package and a better wording lands everywhere at
 * once (`callResourceToolAgain`, `waitForExpiry(limit)` …). Beside them, the guidance a server
 * and a client both give a model about an S2SP result (`compactAbstractReading`).
 *
 * Advice and guidance that one package alone gives live in that package's own advice module
 * (`@s2sp/server`'s `advice.ts` and `guidance.ts` hold the tool texts and the data plane's advice;
 * the proxy, the client and the Redis store have theirs), under the same rules: every entry ends
 * with a sentence the model can act on (each package's `advice.test.ts`), and a long message
 * written inline in a library package fails `packages/core/test/inline-messages.test.ts`. Facts
 * that only one package knows (a Redis reply, an upstream's name) stay at its throw site.
 *
 * This file is part of the package's public API: adding an export here is an API change. The
 * wording of an entry is not: messages may change in any release; codes are the stable part.
 *
 * @module
 */

export {
  askForFewerRowIds,
  callResourceToolAgain,
  callResourceToolAgainAsync,
  filterOnAbstractColumns,
  ifItPersists,
  operatorMust,
  passResourceUrlToo,
  resourceUrlGone,
  resourceUrlOrBodyData,
  retryShortly,
  selectFewerRows,
  useRowIdsFromResult,
  waitForExpiry,
} from './advice.js';
export { compactAbstractReading } from './guidance.js';
