import { buildResourceUrl, PROTOCOL, type RowWithId, S2SPError, type S2SPResult } from '@s2sp/core';
import { parseJsonText } from '@s2sp/core/json';
import { type BodyStore, collectBytes } from '@s2sp/core/store';
import { chooseShorterColumns, narrowTheAbstract, passNextCursor } from '../advice.js';
import type { CallToolResult } from '../mcp-sdk.js';
import { splitPages } from './abstract-pages.js';
import { profileColumns } from './column-profile.js';
import type { AbstractRows } from './column-split.js';
import { encodeCompactRows } from './compact-abstract.js';
import { decodePageCursor, encodePageCursor, pageStorageKey } from './page-cursor.js';
import { expiryStamp } from './s2sp-result.js';
import { budgetTokens } from './token-estimate.js';

const ROW_ID = PROTOCOL.rowId;

/** How the abstract is written for the model (PROTOCOL §7, compact encoding). */
export type AbstractEncoding = (typeof PROTOCOL.abstractEncodings)[number];

/** The members of a result that every page repeats. */
export interface ResultHead {
  readonly total_rows: number;
  readonly abstract_domains: string[];
  readonly body_domains: string[];
  /** Only with a filter: how many rows matched it. */
  readonly matched_rows?: number;
  /** Only when `body_domains` was cut to fit the budget: how many names it leaves out. */
  readonly body_domains_omitted?: number;
}

/**
 * `body_domains` within a quarter of the token budget: a table's column names are its data, and
 * 20,000 long ones would take any budget by themselves. The names that fit are listed in order;
 * `body_domains_omitted` says how many more there are (the consumer still gets every column).
 *
 * @param names - every body column
 * @param budget - the result's token budget
 */
export function fitBodyDomains(
  names: readonly string[],
  budget: number,
): { body_domains: string[]; body_domains_omitted?: number } {
  const room = Math.floor(budget / 4);
  if (budgetTokens(JSON.stringify(names)) <= room) return { body_domains: [...names] };
  const listed: string[] = [];
  let used = budgetTokens('"body_domains_omitted":1000000,');
  for (const name of names) {
    const cost = budgetTokens(JSON.stringify(name)) + 1;
    if (used + cost > room) break;
    used += cost;
    listed.push(name);
  }
  return { body_domains: listed, body_domains_omitted: names.length - listed.length };
}

/** What one page of an async result is built from. */
export interface PageInput {
  readonly head: ResultHead;
  readonly rows: AbstractRows;
  readonly token: string;
  readonly resourceUrl: string;
  readonly expiresAt: Date;
  readonly budget: number;
}

/**
 * Counts stored pages against the caller's per-client quota like any other entry, so paging cannot
 * multiply what one client holds (PROTOCOL §7.2: page entries count like any entry).
 */
export interface PageSlots {
  /** @throws S2SPError `store_full` when the client holds its limit (entries or bytes) */
  reserve(key: string, bytes: number): void;
  release(key: string): void;
}

/**
 * One stored page: everything but the token-bearing `resource_url` and `next_cursor`, its rows
 * packed ({@link packRows}). A page stored by an earlier version holds `abstract` instead.
 */
interface StoredPage {
  readonly head: ResultHead;
  readonly rows?: PackedRows;
  readonly abstract?: RowWithId[];
  readonly expires_at: string;
  readonly more: boolean;
}

/**
 * A page's abstract rows as the store keeps them: each distinct row (without its `_row_id`) once,
 * and per row its id and which of them it is. An abstract of a few columns repeats few values (a
 * CSV of 566k short rows: 16 distinct rows), and its pages, stored row by row, were 1.7 times the
 * CSV's size; packed they are a sixth of that.
 */
interface PackedRows {
  readonly ids: number[];
  /** Row `k` is `{ _row_id: ids[k], ...values[of[k]] }`. */
  readonly of: number[];
  readonly values: Record<string, unknown>[];
}

/** Packs abstract rows for the store; {@link unpackRows} gives them back, equal and in order. */
export function packRows(rows: readonly RowWithId[]): PackedRows {
  const seen = new Map<string, number>();
  const packed: PackedRows = { ids: [], of: [], values: [] };
  for (const row of rows) {
    const { [ROW_ID]: id, ...values } = row;
    const key = JSON.stringify(values);
    let index = seen.get(key);
    if (index === undefined) {
      index = packed.values.length;
      seen.set(key, index);
      packed.values.push(values);
    }
    packed.ids.push(id);
    packed.of.push(index);
  }
  return packed;
}

/** The abstract rows {@link packRows} packed, `_row_id` first. */
export function unpackRows(packed: PackedRows): RowWithId[] {
  return packed.ids.map((id, k) => ({ [ROW_ID]: id, ...packed.values[packed.of[k] as number] }));
}

