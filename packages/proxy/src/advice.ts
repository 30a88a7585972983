/**
 * What the S2SP proxy alone tells a model: the advice sentences that end its error messages (the rest of
 * the catalogue, shared by several packages, is `@s2sp/core/advice`). A throw site states its facts
 * and ends with one of these entries; every entry ends with a sentence the model can act on (its
 * `advice.test.ts` checks it, with core's checks).
 *
 * @module
 */

/**
 * For an `abstract_budget_tokens` too small for any column of the table (the S2SP proxy).
 *
 * @param needed - tokens the cheapest choice takes
 */
export function raiseAbstractBudget(needed: number): string {
  return `Call again with abstract_budget_tokens of at least ${needed.toLocaleString('en-US')}, or name abstract_domains yourself, or add a filter that keeps fewer rows.`;
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

/**
 * For a client the proxy has no upstream session for: every one is held by another client, and
 * a session frees when its client ends or has been idle long enough.
 */
export const waitForUpstreamSession =
  'Try again in a few minutes, when idle clients have let theirs go; if it persists, tell the user that the operator must raise --max-upstream-sessions (maxUpstreamSessions).';

/** For a `subscriptions/listen` request naming more resources than one stream may hold upstream. */
export const listenToFewerResources =
  'Send the rest of the resources on another subscriptions/listen stream, or name only those you need now.';

/** For a slow answer: the next try may be faster, a smaller one surely is. */
export const retryOrAskForLess = 'Try again, or ask for less.';

/**
 * What the S2SP proxy (`s2sp-proxy`) adds to a table tool's description besides the protocol's
 * one line: its per-tool column catalogue and the arrays of a result with several.
 */
export const PROXY_TABLE_TEXT = Object.freeze({
  catalogue:
    'Columns with their estimated tokens per row in the abstract (from your earlier calls)',
  declaredColumns: 'Columns (from the tool’s declared output schema)',
  arrays:
    'Arrays of rows in this tool’s last result (names from the upstream’s result; pass one as table)',
});

/**
 * The proxy's part of the instructions it serves, after the upstream's own and the servers' S2SP
 * paragraph (`S2SP.instructions`): its label, and the parameters only the proxy adds to a table
 * tool, explained here once instead of in every table tool's entry of `tools/list`.
 */
export const PROXY_INSTRUCTIONS = Object.freeze({
  label: 'From the S2SP proxy in front of this server, not from the server itself:',
  parameters:
    'A proxy table tool also takes abstract_budget_tokens instead of abstract_domains: the tokens the abstract may take; the proxy picks the columns that fit, most distinctive first. ' +
    'When a result has several arrays of rows, set table (with abstract_domains) to the one to split, by member name or JSON Pointer (/result/items); the others are kept beside it. ' +
    'Where a tool has a parameter of one of these names itself, its description names the S2SP one (s2sp_…).',
});
