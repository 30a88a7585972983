/**
 * The real-server matrix's configuration, the one source for the tests and the documentation:
 * every server, its pinned version, each table tool the tests call, the `--table-tool` flag of
 * the configured run, and what the same tool does through a proxy started with no flag. The
 * tests run each tool both ways (`matrix.ts`); `readme-table.test.ts` checks the proxy README's
 * table and the guide's against this list, and the versions against package.json.
 */

/**
 * What a tool does through a proxy started without `--table-tool` (auto-detection on):
 *
 * - `detected`: its first plain result teaches the proxy the table; the tool is listed with the
 *   S2SP parameters from then on, and an S2SP call splits it.
 * - `{ table }`: the result has several arrays; an S2SP call is refused with `invalid_rows`
 *   listing them and advising to name one, and a call naming `table` splits it.
 * - `refused`: an S2SP call is refused with `invalid_rows` advising a plain call (no table the
 *   proxy can find on its own); the flag is needed.
 * - `writes`: the tool's annotations say it writes (`destructiveHint`), so it is never offered the
 *   S2SP parameters; the flag is needed.
 * - `no-table-declared`: its `outputSchema` declares no array of rows, so it is never offered the
 *   S2SP parameters; the flag is needed.
 */
export type WithoutFlag =
  | 'detected'
  | 'refused'
  | 'writes'
  | 'no-table-declared'
  | { readonly table: string };

/** One table tool of a matrix server. */
export interface MatrixTool {
  readonly tool: string;
  /**
   * Its recorded answer, `test/fixtures/real-servers/<fixture>.json` (a small call, written by
   * its test with `S2SP_RECORD_FIXTURES=1`), and the rows that answer holds.
   */
  readonly fixture: string;
  readonly fixtureRows: number;
  /** What its answer looks like, for the table (Markdown). */
  readonly answer: string;
  /** The `--table-tool` value of the configured run. */
  readonly flag: string;
  readonly withoutFlag: WithoutFlag;
}

/** One server of the matrix. */
export interface MatrixServer {
  /** The npm package. */
  readonly server: string;
  /** Its pinned version (the proxy's devDependency). */
  readonly version: string;
  /** What it runs on in the tests, for the table: `PostgreSQL`, `a temporary directory`. */
  readonly on: string;
  /** Its table tools; none for a server the tests relay without tables. */
  readonly tools: readonly MatrixTool[];
}

const JSON_ARRAY = 'an indented JSON array in one text block';
const PROSE_THEN_JSON =
  'one text block: a prose line (`… Retrieved 150 rows.`), `Results:`, an indented JSON array';

/** A tool detected from its first result, configured by its name alone. */
const detected = (tool: Pick<MatrixTool, 'tool' | 'answer' | 'fixture' | 'fixtureRows'>) =>
  ({ ...tool, flag: tool.tool, withoutFlag: 'detected' }) satisfies MatrixTool;

