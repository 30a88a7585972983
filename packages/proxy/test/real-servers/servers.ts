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
  /** What it runs on in the tests, for the table: `PostgreSQL 15`, `a temporary directory`. */
  readonly on: string;
  /** Its table tools; none for a server the tests relay without tables. */
  readonly tools: readonly MatrixTool[];
}

/** Every server the proxy is tested in front of. */
export const MATRIX: readonly MatrixServer[] = [
  {
    server: '@modelcontextprotocol/server-postgres',
    version: '0.6.2',
    on: 'PostgreSQL',
    tools: [{ tool: 'query', flag: 'query', withoutFlag: 'detected' }],
  },
  {
    server: '@zeddotdev/postgres-context-server',
    version: '0.1.7',
    on: 'PostgreSQL',
    tools: [{ tool: 'query', flag: 'query', withoutFlag: 'detected' }],
  },
  {
    server: 'mcp-postgres-server',
    version: '0.3.1',
    on: 'PostgreSQL',
    tools: [{ tool: 'query', flag: 'query', withoutFlag: 'detected' }],
  },
  {
    server: '@henkey/postgres-mcp-server',
    version: '1.0.7',
    on: 'PostgreSQL',
    tools: [
      { tool: 'pg_execute_query', flag: 'pg_execute_query', withoutFlag: 'detected' },
      { tool: 'pg_execute_sql', flag: 'pg_execute_sql', withoutFlag: 'detected' },
    ],
  },
  {
    server: '@bytebase/dbhub',
    version: '1.4.0',
    on: 'PostgreSQL, Node 22',
    tools: [
      { tool: 'execute_sql', flag: 'execute_sql:/data/statements/0/rows', withoutFlag: 'writes' },
    ],
  },
  {
    server: '@benborla29/mcp-server-mysql',
    version: '2.0.9',
    on: 'MariaDB',
    tools: [{ tool: 'mysql_query', flag: 'mysql_query', withoutFlag: 'detected' }],
  },
  {
    server: '@berthojoris/mcp-mysql-server',
    version: '1.43.2',
    on: 'MariaDB',
    tools: [
      { tool: 'run_select_query', flag: 'run_select_query', withoutFlag: 'detected' },
      { tool: 'read_records', flag: 'read_records', withoutFlag: 'detected' },
      {
        tool: 'export_query_to_csv',
        flag: 'export_query_to_csv:/csv:csv',
        withoutFlag: 'detected',
      },
    ],
  },
  {
    server: 'mcp-server-sqlite-npx',
    version: '0.8.0',
    on: 'SQLite',
    tools: [{ tool: 'read_query', flag: 'read_query', withoutFlag: 'detected' }],
  },
  {
    server: '@executeautomation/database-server',
    version: '1.1.0',
    on: 'SQLite',
    tools: [{ tool: 'export_query', flag: 'export_query', withoutFlag: 'detected' }],
  },
  {
    server: '@modelcontextprotocol/server-memory',
    version: '2026.8.31',
    on: 'a temporary memory file',
    tools: [
      { tool: 'read_graph', flag: 'read_graph:/entities', withoutFlag: { table: 'entities' } },
    ],
  },
  {
    server: '@modelcontextprotocol/server-filesystem',
    version: '2026.8.31',
    on: 'a temporary directory',
    tools: [{ tool: 'directory_tree', flag: 'directory_tree', withoutFlag: 'no-table-declared' }],
  },
  {
    server: '@negokaz/excel-mcp-server',
    version: '0.12.0',
    on: 'an .xlsx file',
    tools: [{ tool: 'excel_read_sheet', flag: 'excel_read_sheet', withoutFlag: 'detected' }],
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

/**
 * The rows of the documentation's table, as cells: server, version, tool, with no flag, the
 * configured run's flag. A server without table tools has one row.
 */
export function matrixTableRows(): string[][] {
  return MATRIX.flatMap((entry) => {
    const server = `\`${entry.server}\` (${entry.on})`;
    if (entry.tools.length === 0)
      return [[server, entry.version, '—', 'relayed unchanged (no table tool)', '—']];
    return entry.tools.map((tool) => [
      server,
      entry.version,
      `\`${tool.tool}\``,
      withoutFlagText(tool.withoutFlag),
      `\`--table-tool ${tool.flag}\``,
    ]);
  });
}
