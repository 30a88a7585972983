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

// Functions that read the outside world, the settings or SQL text, though they live in the
// system catalog's main schema beside the ordinary ones: files (also closed by
// enable_external_access=false; this names the refusal instead of a DuckDB permission error), the
// environment, the settings (`current_setting('home_directory')` told the working and home
// directories), and SQL given as text (which this check would not see).
const REFUSED_FUNCTION =
  /^(read_.*|glob|getenv|current_setting|query|query_table|sql_.*|pragma_.*)$/i;

/**
 * The functions of DuckDB's own catalog, by schema: only those of the system catalog's `main`
 * schema may be called. The others (`pg_catalog`'s macros such as `pg_get_viewdef` or
 * `has_table_privilege`, which read the catalog) are refused because of where they live, not by
 * name. Read once per process from `duckdb_functions()`: it is a property of the engine's version.
 */
interface FunctionCatalog {
  /** Names in the system catalog's `main` schema. */
  readonly main: ReadonlySet<string>;
  /** Names only in another schema (`pg_catalog`, `information_schema`). */
  readonly elsewhere: ReadonlySet<string>;
  /**
   * The parse trees of the `main` schema's scalar macros, by name (one per overload). A macro is
   * SQL the binder pastes in where it is called, so the parse tree of the query does not show
   * what it reads: `get_block_size(db)` is `(SELECT block_size FROM pragma_database_size() …)`.
   */
  readonly macros: ReadonlyMap<string, readonly unknown[]>;
  /** Why each macro checked so far is refused (`undefined`: allowed), or `null` while checked. */
  readonly verdicts: Map<string, string | undefined | null>;
}

let functionCatalog: Promise<FunctionCatalog> | undefined;

/** The parse tree of a macro definition that did not parse: refused when called. */
const UNREADABLE = { type: 'UNREADABLE_MACRO' };

async function readFunctionCatalog(connection: DuckDBConnection): Promise<FunctionCatalog> {
  const reader = await connection.runAndReadAll(
    "SELECT DISTINCT lower(function_name) AS name, schema_name = 'main' AS main FROM duckdb_functions() WHERE database_name = 'system'",
  );
  const main = new Set<string>();
  const other = new Set<string>();
  for (const row of reader.getRowObjectsJson()) {
    (row.main === true ? main : other).add(String(row.name));
  }
  // A scalar macro's definition is an expression: parsed as `SELECT <it>`, it is checked by the
  // rules of a query over no table when it is first called (findRefusal, below).
  const definitions = await connection.runAndReadAll(
    "SELECT lower(function_name) AS name, json_serialize_sql('SELECT ' || macro_definition) AS tree FROM duckdb_functions() WHERE database_name = 'system' AND schema_name = 'main' AND function_type = 'macro'",
  );
  const macros = new Map<string, unknown[]>();
  for (const row of definitions.getRowObjectsJson()) {
    const name = String(row.name);
    const tree = JSON.parse(String(row.tree)) as { error?: boolean; statements?: unknown };
    // A definition that does not parse is refused: it could not be checked.
    const trees = macros.get(name) ?? [];
    trees.push(tree.error ? UNREADABLE : (tree.statements ?? UNREADABLE));
    macros.set(name, trees);
  }
  return {
    main,
    elsewhere: new Set([...other].filter((name) => !main.has(name))),
    macros,
    verdicts: new Map(),
  };
}

/** What a query may name: its loaded tables, and the CTEs in scope where it names them. */
interface Scope {
  readonly functions: FunctionCatalog;
  /** Lower-case names of the call's loaded tables: the only ones a qualified name may use. */
  readonly loaded: ReadonlySet<string>;
  /** Lower-case names an unqualified `FROM` may use here: the loaded tables and CTEs in scope. */
  readonly tables: ReadonlySet<string>;
}

/**
 * Why calling the `main` schema's macro `name` is refused, or undefined (also for a name that is
 * no macro): its definition must pass the same check as a query over no table, so a macro is
 * callable because of what it reads, not because its name is missing from a list.
 */
function macroRefusal(name: string, functions: FunctionCatalog): string | undefined {
  const trees = functions.macros.get(name);
  if (!trees) return undefined;
  const known = functions.verdicts.get(name);
  // `null`: a macro that calls itself, which DuckDB does not define; refuse rather than loop.
  if (known === null) return `the macro ${name}()`;
  if (functions.verdicts.has(name)) return known;
  functions.verdicts.set(name, null);
  const scope: Scope = { functions, loaded: new Set(), tables: new Set() };
  let verdict: string | undefined;
  for (const tree of trees) {
    const inner = findRefusal(tree, scope);
    if (inner) {
      verdict = `the function ${name}() (a DuckDB macro whose definition uses ${inner})`;
      break;
    }
  }
  functions.verdicts.set(name, verdict);
  return verdict;
}

