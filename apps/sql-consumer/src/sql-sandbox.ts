/**
 * One locked-down, in-memory DuckDB per query: no file system, no network, no extensions, locked
 * settings, bounded memory and threads, and a statement timeout that interrupts the connection.
 *
 * @module
 */
import {
  type DuckDBConnection,
  DuckDBInstance,
  type DuckDBResult,
  JSDuckDBValueConverter,
  StatementType,
} from '@duckdb/node-api';
import { S2SPError } from '@s2sp/core';
import { duckdbMessage } from './duckdb-message.js';
import { checkSql } from './sql-guard.js';
import { toJsonValue } from './sql-values.js';
import { type LoadedTable, loadTable, type TableLoadLimits } from './table-loader.js';

/** Limits of a sandbox. */
export interface SandboxLimits extends TableLoadLimits {
  /** DuckDB `memory_limit`, MiB. */
  readonly memoryLimitMb: number;
  /** DuckDB `threads`. */
  readonly threads: number;
  /** Longest a statement may run, ms. */
  readonly timeoutMs: number;
  /** Characters of SQL text. */
  readonly maxSqlChars: number;
}

/**
 * The DuckDB settings of every sandbox. `lock_configuration` comes last: after it nothing, not
 * even this process, can change a setting. With `enable_external_access` off DuckDB reads and
 * writes no file and opens no connection (no `ATTACH`, `COPY … TO`, `read_*`, `glob`, httpfs);
 * extensions are neither installed nor loaded on demand; no temporary files (`temp_directory`
 * empty), so `memory_limit` is a hard cap.
 */
export function sandboxConfig(limits: Pick<SandboxLimits, 'memoryLimitMb' | 'threads'>) {
  return {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    allow_community_extensions: 'false',
    allow_unsigned_extensions: 'false',
    temp_directory: '',
    max_temp_directory_size: '0B',
    memory_limit: `${limits.memoryLimitMb}MB`,
    threads: String(limits.threads),
    enable_external_access: 'false',
    lock_configuration: 'true',
  } as const;
}

/** How much of a result a query keeps: the rest is only counted. */
export interface KeepRows {
  /** Most rows kept. */
  readonly rows: number;
  /**
   * Most characters of the kept rows' JSON (default: no limit). The rows after the one that
   * crosses it are counted, not kept, so one huge answer cannot be held whole for a model that
   * reads a few thousand tokens of it.
   */
  readonly chars?: number;
}

/** What a query returned: its columns, the first rows, and how many rows there were. */
export interface QueryOutput {
  /** Result columns with DuckDB's type names. */
  readonly columns: readonly { readonly name: string; readonly type: string }[];
  /** The first `keepRows` rows, as JSON values. */
  readonly rows: Record<string, unknown>[];
  /** Every row the query produced. */
  readonly totalRows: number;
  /** Whether rows were left out because their JSON passed `KeepRows.chars`. */
  readonly overChars: boolean;
}

/** A sandbox: load tables, run one checked SELECT, close. */
export interface SqlSandbox {
  /** Loads a table (see `loadTable`). */
  load(name: string, rows: readonly Readonly<Record<string, unknown>>[]): Promise<LoadedTable>;
  /**
   * Checks `sql` with the parser only (see `checkSql`), before any table is fetched: a refused or
   * unparsable query then costs no resource_url.
   *
   * @param tables - the names of the tables the call will load
   */
  check(sql: unknown, tables: readonly string[]): Promise<string>;
  /**
   * Checks `sql` (see `checkSql`, over the tables loaded so far) and runs it, keeping the first
   * `keep.rows` rows, and no more than `keep.chars` characters of their JSON, and counting the
   * rest, all within the timeout.
   *
   * @throws S2SPError `invalid_request` (DuckDB refused the query: its message, labelled),
   *   `forbidden`, `payload_too_large`, `timeout` (also when the time ran out while the rows
   *   were being read: a cut answer is never passed off as a whole one)
   */
  query(sql: unknown, keep: KeepRows): Promise<QueryOutput>;
  /** Frees the database. */
  close(): void;
}

