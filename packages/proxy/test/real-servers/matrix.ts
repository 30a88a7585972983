/**
 * The real-server matrix: one table tool of a real MCP server
 * from npm, run through two proxies — one configured with the tool's `--table-tool` flag from
 * `servers.ts`, one started with no flag (auto-detection) — and compared with a direct call.
 *
 * Configured:
 * 1. a plain call through the proxy equals the direct call, before and after the S2SP calls in
 *    the same session, with the SDK client's schema validation on;
 * 2. an S2SP call returns only the named columns plus `_row_id`, with the direct call's values
 *    (and, where the upstream said its answer is partial, what it said);
 * 3. redeeming its `resource_url` returns every column of every row, compared value by value
 *    with the direct call;
 * and the bad input: a column the table lacks is refused with `invalid_request`.
 *
 * Without a flag, what `servers.ts` says of the tool (`WithoutFlag`): whether it is offered the
 * S2SP parameters before and after its first plain result, and then comparisons 2 and 3 as the
 * model would reach them (naming the table where the `invalid_rows` advice lists several), or
 * the `invalid_rows` advice it reads instead.
 *
 * The expected rows come from the direct result, read by the test's own knowledge of the
 * server's shape (`spec.rows`), never by the proxy's detection. With `S2SP_RECORD_FIXTURES=1` a
 * small direct result (`spec.fixtureArgs`) is written to `test/fixtures/real-servers/`, under the
 * tool's `fixture` name in `servers.ts`.
 */
import { writeFileSync } from 'node:fs';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Row } from '@s2sp/core';
import { readS2SPReceipt } from '@s2sp/core/receipt';
import { TOKEN_ESTIMATE_ERROR } from '@s2sp/server';
import { Tiktoken } from 'js-tiktoken/lite';
import o200kRanks from 'js-tiktoken/ranks/o200k_base';
import { expect } from 'vitest';
import { callToolPlainly, nameTheTable } from '../../src/advice.js';
import type { StdioUpstream } from '../../src/index.js';
import { parseTableToolRule } from '../../src/tables/table-tool-rule.js';
import { httpClient, startProxy, stdioClient } from '../support.js';
import { call, code, listed, type Result, s2sp, text } from '../table-calls.js';
import { matrixTool, type WithoutFlag } from './servers.js';

/** One table tool of a real server, how to call it and how to read its direct answer. */
export interface RealServerSpec {
  /** The npm package, as in `servers.ts`. */
  readonly server: string;
  /** The table tool, as in `servers.ts`. */
  readonly tool: string;
  readonly upstream: StdioUpstream;
  /** The call's arguments, without `abstract_domains`. */
  readonly args: Record<string, unknown>;
  /**
   * The arguments of the small call recorded as the fixture. Default: `args`. With
   * `fixtureEnv`, recorded from another instance of the upstream with that environment added.
   */
  readonly fixtureArgs?: Record<string, unknown>;
  readonly fixtureEnv?: Record<string, string>;
  /** The columns the model asks for; at least one, not all. */
  readonly abstract: readonly string[];
  /** The rows of a direct result, as the server's documentation describes its answer. */
  rows(direct: Result): Row[];
  /**
   * What may differ between two calls of the same tool (an execution time): replaced in both
   * results before comparison 1.
   */
  readonly unstable?: (result: Result) => Result;
  /**
   * `exact` (default): values compare with `toEqual`. `text`: the server answers with text cells
   * (CSV, an HTML table), so each value compares as the text the server printed, and the
   * redeemed rows compare by position rather than column name.
   */
  readonly values?: 'exact' | 'text';
  /** How many rows the direct call must return (the test data's size): guards an empty table. */
  readonly expectedRows: number;
  /**
   * Texts of the direct result the S2SP result must pass on after the abstract: what the upstream
   * said about its answer (a partial answer's count and hint). Default: none, and none may be.
   */
  readonly upstreamSays?: (direct: Result) => readonly string[];
}

/** The cells compared, for a report: redeemed rows × columns, of both runs. */
export interface RealServerCheck {
  readonly cells: number;
}

// A text table's cells in order, each as printed: the column names of a table whose header
// has an empty cell (a row-number column) are the detector's choice, the values are not.
// An empty cell is the text of a null.
const asText = (rows: readonly Record<string, unknown>[]) =>
  rows.map((row) => Object.values(row).map((value) => String(value ?? '')));

async function redeem(url: string | undefined): Promise<Record<string, unknown>[]> {
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/s2sp\/data\//);
  const response = await fetch(url ?? '', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { body: Record<string, unknown>[] }).body;
}

