/**
 * Tool results for the table-detection tests: text blocks holding a value (JSON, pretty-printed,
 * unless it is a string), and a small table.
 *
 * @module
 */

import type { CallToolResult } from '../../../mcp-sdk.js';
import { LargeText } from '../../../upstream/large-strings.js';

/** The options of most calls: a text limit no test result reaches. */
export const opts = { maxTextLength: 1_000_000 };
/** A text block holding `value`: a string as it is, anything else as pretty-printed JSON. */
export const block = (value: unknown) => ({
  type: 'text' as const,
  text: typeof value === 'string' ? value : JSON.stringify(value, null, 2),
});
/** A result of one text block per value. */
export const text = (...values: unknown[]): CallToolResult => ({ content: values.map(block) });
/**
 * A text's UTF-8 in a resizable buffer of its own, as the stdio line buffer hands a large text
 * over (`LargeText.release` can give it back).
 */
export const resizableUtf8 = (value: string): Uint8Array => {
  const encoded = new TextEncoder().encode(value);
  const buffer = new (
    ArrayBuffer as unknown as new (
      length: number,
      options: { maxByteLength: number },
    ) => ArrayBuffer
  )(encoded.length, { maxByteLength: encoded.length });
  new Uint8Array(buffer).set(encoded);
  return new Uint8Array(buffer);
};
/** A result of one text block kept as bytes, as an async split's upstream answer keeps a large one. */
export const largeText = (value: string): CallToolResult => ({
  content: [{ type: 'text', text: new LargeText(resizableUtf8(value)) as unknown as string }],
});
/** A small table whose rows have different columns. */
export const ROWS = [{ id: 1 }, { id: 2, name: 'b' }];

/**
 * Recorded shapes of real servers' answers, written the way each package's source writes them
 * (read from the published tarballs named below), around `rows`.
 */
export const REAL = {
  /**
   * `mcp-postgres-server` 0.3.1, `query` (build/index.js `queryData`): compact JSON; rows cut at
   * `PG_MAX_RESULT_BYTES` (32 KiB) with `rowCount` the query's count, `truncated` and a `hint`.
   */
  cappedQuery: (rows: readonly object[], total: number): CallToolResult => ({
    content: [
      {
        type: 'text',
        text: JSON.stringify({
          rows,
          rowCount: total,
          returnedRows: rows.length,
          truncated: rows.length < total,
          ...(rows.length < total && {
            hint: `returned ${rows.length} of ${total} rows (~32768-byte budget): add LIMIT/WHERE or select fewer columns`,
          }),
        }),
      },
    ],
  }),
  /**
   * `@henkey/postgres-mcp-server` 1.0.7, `pg_execute_query` with `operation: "select"`
   * (build/tools/data.js): a prose line, then the rows pretty-printed, in one text block.
   */
  proseThenJson: (rows: readonly object[]): CallToolResult => ({
    content: [
      {
        type: 'text',
        text: `Query executed successfully. Retrieved ${rows.length} rows.\n\nResults:\n${JSON.stringify(rows, null, 2)}`,
      },
    ],
  }),
  /**
   * `@berthojoris/mcp-mysql-server` 1.43.2, `export_query_to_csv` (dist/tools/dataExportTools.js
   * `rowsToCSV`, dist/mcp-server.js): `{csv, row_count}` pretty-printed; the CSV quotes only
   * cells holding `",\r\n`, writes null as an empty cell and ends with a line break.
   */
  csvInJson: (csv: string, count: number): CallToolResult => ({
    content: [{ type: 'text', text: JSON.stringify({ csv, row_count: count }, null, 2) }],
  }),
  /**
   * `@pollinations/mcp-server-sqlite` 0.6.6, `execute_query_with_url` (dist/index.js): one text
   * block, prose, the first 5 rows pretty-printed, then more prose (the count and two URLs); with
   * no rows, one line of prose.
   */
  proseAroundJson: (rows: readonly object[], query = 'SELECT * FROM cities'): CallToolResult => {
    const url = `http://localhost:3000/query?sql=${encodeURIComponent(query)}`;
    return {
      content: [
        {
          type: 'text',
          text:
            rows.length === 0
              ? 'Query executed successfully but returned no results.'
              : `Query result\n\nPreview (first 5 rows):\n${JSON.stringify(rows.slice(0, 5), null, 2)}\n\nTotal rows: ${rows.length}\n\nFull results available at:\n- CSV: ${url}\n- JSON: ${url}&format=json`,
        },
      ],
    };
  },
  /**
   * github-mcp-server: a tool result marshalled into the text of a text block
   * (`{"content": [{"type": "text", "text": "..."}]}`).
   */
  contentWrapper: (inner: string): CallToolResult => ({
    content: [{ type: 'text', text: JSON.stringify({ content: [{ type: 'text', text: inner }] }) }],
  }),
};
