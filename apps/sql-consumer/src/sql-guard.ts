/**
 * What `query_tables` runs: one SELECT over the loaded tables, checked with DuckDB's own parser
 * (statement extraction, then the parse tree of `json_serialize_sql`), never by pattern matching
 * on the text. The engine's configuration (no external access, locked settings, no extensions;
 * see sql-sandbox.ts) is the second wall behind this one.
 *
 * @module
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import { S2SPError } from '@s2sp/core';
import { duckdbMessage } from './duckdb-message.js';

/** Table functions a query may call: generators over values, never over files or settings. */
export const ALLOWED_TABLE_FUNCTIONS: ReadonlySet<string> = new Set([
  'range',
  'generate_series',
  'unnest',
]);

// Scalar functions that read the outside world or run SQL text. Files are also closed by
// enable_external_access=false; this names the refusal instead of a DuckDB permission error.
const REFUSED_FUNCTION = /^(read_.*|glob|getenv|query|query_table|sql_.*|pragma_.*)$/i;

/** Why a node of the parse tree is refused, or undefined. */
function refusal(node: Record<string, unknown>): string | undefined {
  if (node.type === 'TABLE_FUNCTION') {
    const fn = node.function as { function_name?: unknown } | undefined;
    const name = String(fn?.function_name ?? '').toLowerCase();
    if (!ALLOWED_TABLE_FUNCTIONS.has(name))
      return `the table function ${name}() (only ${[...ALLOWED_TABLE_FUNCTIONS].join(', ')} may be called besides the loaded tables)`;
  }
  if (node.class === 'FUNCTION' && typeof node.function_name === 'string') {
    if (REFUSED_FUNCTION.test(node.function_name))
      return `the function ${node.function_name.toLowerCase()}() (no files, environment or SQL text)`;
  }
  if (node.type === 'BASE_TABLE') {
    const table = String(node.table_name ?? '');
    const schema = String(node.schema_name ?? '');
    const catalog = String(node.catalog_name ?? '');
    if (catalog !== '' || (schema !== '' && schema !== 'main') || /[./\\:]/.test(table))
      return 'a table other than the loaded ones (files, other schemas and catalogs cannot be read)';
  }
  return undefined;
}

function findRefusal(tree: unknown, depth = 0): string | undefined {
  if (depth > 500) return 'a query nested this deeply';
  if (Array.isArray(tree)) {
    for (const item of tree) {
      const found = findRefusal(item, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  if (tree === null || typeof tree !== 'object') return undefined;
  const node = tree as Record<string, unknown>;
  const own = refusal(node);
  if (own) return own;
  for (const value of Object.values(node)) {
    const found = findRefusal(value, depth + 1);
    if (found) return found;
  }
  return undefined;
}

/** The first word of the statement, for the message only (the decision is the parser's). */
function statementWord(sql: string): string {
  const word = /^[\s(]*([A-Za-z]+)/.exec(sql.replace(/^(\s*(--[^\n]*\n|\/\*[\s\S]*?\*\/))*/, ''));
  return word?.[1]?.toUpperCase() ?? 'this statement';
}

/**
 * Checks `sql` before it runs: at most `maxChars` characters, exactly one statement (DuckDB's
 * statement extraction), a SELECT (DuckDB's parser serialises only SELECT statements; `PRAGMA`,
 * `SET`, `INSTALL`, `LOAD`, `ATTACH`, `COPY`, `EXPORT`, DDL and DML are not), and a parse tree
 * that reads only the loaded tables and allowed table functions (no `read_*`, `glob`, `query`,
 * file names as tables, other schemas or catalogs).
 *
 * @param connection - a connection of the query's sandbox (the text is passed as a bound value)
 * @throws S2SPError `invalid_request` (empty, unparsable, several statements), `payload_too_large`
 *   (too long), `forbidden` (anything but a SELECT over the loaded tables)
 */
export async function checkSql(
  connection: DuckDBConnection,
  sql: unknown,
  maxChars: number,
): Promise<string> {
  if (typeof sql !== 'string' || sql.trim() === '') {
    throw new S2SPError(
      'invalid_request',
      'sql is required: one SELECT statement over the tables you pass, e.g. SELECT severity, count(*) AS n FROM alerts GROUP BY severity.',
    );
  }
  if (sql.length > maxChars) {
    throw new S2SPError(
      'payload_too_large',
      `sql is ${sql.length} characters, more than ${maxChars}: write a shorter query.`,
    );
  }
  let count: number;
  try {
    count = (await connection.extractStatements(sql)).count;
  } catch (error) {
    throw new S2SPError(
      'invalid_request',
      `The SQL does not parse. ${duckdbMessage(error)} Fix the syntax and call again.`,
      { cause: error },
    );
  }
  if (count !== 1) {
    throw new S2SPError(
      'invalid_request',
      count === 0
        ? 'sql holds no statement: pass one SELECT statement.'
        : `sql holds ${count} statements: pass exactly one SELECT statement per call (no semicolon-separated lists).`,
    );
  }
  const reader = await connection.runAndReadAll('SELECT json_serialize_sql($1::VARCHAR) AS tree', [
    sql,
  ]);
  const text = reader.getRowObjectsJson()[0]?.tree;
  const tree = JSON.parse(typeof text === 'string' ? text : '{}') as {
    error?: boolean;
    error_type?: string;
    error_message?: string;
    statements?: unknown[];
  };
  if (tree.error) {
    if (tree.error_type === 'not implemented') {
      throw new S2SPError(
        'forbidden',
        `Only a SELECT query runs here; ${statementWord(sql)} statements are refused (no PRAGMA, SET, INSTALL, LOAD, ATTACH, COPY, EXPORT, CREATE, INSERT, UPDATE or DELETE). Rewrite it as one SELECT over the tables you passed.`,
      );
    }
    throw new S2SPError(
      'invalid_request',
      `The SQL does not parse. DuckDB said: «${String(tree.error_message ?? '').slice(0, 500)}». Fix the syntax and call again.`,
    );
  }
  const refused = findRefusal(tree.statements ?? []);
  if (refused) {
    throw new S2SPError(
      'forbidden',
      `The query uses ${refused}. Only the tables passed in this call can be read: query them by name.`,
    );
  }
  return sql;
}