/**
 * Comparisons 2 and 3 for one S2SP call: the abstract's columns and values, then every redeemed
 * cell. Returns the S2SP call's result and the cells compared.
 */
async function splitAndRedeem(
  client: Client,
  spec: RealServerSpec,
  rows: readonly Row[],
  extra: Record<string, unknown>,
): Promise<{ result: Result; cells: number }> {
  const result = await call(client, spec.tool, {
    ...spec.args,
    ...extra,
    abstract_domains: spec.abstract.join(','),
  });
  const split = s2sp(result);
  expect(split.total_rows).toBe(rows.length);
  expect(split.abstract).toHaveLength(rows.length);
  expect(split.abstract.map((row) => Object.keys(row))).toEqual(
    rows.map(() => ['_row_id', ...spec.abstract]),
  );
  const expectedAbstract = rows.map((row, i) => ({
    _row_id: i,
    ...Object.fromEntries(spec.abstract.map((column) => [column, row[column]])),
  }));
  if (spec.values === 'text') expect(asText(split.abstract)).toEqual(asText(expectedAbstract));
  else expect(split.abstract).toEqual(expectedAbstract);

  const body = await redeem(split.resource_url);
  const expectedBody = rows.map((row, i) => ({ _row_id: i, ...row }));
  if (spec.values === 'text') expect(asText(body)).toEqual(asText(expectedBody));
  else expect(body).toEqual(expectedBody);
  const cells = expectedBody.reduce((sum, row) => sum + Object.keys(row).length - 1, 0);
  return { result, cells };
}

const o200k = new Tiktoken(o200kRanks);
/** o200k tokens of a result's text blocks: what the model reads of it. */
const readTokens = (result: Result) =>
  result.content.reduce(
    (sum, block) => sum + (block.type === 'text' ? o200k.encode(block.text ?? '').length : 0),
    0,
  );

/**
 * The savings receipt against the saving counted in o200k tokens (the direct answer the model
 * would have read less what it reads of the S2SP result): off by no more than the estimator's
 * band on what it counted, `TOKEN_ESTIMATE_ERROR` of the direct answer. Measured: within 6% of
 * the saving on every database tool (4% low as JSON, 5.7% as CSV in a JSON string: off by 2,702
 * of a bound of 5,009 tokens; before the one-token word lookup 7.6% and 10.1%, 4,769 of 5,009).
 */
function checkReceipt(direct: Result, result: Result): void {
  const plain = readTokens(direct);
  const saved = plain - readTokens(result);
  const receipt = readS2SPReceipt(result);
  expect(receipt).toBeDefined();
  expect(Math.abs((receipt?.tokens_saved ?? 0) - saved)).toBeLessThan(TOKEN_ESTIMATE_ERROR * plain);
}

/** The texts after the abstract that pass on what the upstream said, checked against the spec. */
function checkUpstreamSays(spec: RealServerSpec, direct: Result, result: Result): void {
  const said = result.content
    .slice(1)
    .map((block) => block.text)
    .join('\n');
  const expected = spec.upstreamSays?.(direct) ?? [];
  for (const piece of expected) expect(said).toContain(piece);
}

/** The tool offers the S2SP parameters to this client. */
async function offered(client: Client, tool: string): Promise<boolean> {
  const found = await listed(client, tool);
  expect(found, `${tool} is listed`).toBeDefined();
  return Object.hasOwn(found?.inputSchema.properties ?? {}, 'abstract_domains');
}

/**
 * Both runs for one server spec; throws (through `expect`) on the first mismatch.
 *
 * @returns the number of redeemed cells compared with the direct call's
 */
export async function checkRealServer(spec: RealServerSpec): Promise<RealServerCheck> {
  const entry = matrixTool(spec.server, spec.tool);
  await using direct = await stdioClient(
    spec.upstream,
    spec.upstream.env as Record<string, string> | undefined,
  );
  const directResult = await call(direct.client, spec.tool, spec.args);
  expect(directResult.isError, JSON.stringify(directResult).slice(0, 500)).toBeFalsy();
  const rows = spec.rows(directResult);
  expect(rows).toHaveLength(spec.expectedRows);
  if (process.env.S2SP_RECORD_FIXTURES === '1')
    await recordFixture(spec, entry.fixture, direct.client);

  const configured = await checkConfigured(spec, entry.flag, directResult, rows);
  const unconfigured = await checkWithoutFlag(spec, entry.withoutFlag, directResult, rows);
  return { cells: configured + unconfigured };
}