const collectGarbage = (globalThis as { gc?: () => void }).gc;

async function readRows(result: DuckDBResult, keep: KeepRows): Promise<QueryOutput> {
  const names = result.deduplicatedColumnNames();
  const types = result.columnTypes();
  const typeIds = types.map((t) => t.typeId);
  const rows: Record<string, unknown>[] = [];
  const maxChars = keep.chars ?? Number.POSITIVE_INFINITY;
  let chars = 0;
  let full = false;
  let totalRows = 0;
  let counted = 0;
  for (;;) {
    const chunk = await result.fetchChunk();
    if (!chunk || chunk.rowCount === 0) break;
    totalRows += chunk.rowCount;
    if (full || rows.length >= keep.rows) {
      // A chunk's native memory is freed only when its JS wrapper is collected, and V8 does not
      // see that memory: counting millions of rows piled up hundreds of MiB of chunks. Where the
      // process allows it (the query process runs with --expose-gc), collect now and then.
      if (++counted % 64 === 0) collectGarbage?.();
      continue;
    }
    const values = chunk.convertRows(JSDuckDBValueConverter);
    for (const row of values) {
      if (rows.length >= keep.rows) break;
      const out: Record<string, unknown> = {};
      names.forEach((name, i) => {
        Object.defineProperty(out, name, {
          value: toJsonValue(row[i] ?? null, typeIds[i]),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      });
      if (keep.chars !== undefined) chars += JSON.stringify(out).length + 1;
      if (chars > maxChars) {
        full = true;
        break;
      }
      rows.push(out);
    }
  }
  return {
    columns: names.map((name, i) => ({ name, type: String(types[i]) })),
    rows,
    totalRows,
    overChars: full,
  };
}

/**
 * Opens a sandbox.
 *
 * @throws S2SPError `unavailable` when DuckDB cannot start (out of memory, for one)
 */
export async function openSandbox(limits: SandboxLimits): Promise<SqlSandbox> {
  let instance: DuckDBInstance;
  let connection: DuckDBConnection;
  try {
    instance = await DuckDBInstance.create(':memory:', sandboxConfig(limits));
    connection = await instance.connect();
  } catch (error) {
    throw new S2SPError('unavailable', 'The SQL engine could not start; retry in a moment.', {
      cause: error,
    });
  }
  let closed = false;
  const loaded: string[] = [];
  return {
    async load(name, rows) {
      const table = await loadTable(connection, name, rows, limits);
      loaded.push(name);
      return table;
    },

    check: (sql, tables) => checkSql(connection, sql, { maxChars: limits.maxSqlChars, tables }),

    async query(sql, keep) {
      // One timer over the check and the run: DuckDB may sort everything before the first chunk.
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        connection.interrupt();
      }, limits.timeoutMs);
      try {
        const text = await checkSql(connection, sql, {
          maxChars: limits.maxSqlChars,
          tables: loaded,
        });
        const prepared = await connection.prepare(text);
        if (prepared.statementType !== StatementType.SELECT) {
          // The parser said SELECT; the binder disagrees (a rewrite such as PRAGMA): refuse.
          throw new S2SPError('forbidden', 'Only a SELECT query runs here.');
        }
        const output = await readRows(await prepared.stream(), keep);
        // An interrupted stream ends like a finished one: without this, a query stopped by the
        // timeout answered with the rows counted so far, as if they were all.
        if (timedOut) throw new Error('interrupted');
        return output;
      } catch (error) {
        if (timedOut) {
          throw new S2SPError(
            'timeout',
            `The query ran longer than ${limits.timeoutMs} ms and was stopped. Make it cheaper (filter first, aggregate, avoid cross joins) and call again.`,
            { cause: error },
          );
        }
        if (S2SPError.isInstance(error)) throw error;
        throw new S2SPError('invalid_request', `The query failed. ${duckdbMessage(error)}`, {
          cause: error,
        });
      } finally {
        clearTimeout(timer);
      }
    },

    close() {
      if (closed) return;
      closed = true;
      connection.closeSync();
      instance.closeSync();
    },
  };
}