/** Why a node of the parse tree is refused, or undefined. */
function refusal(node: Record<string, unknown>, scope: Scope): string | undefined {
  if (node.type === 'TABLE_FUNCTION') {
    const fn = node.function as { function_name?: unknown } | undefined;
    const name = String(fn?.function_name ?? '').toLowerCase();
    if (!ALLOWED_TABLE_FUNCTIONS.has(name))
      return `the table function ${name}() (only ${[...ALLOWED_TABLE_FUNCTIONS].join(', ')} may be called besides the loaded tables)`;
  }
  if (node.class === 'FUNCTION' && typeof node.function_name === 'string') {
    const name = node.function_name.toLowerCase();
    const schema = String(node.schema ?? '');
    if (
      String(node.catalog ?? '') !== '' ||
      (schema !== '' && schema !== 'main') ||
      scope.functions.elsewhere.has(name)
    )
      return `the function ${name}() (only DuckDB's built-in functions of its main schema; no pg_catalog or information_schema)`;
    if (REFUSED_FUNCTION.test(name))
      return `the function ${name}() (no files, environment, settings or SQL text)`;
    const macro = macroRefusal(name, scope.functions);
    if (macro) return macro;
  }
  if (node.type === 'BASE_TABLE') {
    const table = String(node.table_name ?? '');
    const schema = String(node.schema_name ?? '');
    const catalog = String(node.catalog_name ?? '');
    if (catalog !== '' || (schema !== '' && schema !== 'main') || /[./\\:]/.test(table))
      return 'a table other than the loaded ones (files, other schemas and catalogs cannot be read)';
    // An allow-list, not a list of what to hide: an unqualified name DuckDB would find in its
    // own catalog (pg_settings, pg_proc, sqlite_master, duckdb_tables…) is refused here. A
    // qualified name never means a CTE: `main.sqlite_master` is the catalog's view even inside
    // `WITH sqlite_master AS (…)`.
    if (!(schema === '' ? scope.tables : scope.loaded).has(table.toLowerCase()))
      return `the table ${JSON.stringify(table.slice(0, 64))}, which is neither a table of this call nor a CTE of the query`;
  }
  if (node.type === 'SHOW_REF' && (node.query === null || node.query === undefined))
    return 'the catalog (SHOW TABLES, SHOW DATABASES): every answer lists the tables of the call';
  return undefined;
}

interface CteEntry {
  readonly key?: unknown;
  readonly value?: { readonly query?: { readonly node?: Record<string, unknown> } };
}

/**
 * Walks the parse tree with the table names in scope. A CTE is visible in the query that
 * defines it and in the CTEs after it, not in its own body: DuckDB binds
 * `WITH pg_settings AS (SELECT * FROM pg_settings)`'s inner name to the catalog's view. A
 * recursive CTE sees itself in its recursive part only: its anchor (the left of the first
 * UNION) is bound before the CTE exists, so there too the name is the catalog's.
 */
function findRefusal(tree: unknown, scope: Scope, depth = 0): string | undefined {
  if (depth > 500) return 'a query nested this deeply';
  if (Array.isArray(tree)) {
    for (const item of tree) {
      const found = findRefusal(item, scope, depth + 1);
      if (found) return found;
    }
    return undefined;
  }
  if (tree === null || typeof tree !== 'object') return undefined;
  if (tree === UNREADABLE) return 'a definition that does not parse';
  const node = tree as Record<string, unknown>;
  let inner = scope;
  const ctes = (node.cte_map as { map?: unknown } | undefined)?.map;
  if (Array.isArray(ctes) && ctes.length > 0) {
    const visible = new Set(scope.tables);
    for (const entry of ctes as CteEntry[]) {
      const name = String(entry.key ?? '').toLowerCase();
      const before = { ...scope, tables: new Set(visible) };
      const body = entry.value?.query?.node;
      const found =
        body?.type === 'RECURSIVE_CTE_NODE' && String(body.cte_name ?? '').toLowerCase() === name
          ? (findRefusal(body.left, before, depth + 1) ??
            findRefusal(
              { ...body, left: null },
              { ...scope, tables: new Set([...visible, name]) },
              depth + 1,
            ) ??
            findRefusal({ ...entry.value, query: null }, before, depth + 1))
          : findRefusal(entry.value, before, depth + 1);
      if (found) return found;
      visible.add(name);
    }
    inner = { ...scope, tables: visible };
  }
  const own = refusal(node, inner);
  if (own) return own;
  for (const [key, value] of Object.entries(node)) {
    if (key === 'cte_map') continue;
    const found = findRefusal(value, inner, depth + 1);
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
 * that reads only the tables named in `tables` (and the query's own CTEs), the allowed table
 * functions and the built-in functions of DuckDB's main schema: no `read_*`, `glob`, `query`,
 * `current_setting`, file names as tables, catalog views (`pg_settings`, `sqlite_master`…), other
 * schemas or catalogs.
 *
 * @param connection - a connection of the query's sandbox (the text is passed as a bound value)
 * @param options - `maxChars`: the longest text; `tables`: the names of the call's tables
 * @throws S2SPError `invalid_request` (empty, unparsable, several statements), `payload_too_large`
 *   (too long), `forbidden` (anything but a SELECT over the loaded tables)
 */
export async function checkSql(
  connection: DuckDBConnection,
  sql: unknown,
  options: { readonly maxChars: number; readonly tables: readonly string[] },
): Promise<string> {
  const { maxChars } = options;
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
  functionCatalog ??= readFunctionCatalog(connection).catch((error: unknown) => {
    functionCatalog = undefined;
    throw error;
  });
  const loaded = new Set(options.tables.map((name) => name.toLowerCase()));
  const scope: Scope = { functions: await functionCatalog, loaded, tables: loaded };
  const refused = findRefusal(tree.statements ?? [], scope);
  if (refused) {
    throw new S2SPError(
      'forbidden',
      `The query uses ${refused}. Only the tables passed in this call can be read: query them by name.`,
    );
  }
  return sql;
}