function asyncResult(
  head: ResultHead,
  abstract: RowWithId[],
  resourceUrl: string,
  expiresAt: string,
  extra: Record<string, unknown>,
): S2SPResult {
  return { ...head, abstract, resource_url: resourceUrl, expires_at: expiresAt, ...extra };
}

/** Abstract rows made at a time while their costs are counted. */
const COST_RUN = 4096;

/**
 * Each abstract row's tokens on a page: `budgetTokens` of its JSON, plus one for its comma.
 *
 * @param rows - the abstract, made a run of rows at a time and not kept
 */
export function abstractCosts(rows: AbstractRows): Uint32Array {
  const costs = new Uint32Array(rows.length);
  for (let start = 0; start < rows.length; start += COST_RUN) {
    const run = rows.slice(start, start + COST_RUN);
    for (let j = 0; j < run.length; j++)
      costs[start + j] = budgetTokens(JSON.stringify(run[j])) + 1;
  }
  return costs;
}

/** Budgets' worth of row costs up to which a result's tokens are counted on its whole JSON. */
const EXACT_BUDGETS = 4;

/**
 * `budgetTokens` of the JSON of `make(every abstract row)`, without writing a large abstract as
 * one string (31 MB for 566k short rows): exact while the rows' costs add up to at most
 * {@link EXACT_BUDGETS} budgets. Past that the result is far over its budget (in the array a row
 * costs at least about half of its cost alone, which counts its comma and rounds up), and the
 * figure is scaled from the JSON of the first rows that cost that much.
 *
 * @param make - the result with the given abstract rows
 * @param costs - {@link abstractCosts} of `rows`
 */
export function resultTokens(
  make: (abstract: RowWithId[]) => S2SPResult,
  rows: AbstractRows,
  costs: ArrayLike<number>,
  budget: number,
): number {
  let sum = 0;
  let k = 0;
  while (k < costs.length && sum <= EXACT_BUDGETS * budget) sum += costs[k++] as number;
  const tokens = budgetTokens(JSON.stringify(make(rows.slice(0, k))));
  if (k === costs.length) return tokens;
  // Never seen: the first rows alone within the budget. The whole then decides, as it did.
  if (tokens <= budget) return budgetTokens(JSON.stringify(make(rows.slice())));
  let total = sum;
  for (let j = k; j < costs.length; j++) total += costs[j] as number;
  return Math.round((tokens * total) / sum);
}

/**
 * The first page of an async result that is over its token budget (PROTOCOL §7, paging): as many
 * rows as fit with a profile of every abstract column and `next_cursor`; the other pages go into
 * the store under their own digest keys, to expire with the table. Each cursor call takes one
 * page, so paging never touches the table's entry and the `resource_url` stays unused.
 *
 * @param slots - the caller's quota, charged one entry per stored page
 * @returns the first page, or `undefined` when the whole result fits the budget
 * @throws S2SPError `store_full` / `unavailable` from the store or the quota
 */
export async function pageAsyncResult(
  input: PageInput,
  store: BodyStore,
  slots?: PageSlots,
): Promise<S2SPResult | undefined> {
  const { head, rows, token, resourceUrl, budget } = input;
  const expiresAt = expiryStamp(input.expiresAt);
  const costs = abstractCosts(rows);
  const whole = (abstract: RowWithId[]) => asyncResult(head, abstract, resourceUrl, expiresAt, {});
  if (resultTokens(whole, rows, costs, budget) <= budget) return undefined;

  const cursor = encodePageCursor(token, 9_999_999);
  const later = budgetTokens(
    JSON.stringify(asyncResult(head, [], resourceUrl, expiresAt, { next_cursor: cursor })),
  );
  // The profile gets at most half of the budget: fewer listed values, then none at all.
  let profile: Record<string, unknown> | undefined;
  let first = later;
  for (const top of [10, 3]) {
    // From the table's rows, whose abstract columns' values the abstract rows would copy.
    const candidate = profileColumns(rows.source, head.abstract_domains, { top });
    const cost = later + budgetTokens(JSON.stringify({ profile: candidate }));
    if (cost <= budget / 2) {
      profile = candidate;
      first = cost;
      break;
    }
  }
  // A row no page can hold (a 2 MiB cell) is refused, never sent over the budget.
  const room = Math.min(budget - first, budget - later);
  let widest = 0;
  for (const cost of costs) widest = Math.max(widest, cost);
  if (room <= 0 || widest > budget - later) {
    throw new S2SPError(
      'payload_too_large',
      room <= 0
        ? `This result's head alone is about ${later} tokens, over its budget of ${budget}. ${narrowTheAbstract(false)}`
        : `One abstract row is about ${widest} tokens, over a page's room of ${budget - later}. ${chooseShorterColumns}`,
    );
  }
  const pages = splitPages(costs, budget - first, budget - later);

  const ttlMs = Math.max(1, input.expiresAt.getTime() - Date.now());
  const written: string[] = [];
  try {
    for (let page = 1; page < pages.length; page++) {
      const [start, end] = pages[page] as [number, number];
      const stored: StoredPage = {
        head,
        rows: packRows(rows.slice(start, end)),
        expires_at: expiresAt,
        more: page < pages.length - 1,
      };
      const key = await pageStorageKey(token, page);
      const text = JSON.stringify(stored);
      slots?.reserve(key, text.length);
      written.push(key);
      await store.put(key, { columns: [], rows: [text] }, { ttlMs });
    }
  } catch (error) {
    // The result is not returned, so no page of it may stay behind counting against the store's
    // budget and the client's quota until the TTL.
    for (const key of written) {
      slots?.release(key);
      // Taken only to go: nothing reads its bytes, so the store may reuse them at once.
      await store.take(key).then(
        (taken) => taken?.release?.(),
        () => undefined,
      );
    }
    throw error;
  }
  const [start, end] = pages[0] as [number, number];
  return asyncResult(head, rows.slice(start, end), resourceUrl, expiresAt, {
    next_cursor: encodePageCursor(token, 1),
    ...(profile && { profile }),
  });
}

