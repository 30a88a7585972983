import { PROTOCOL, S2SPError, toolErrorResult } from '@s2sp/core';
import { callResourceToolAgain } from '@s2sp/core/advice';
import {
  type ConsumerFetchOptions,
  clientKey,
  createClientConcurrencyLimit,
  createS2SPServer,
  type Logger,
  type S2SPServer,
  s2spCapability,
  silentLogger,
  traceToolCall,
} from '@s2sp/server';
import type { EdgeEnvOptions } from '@s2sp/server/env';
import type { SlopOptions } from '@s2sp/server/slop';
import { z } from 'zod';
import { boundedAnswer, describeTables } from './query-answer.js';
import { runQueryProcess } from './query-process.js';
import { DEFAULT_SQL_LIMITS, type SqlLimits } from './sql-limits.js';
import { openSandbox } from './sql-sandbox.js';
import { resolveTable } from './table-resolver.js';
import { parseTables } from './table-sources.js';

/** Options for {@link createSqlServer}. */
export interface SqlServerOptions {
  /** Base URL of this server's data plane, for `as_table` resource_urls (`S2SP_PUBLIC_URL`). */
  readonly publicUrl?: string;
  /**
   * Origins `query_tables` may fetch tables from (`S2SP_ALLOWED_ORIGINS`), loopback ones
   * included; an entry may carry a path prefix. Without a list only public internet addresses
   * are fetched (see `fetch.destinations`).
   */
  readonly allowedOrigins?: readonly string[];
  /** Query limits; each one omitted keeps its default ({@link DEFAULT_SQL_LIMITS}). */
  readonly limits?: Partial<SqlLimits>;
  readonly logger?: Logger;
  /**
   * Extra consumer fetch settings: timeout, size cap, `destinations`, `pathPrefixes`,
   * `maxConcurrentFetches`, as for chart-consumer.
   */
  readonly fetch?: Omit<ConsumerFetchOptions, 'allowedOrigins'>;
  /** Also serve `query_tables` over SLOP. Default: off. */
  readonly slop?: SlopOptions;
  /** The HTTP edge: allowed hosts and browser origins, bearer auth, body read timeout. */
  readonly edge?: EdgeEnvOptions;
}

/** The SQL consumer: an S2SP server with `query_tables`. */
export interface SqlServer {
  readonly server: S2SPServer;
  /** The limits in force. */
  readonly limits: SqlLimits;
  /** Queries of all clients running and waiting for a slot now. */
  readonly queries: { readonly running: number; readonly waiting: number };
}

const DESCRIPTION = (limits: SqlLimits) =>
  `Runs one SQL SELECT (DuckDB dialect) over tables this server fetches itself from S2SP resource_urls, so their rows never pass through you. Name each table in tables: {"alerts": "<resource_url>"} loads the whole table; {"alerts": {"resource_url": "…", "row_ids": [0, 4]}} (or "filter": {…} instead of row_ids) loads a selection. A resource_url is single-use: a table is fetched once per call. Columns are typed from the values (numbers BIGINT/DOUBLE, BOOLEAN, ISO timestamps TIMESTAMPTZ, dates DATE, the rest VARCHAR; objects as JSON text); every table's columns come back with the answer. Returns at most max_rows rows (default and cap ${limits.maxResultRows}) and total_rows, with truncated when cut. With as_table=true the answer is not shown: it becomes a new S2SP table on this server and you get only the abstract_domains columns you name, a _row_id per row and a fresh resource_url for another consumer tool (draw_chart, or query_tables again). Only SELECT over the tables passed in this call runs: no files, network, extensions, PRAGMA or SET; at most ${limits.timeoutMs / 1000} s per query.`;

/**
 * Creates the SQL consumer server: `query_tables` fetches the tables of a call through the S2SP
 * consumer rules (allow-list, public destinations only, byte cap, timeout, shared fetch limit),
 * loads them into a fresh locked-down in-memory DuckDB, runs the model's one SELECT within the
 * time, memory and thread limits, and answers with a bounded result — or, with `as_table`, with
 * an S2SP resource result built by the server's own `resourceResult`, so answers chain.
 */
