/**
 * The real-server matrix (issue 30 item 6): for one real MCP server from npm, the three
 * comparisons every server of the matrix must pass through the proxy —
 *
 * 1. a plain call (no `abstract_domains`) through the proxy equals the direct call, made in the
 *    same downstream session as the S2SP calls, with the SDK client's schema validation on;
 * 2. an S2SP call returns only the named columns plus `_row_id`, with the direct call's values;
 * 3. redeeming its `resource_url` returns every column of every row, compared value by value
 *    with the direct call;
 *
 * and, beside them, the bad input: a column the table lacks is refused with `invalid_request`.
 *
 * The expected rows come from the direct result, read by the test's own knowledge of the
 * server's shape (`spec.rows`), never by the proxy's detection. With `S2SP_RECORD_FIXTURES=1` the
 * direct result is also written to `test/fixtures/real-servers/<fixture>.json`.
 */
import { writeFileSync } from 'node:fs';
import type { Row } from '@s2sp/core';
import { expect } from 'vitest';
import type { StdioUpstream } from '../../src/index.js';
import type { TableToolRule } from '../../src/tables/table-tools.js';
import { httpClient, startProxy, stdioClient } from '../support.js';
import { call, code, type Result, s2sp, text } from '../table-calls.js';

/** One table tool of a real server, and how to read its direct answer. */
export interface RealServerSpec {
  /** The fixture's file name, `<server>-<tool>`. */
  readonly fixture: string;
  readonly upstream: StdioUpstream;
  /** The table tool, as configured in the proxy (`pointer` where detection cannot know). */
  readonly table: TableToolRule;
  /** The call's arguments, without `abstract_domains`. */
  readonly args: Record<string, unknown>;
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
   * (an HTML or Markdown table), so each value compares as the text the server printed, and the
   * redeemed rows compare by position rather than column name.
   */
  readonly values?: 'exact' | 'text';
  /** How many rows the direct call must return (the test data's size): guards an empty table. */
  readonly expectedRows: number;
}

// A text table's cells in order, each as printed: the column names of a table whose header
// has an empty cell (a row-number column) are the detector's choice, the values are not.
// An empty cell is the text of a null.
const asText = (rows: readonly Record<string, unknown>[]) =>
  rows.map((row) => Object.values(row).map((value) => String(value ?? '')));

/** The three comparisons for one server spec; throws (through `expect`) on the first mismatch. */
export async function checkRealServer(spec: RealServerSpec): Promise<void> {
  await using running = await startProxy({ upstream: spec.upstream, tableTools: [spec.table] });
  await using agent = await httpClient(running.listener.mcpUrl);
  await using direct = await stdioClient(
    spec.upstream,
    spec.upstream.env as Record<string, string>,
  );
  // Listing first: the SDK client validates a tool's structuredContent against the outputSchema
  // it listed, so both sides check what they receive.
  const listedDirect = await direct.client.listTools();
  const listedAgent = await agent.client.listTools();
  expect(listedAgent.tools.map((t) => t.name)).toEqual(listedDirect.tools.map((t) => t.name));

  const directResult = await call(direct.client, spec.table.name, spec.args);
  if (process.env.S2SP_RECORD_FIXTURES === '1') {
    writeFileSync(
      new URL(`../fixtures/real-servers/${spec.fixture}.json`, import.meta.url),
      `${JSON.stringify(directResult, null, 2)}\n`,
    );
  }
  expect(directResult.isError, JSON.stringify(directResult).slice(0, 500)).toBeFalsy();
  const rows = spec.rows(directResult);
  expect(rows).toHaveLength(spec.expectedRows);
  const stable = spec.unstable ?? ((result: Result) => result);

  // 1. A plain call, before and after the S2SP call in the same session.
  const plainBefore = await call(agent.client, spec.table.name, spec.args);
  expect(stable(plainBefore)).toEqual(stable(directResult));

  // 2. Only the named columns plus _row_id.
  const split = s2sp(
    await call(agent.client, spec.table.name, {
      ...spec.args,
      abstract_domains: spec.abstract.join(','),
    }),
  );
  expect(split.total_rows).toBe(rows.length);
  expect(split.abstract).toHaveLength(rows.length);
  const wanted = split.abstract.map((row) => Object.keys(row));
  expect(wanted).toEqual(rows.map(() => ['_row_id', ...spec.abstract]));
  const expectedAbstract = rows.map((row, i) => ({
    _row_id: i,
    ...Object.fromEntries(spec.abstract.map((column) => [column, row[column]])),
  }));
  if (spec.values === 'text') expect(asText(split.abstract)).toEqual(asText(expectedAbstract));
  else expect(split.abstract).toEqual(expectedAbstract);

  // 3. The resource_url redeems every column of every row.
  expect(split.resource_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/s2sp\/data\//);
  const response = await fetch(split.resource_url ?? '', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  expect(response.status).toBe(200);
  const { body } = (await response.json()) as { body: Record<string, unknown>[] };
  const expectedBody = rows.map((row, i) => ({ _row_id: i, ...row }));
  if (spec.values === 'text') expect(asText(body)).toEqual(asText(expectedBody));
  else expect(body).toEqual(expectedBody);

  const plainAfter = await call(agent.client, spec.table.name, spec.args);
  expect(stable(plainAfter)).toEqual(stable(directResult));

  // …and the bad input beside it: a column the table does not have is refused, naming one it has.
  const unknown = await call(agent.client, spec.table.name, {
    ...spec.args,
    abstract_domains: 'no_such_column',
  });
  expect(unknown.isError).toBe(true);
  expect(code(unknown)).toBe('invalid_request');
  expect(text(unknown)).toContain(JSON.stringify(spec.abstract[0]));
}