/** Every server the proxy is tested in front of. */
export const MATRIX: readonly MatrixServer[] = [
  {
    server: '@modelcontextprotocol/server-postgres',
    version: '0.6.2',
    on: 'PostgreSQL',
    tools: [
      detected({ tool: 'query', answer: JSON_ARRAY, fixture: 'postgres-query', fixtureRows: 2 }),
    ],
  },
  {
    server: '@zeddotdev/postgres-context-server',
    version: '0.1.7',
    on: 'PostgreSQL',
    tools: [
      detected({
        tool: 'query',
        answer: JSON_ARRAY,
        fixture: 'zed-postgres-query',
        fixtureRows: 2,
      }),
    ],
  },
  {
    server: 'mcp-postgres-server',
    version: '0.3.1',
    on: 'PostgreSQL',
    tools: [
      detected({
        tool: 'query',
        fixture: 'mcp-postgres-server-query',
        fixtureRows: 2,
        answer:
          'compact JSON `{rows, rowCount, returnedRows, truncated, hint}`, cut at 32 KiB (18 of the 150 rows): the S2SP result passes on its count and hint',
      }),
    ],
  },
  {
    server: '@henkey/postgres-mcp-server',
    version: '1.0.7',
    on: 'PostgreSQL',
    tools: [
      detected({
        tool: 'pg_execute_query',
        answer: PROSE_THEN_JSON,
        fixture: 'henkey-pg_execute_query',
        fixtureRows: 2,
      }),
      detected({
        tool: 'pg_execute_sql',
        answer: PROSE_THEN_JSON,
        fixture: 'henkey-pg_execute_sql',
        fixtureRows: 2,
      }),
    ],
  },
  {
    server: '@bytebase/dbhub',
    version: '1.4.0',
    on: 'PostgreSQL, Node 22',
    tools: [
      {
        tool: 'execute_sql',
        fixture: 'dbhub-execute_sql',
        fixtureRows: 2,
        answer: 'indented JSON `{success, data: {statements: [{sql, rows, count}]}}`',
        flag: 'execute_sql',
        withoutFlag: 'writes',
      },
    ],
  },
  {
    server: '@benborla29/mcp-server-mysql',
    version: '2.0.9',
    on: 'MariaDB',
    tools: [
      detected({
        tool: 'mysql_query',
        fixture: 'mysql-mysql_query',
        fixtureRows: 2,
        answer:
          'two text blocks: an indented JSON array, then `Query execution time: N ms` (kept after the abstract)',
      }),
    ],
  },
  {
    server: '@berthojoris/mcp-mysql-server',
    version: '1.43.2',
    on: 'MariaDB',
    tools: [
      detected({
        tool: 'run_select_query',
        answer: JSON_ARRAY,
        fixture: 'berthojoris-run_select_query',
        fixtureRows: 2,
      }),
      detected({
        tool: 'read_records',
        answer: JSON_ARRAY,
        fixture: 'berthojoris-read_records',
        fixtureRows: 2,
      }),
      {
        tool: 'export_query_to_csv',
        fixture: 'berthojoris-export_query_to_csv',
        fixtureRows: 2,
        answer:
          "indented JSON `{csv, row_count}`: CSV inside a string (a DECIMAL's `74.50` is redeemed as printed)",
        flag: 'export_query_to_csv:/csv:csv',
        withoutFlag: 'detected',
      },
    ],
  },
  {
    server: 'mcp-server-sqlite-npx',
    version: '0.8.0',
    on: 'SQLite',
    tools: [
      detected({
        tool: 'read_query',
        answer: JSON_ARRAY,
        fixture: 'sqlite-read_query',
        fixtureRows: 3,
      }),
    ],
  },
  {
    server: '@executeautomation/database-server',
    version: '1.1.0',
    on: 'SQLite',
    tools: [
      detected({
        tool: 'export_query',
        answer: 'CSV in one text block (`format: "csv"`), `NULL` as an empty cell',
        fixture: 'csv-export_query',
        fixtureRows: 10,
      }),
    ],
  },
  {
    server: '@modelcontextprotocol/server-memory',
    version: '2026.8.31',
    on: 'a temporary memory file',
    tools: [
      {
        tool: 'read_graph',
        fixture: 'memory-read_graph',
        fixtureRows: 5,
        answer:
          '`structuredContent` `{entities, relations}` and the same as JSON text; `relations` stays in the result',
        flag: 'read_graph:/entities',
        withoutFlag: { table: 'entities' },
      },
    ],
  },
  {
    server: '@modelcontextprotocol/server-filesystem',
    version: '2026.8.31',
    on: 'a temporary directory',
    tools: [
      {
        tool: 'directory_tree',
        fixture: 'filesystem-directory_tree',
        fixtureRows: 8,
        answer:
          'an indented JSON array of `{name, type, children?}`; `structuredContent` `{content}` holds it as a string',
        flag: 'directory_tree',
        withoutFlag: 'no-table-declared',
      },
    ],
  },
  {
    server: '@negokaz/excel-mcp-server',
    version: '0.12.0',
    on: 'an .xlsx file',
    tools: [
      detected({
        tool: 'excel_read_sheet',
        fixture: 'excel-excel_read_sheet',
        fixtureRows: 13,
        answer:
          'HTML: a `<table>` headed by column letters (its empty corner cell named `column_1`), then metadata',
      }),
    ],
  },
  {
    server: '@modelcontextprotocol/server-everything',
    version: '2026.8.31',
    on: 'no data',
    tools: [],
  },
];

/** The matrix entry of one tool. */
export function matrixTool(server: string, tool: string): MatrixTool {
  const found = MATRIX.find((entry) => entry.server === server)?.tools.find(
    (entry) => entry.tool === tool,
  );
  if (!found)
    throw new Error(`${server} ${tool} is not in the matrix (test/real-servers/servers.ts)`);
  return found;
}

/** The "with no flag" cell of the documentation's table. */
export function withoutFlagText(withoutFlag: WithoutFlag): string {
  if (typeof withoutFlag === 'object')
    return `works when the call names the table (\`table: "${withoutFlag.table}"\`): the \`invalid_rows\` error lists the arrays`;
  switch (withoutFlag) {
    case 'detected':
      return 'works: detected from its first result';
    case 'refused':
      return 'needs the flag: `invalid_rows`, advising a plain call';
    case 'writes':
      return 'needs the flag: its annotations say it writes (`destructiveHint`), so it is not offered S2SP';
    case 'no-table-declared':
      return 'needs the flag: its `outputSchema` declares no rows, so it is not offered S2SP';
  }
}

/** The header of the documentation's table. */
export const MATRIX_TABLE_HEADER: readonly string[] = [
  'server (npm)',
  'version',
  'tool',
  'its answer',
  'with no flag',
  'configured run',
];

/**
 * The rows of the documentation's table, as cells (see {@link MATRIX_TABLE_HEADER}). A server
 * without table tools has one row.
 */
export function matrixTableRows(): string[][] {
  return MATRIX.flatMap((entry) => {
    const server = `\`${entry.server}\` (${entry.on})`;
    if (entry.tools.length === 0)
      return [
        [
          server,
          entry.version,
          '—',
          'no table tool',
          'every tool, resource, prompt and notification relayed unchanged (`test/everything.test.ts`)',
          '—',
        ],
      ];
    return entry.tools.map((tool) => [
      server,
      entry.version,
      `\`${tool.tool}\``,
      tool.answer,
      withoutFlagText(tool.withoutFlag),
      `\`--table-tool ${tool.flag}\``,
    ]);
  });
}
