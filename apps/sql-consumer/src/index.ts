/**
 * The SQL consumer's building blocks, for tests, the demo and the bench.
 *
 * This file is the app's programmatic API: adding an export here makes it public.
 *
 * @module
 */

export { type ColumnType, inferColumns, type TableColumn } from './column-types.js';
export { loadConfig, type SqlConfig, USAGE } from './config.js';
export { boundedAnswer, describeTables, type QueryAnswer } from './query-answer.js';
export { ALLOWED_TABLE_FUNCTIONS, checkSql } from './sql-guard.js';
export { DEFAULT_SQL_LIMITS, type SqlLimits } from './sql-limits.js';
export {
  type KeepRows,
  openSandbox,
  type QueryOutput,
  type SandboxLimits,
  type SqlSandbox,
  sandboxConfig,
} from './sql-sandbox.js';
export { createSqlServer, type SqlServer, type SqlServerOptions } from './sql-server.js';
export { type LoadedTable, loadTable } from './table-loader.js';
export { parseTables, type TableSource, type TableSourceArguments } from './table-sources.js';