async function recordFixture(spec: RealServerSpec, fixture: string, direct: Client): Promise<void> {
  const args = spec.fixtureArgs ?? spec.args;
  let result: Result;
  if (spec.fixtureEnv) {
    const env = { ...(spec.upstream.env ?? {}), ...spec.fixtureEnv };
    await using small = await stdioClient({ ...spec.upstream, env }, env);
    result = await call(small.client, spec.tool, args);
  } else result = await call(direct, spec.tool, args);
  writeFileSync(
    new URL(`../fixtures/real-servers/${fixture}.json`, import.meta.url),
    `${JSON.stringify(result, null, 2)}\n`,
  );
}

async function checkConfigured(
  spec: RealServerSpec,
  flag: string,
  directResult: Result,
  rows: readonly Row[],
): Promise<number> {
  await using running = await startProxy({
    upstream: spec.upstream,
    tableTools: [parseTableToolRule('--table-tool', flag)],
  });
  await using agent = await httpClient(running.listener.mcpUrl);
  await using direct = await stdioClient(
    spec.upstream,
    spec.upstream.env as Record<string, string> | undefined,
  );
  // Listing first: the SDK client validates a tool's structuredContent against the outputSchema
  // it listed, so both sides check what they receive.
  const listedDirect = await direct.client.listTools();
  const listedAgent = await agent.client.listTools();
  expect(listedAgent.tools.map((t) => t.name)).toEqual(listedDirect.tools.map((t) => t.name));
  expect(await offered(agent.client, spec.tool)).toBe(true);
  const stable = spec.unstable ?? ((result: Result) => result);

  // 1. A plain call, before and after the S2SP call in the same session.
  const plainBefore = await call(agent.client, spec.tool, spec.args);
  expect(stable(plainBefore)).toEqual(stable(directResult));

  // 2 and 3. Only the named columns plus _row_id; every column of every row redeemed.
  const { result, cells } = await splitAndRedeem(agent.client, spec, rows, {});
  checkUpstreamSays(spec, directResult, result);
  checkReceipt(directResult, result);

  const plainAfter = await call(agent.client, spec.tool, spec.args);
  expect(stable(plainAfter)).toEqual(stable(directResult));

  // …and the bad input beside it: a column the table does not have is refused, naming one it has.
  const unknown = await call(agent.client, spec.tool, {
    ...spec.args,
    abstract_domains: 'no_such_column',
  });
  expect(unknown.isError).toBe(true);
  expect(code(unknown)).toBe('invalid_request');
  expect(text(unknown)).toContain(JSON.stringify(spec.abstract[0]));
  return cells;
}

async function checkWithoutFlag(
  spec: RealServerSpec,
  withoutFlag: WithoutFlag,
  directResult: Result,
  rows: readonly Row[],
): Promise<number> {
  await using running = await startProxy({ upstream: spec.upstream });
  await using agent = await httpClient(running.listener.mcpUrl);
  const stable = spec.unstable ?? ((result: Result) => result);
  // None of the matrix's tools declares its rows in an outputSchema: nothing is offered before a
  // result shows a table.
  expect(await offered(agent.client, spec.tool)).toBe(false);
  const plain = await call(agent.client, spec.tool, spec.args);
  expect(stable(plain)).toEqual(stable(directResult));
  const s2spCall = { ...spec.args, abstract_domains: spec.abstract.join(',') };

  if (withoutFlag === 'writes' || withoutFlag === 'no-table-declared') {
    expect(await offered(agent.client, spec.tool)).toBe(false);
    return 0;
  }
  if (withoutFlag === 'refused') {
    expect(await offered(agent.client, spec.tool)).toBe(false);
    const refused = await call(agent.client, spec.tool, s2spCall);
    expect(code(refused)).toBe('invalid_rows');
    expect(text(refused)).toContain(callToolPlainly);
    return 0;
  }
  // The first result taught the proxy the table: from now on the tool is listed with S2SP.
  expect(await offered(agent.client, spec.tool)).toBe(true);
  if (withoutFlag === 'detected') {
    const { result, cells } = await splitAndRedeem(agent.client, spec, rows, {});
    checkUpstreamSays(spec, directResult, result);
    return cells;
  }
  // Several arrays: the model reads which, and names one.
  const ambiguous = await call(agent.client, spec.tool, s2spCall);
  expect(code(ambiguous)).toBe('invalid_rows');
  expect(text(ambiguous)).toContain(JSON.stringify(`/${withoutFlag.table}`));
  expect(text(ambiguous)).toContain(nameTheTable);
  const { cells } = await splitAndRedeem(agent.client, spec, rows, { table: withoutFlag.table });
  return cells;
}