export function createSqlServer(options: SqlServerOptions = {}): SqlServer {
  const limits: SqlLimits = { ...DEFAULT_SQL_LIMITS, ...options.limits };
  const logger = options.logger ?? silentLogger;
  const server = createS2SPServer({
    name: 'sql-consumer',
    version: '0.1.0',
    ...(options.publicUrl && { publicUrl: options.publicUrl }),
    logger,
    ...options.edge,
    // Bytes of as_table answers one client may keep stored: without it one client filled the
    // whole store (256 MiB in 36 calls) and every other got store_full for the TTL.
    maxBytesPerClient: limits.maxStoredBytesPerClient,
    consumer: {
      ...options.fetch,
      ...(options.allowedOrigins && { allowedOrigins: options.allowedOrigins }),
    },
    instructions:
      'Answers SQL questions over S2SP tables without their rows passing through you: pass each resource_url to query_tables under a table name. With as_table=true the answer becomes a new S2SP table to hand to another consumer tool.',
  });
  const { s2sp } = server;
  // Each client's own slots, and the process's shared between the clients in turn: the heavy
  // queries of ten addresses once filled a first-come queue and the eleventh got `unavailable`.
  const queries = createClientConcurrencyLimit({
    concurrency: limits.maxQueriesPerClient,
    queue: 2,
    what: 'SQL queries of this client',
    shared: {
      concurrency: limits.maxConcurrentQueries,
      queue: limits.maxWaitingQueries,
      what: 'SQL queries',
    },
  });
  // The parser check runs here, before any table is fetched; the query runs in its own process.
  const checkQuery = async (sql: unknown, tables: readonly string[]) => {
    const sandbox = await openSandbox(sandboxLimits);
    try {
      await sandbox.check(sql, tables);
    } finally {
      sandbox.close();
    }
  };
  const sandboxLimits = {
    maxRows: limits.maxTableRows,
    maxColumns: limits.maxTableColumns,
    memoryLimitMb: limits.memoryLimitMb,
    threads: limits.threads,
    timeoutMs: limits.timeoutMs,
    maxSqlChars: limits.maxSqlChars,
  };

  server.use((mcp) => {
    // query_tables is registered by hand, not through registerConsumerTool, so S2SP does not
    // declare it: declare it here as the other apps' servers are (PROTOCOL §7.7), for clients of
    // both eras. It fetches resource_urls (consumer) and its as_table answers are S2SP tables.
    const capability = s2spCapability(['consumer', 'resource']);
    // (The capability's schema type keeps unknown members, which the SDK's JSON type refuses.)
    mcp.server.registerCapabilities({
      experimental: { [PROTOCOL.capabilityKey]: capability },
      extensions: { [PROTOCOL.extensionId]: capability },
    } as never);
    mcp.registerTool(
      'query_tables',
      {
        title: 'Query S2SP tables with SQL',
        description: DESCRIPTION(limits),
        inputSchema: {
          sql: z
            .string()
            .describe(
              'One SELECT statement over the table names of tables, e.g. SELECT severity, count(*) AS n FROM alerts GROUP BY severity ORDER BY n DESC.',
            ),
          tables: z.unknown().meta({
            anyOf: [{ type: 'object' }, { type: 'string' }],
            description:
              'Table name → the resource_url the resource tool returned, or {"resource_url", and optionally "row_ids", "filter", "abstract_data", "column_mapping"}; a JSON object or its text.',
          }),
          max_rows: z
            .number()
            .int()
            .min(1)
            .max(limits.maxResultRows)
            .nullish()
            .describe(`Most rows to return (default ${limits.maxResultRows}).`),
          as_table: z
            .boolean()
            .nullish()
            .describe(
              'Store the answer as a new S2SP table and return only its abstract_domains columns, _row_id and a resource_url, instead of the rows.',
            ),
          abstract_domains: z
            .union([z.string(), z.array(z.string())])
            .nullish()
            .describe(
              'With as_table: the answer columns you want to see, comma-separated (e.g. "severity,n"); the others stay on this server.',
            ),
        },
        annotations: { readOnlyHint: true, openWorldHint: true },
      },
      traceToolCall('query_tables', async (args, extra) => {
        const started = Date.now();
        try {
          const asTable = args.as_table === true;
          const abstract = args.abstract_domains;
          const hasAbstract =
            abstract !== undefined &&
            abstract !== null &&
            (Array.isArray(abstract) ? abstract.length > 0 : abstract.trim() !== '');
          if (asTable && !hasAbstract) {
            throw new S2SPError(
              'invalid_request',
              'as_table needs abstract_domains: name the answer columns you want to see (e.g. "severity,n"); the others stay on this server behind the resource_url.',
            );
          }
          if (!asTable && hasAbstract) {
            throw new S2SPError(
              'invalid_request',
              'abstract_domains works with as_table=true only: set as_table, or leave abstract_domains out to get the rows.',
            );
          }
          const sources = parseTables(args.tables, limits.maxTables);
          const names = sources.map((s) => s.name);
          // A query waits for a slot before anything is fetched: a waiting query holds no rows.
          return await queries.run(
            clientKey(extra),
            async () => {
              // Parse first: a query refused or unparsable here costs no single-use resource_url.
              await checkQuery(args.sql, names);
              const fetchStarted = Date.now();
              const fetched = await Promise.all(
                sources.map(async (s) => ({
                  name: s.name,
                  rows: await resolveTable(s2sp, s.name, s.source, extra.mcpReq.signal),
                })),
              );
              const loadStarted = Date.now();
              const keep = asTable
                ? { rows: limits.maxStoredRows + 1, chars: limits.maxStoredBytesPerClient }
                : {
                    rows: Math.min(args.max_rows ?? limits.maxResultRows, limits.maxResultRows),
                    // No more than a model could read: JSON takes about 3 characters a token
                    // (estimateTokens), so 8 for each token of the budget leaves room.
                    chars: limits.tokenBudget * 8,
                  };
              const run = await runQueryProcess(
                { sql: String(args.sql), tables: fetched, keep, limits: sandboxLimits },
                extra.mcpReq.signal,
              );
              if ('error' in run) {
                if (run.inQuery && run.error.code === 'invalid_request') {
                  const tables = describeTables(run.tables, limits.tokenBudget / 2);
                  throw new S2SPError(
                    'invalid_request',
                    `${run.error.message} The tables it ran over (column names come from the resource servers): ${JSON.stringify(tables)}. The resource_urls of this call are used up: fix the SQL. ${callResourceToolAgain}`,
                    { cause: run.error },
                  );
                }
                throw run.error;
              }
              const { output, tables: loaded } = run;
              // Where the time went (the bench reads these): fetch, load into DuckDB (with the
              // query process's start), query.
              logger.info('query_tables: answered', {
                tables: loaded.length,
                rows_loaded: loaded.reduce((sum, t) => sum + t.rows, 0),
                rows: output.totalRows,
                fetch_ms: loadStarted - fetchStarted,
                load_ms: run.loadMs,
                query_ms: run.queryMs,
                ms: Date.now() - started,
              });
              if (!asTable) {
                const answer = boundedAnswer(output, loaded, {
                  maxRows: keep.rows,
                  tokenBudget: limits.tokenBudget,
                });
                return {
                  content: [{ type: 'text' as const, text: JSON.stringify(answer) }],
                  structuredContent: { ...answer },
                };
              }
              if (output.totalRows > limits.maxStoredRows) {
                throw new S2SPError(
                  'payload_too_large',
                  `The answer has ${output.totalRows} rows, more than the ${limits.maxStoredRows} that can be stored as a table: aggregate further or add a LIMIT.`,
                );
              }
              if (output.overChars) {
                throw new S2SPError(
                  'payload_too_large',
                  `The answer is larger than the ${limits.maxStoredBytesPerClient} bytes one client may keep stored here: aggregate further, select fewer columns or add a LIMIT.`,
                );
              }
              if (output.columns.some((c) => c.name === '_row_id')) {
                throw new S2SPError(
                  'invalid_request',
                  'An as_table answer gets its own _row_id, so the SELECT list cannot have a column named _row_id: rename it (e.g. _row_id AS source_row_id) or leave it out.',
                );
              }
              return await s2sp.resourceResult(
                output.rows,
                { abstract_domains: abstract },
                {
                  toolName: 'query_tables',
                  call: extra,
                  tokenBudget: limits.tokenBudget,
                  // query_tables has no cursor parameter: an abstract over the budget is refused.
                  paging: false,
                },
              );
            },
            { signal: extra.mcpReq.signal },
          );
        } catch (error) {
          logger.warn('query_tables: failed', {
            code: S2SPError.isInstance(error) ? error.code : 'tool_error',
          });
          return toolErrorResult(error);
        }
      }),
    );
  });
  if (options.slop) server.mountSlop(options.slop);
  return { server, limits, queries };
}