/**
 * Refuses a result over its token budget that cannot be paged: sync mode (nothing is cached), or a
 * tool whose own `cursor` parameter leaves the caller no way to send a `next_cursor` back. A model
 * given the first rows without a way on would take them for the whole table.
 *
 * @param result - the whole result as the model would read it (a sync body left out: the agent's
 *   S2SP layer keeps it from the model), or its tokens ({@link resultTokens})
 * @throws S2SPError `payload_too_large` with advice, when over the budget
 */
export function assertWithinBudget(
  result: S2SPResult | number,
  budget: number,
  why: 'sync' | 'no-cursor',
): void {
  const tokens = typeof result === 'number' ? result : budgetTokens(JSON.stringify(result));
  if (tokens <= budget) return;
  const reason =
    why === 'sync'
      ? 'sync mode is not paged'
      : 'this tool cannot page it (its own "cursor" parameter is not the S2SP one)';
  throw new S2SPError(
    'payload_too_large',
    `This result's abstract is about ${tokens} tokens, over this tool's budget of ${budget}, and ${reason}. ${narrowTheAbstract(why === 'sync')}`,
  );
}

/**
 * Reads the page a cursor names (PROTOCOL §7, paging), once.
 *
 * @param cursor - the `next_cursor` the model passed back
 * @param base - the advertised base URL, to rebuild the `resource_url`
 * @param slots - the quota the page was counted in, released once it is read
 * @throws S2SPError `invalid_request` for something that is not a cursor, `not_found` for a page
 *   that expired or was already read
 */
export async function readPage(
  cursor: unknown,
  store: BodyStore,
  base: string,
  slots?: Pick<PageSlots, 'release'>,
): Promise<S2SPResult> {
  const { token, page } = decodePageCursor(cursor);
  const key = await pageStorageKey(token, page);
  const taken = await store.take(key, [0]);
  slots?.release(key);
  if (!taken || taken.ends.length === 0) {
    throw new S2SPError(
      'not_found',
      `This cursor has expired or was already used (each page can be read once). ${passNextCursor}`,
    );
  }
  // A page entry holds one row, so the joined bytes are that row.
  const text = new TextDecoder().decode(await collectBytes(taken.chunks));
  // The text is a copy: the page's bytes may go back to the store.
  taken.release?.();
  const stored = parseJsonText(
    text,
    () => new S2SPError('internal', 'A cached page could not be read.'),
  ) as StoredPage;
  return asyncResult(
    stored.head,
    stored.abstract ?? (stored.rows ? unpackRows(stored.rows) : []),
    buildResourceUrl(base, token),
    stored.expires_at,
    stored.more ? { next_cursor: encodePageCursor(token, page + 1) } : {},
  );
}

/**
 * The tool result for an S2SP object: compact JSON text (or the compact encoding, for async
 * results when the server opts in) plus the object itself as `structuredContent`.
 *
 * @param declaredColumns - columns the tool description already lists; the compact text leaves
 *   out `body_domains` when it names nothing else
 */
export function s2spToolResult(
  result: S2SPResult,
  encoding: AbstractEncoding,
  declaredColumns: readonly string[] = [],
): CallToolResult {
  let text: string;
  if (encoding === 'compact' && result.body === undefined) {
    const { body_domains, abstract, ...rest } = result;
    const listed = body_domains.every((column) => declaredColumns.includes(column));
    text = JSON.stringify({
      ...rest,
      ...(!listed && { body_domains }),
      abstract: encodeCompactRows(abstract, result.abstract_domains),
    });
  } else text = JSON.stringify(result);
  return { content: [{ type: 'text', text }], structuredContent: result };
}
