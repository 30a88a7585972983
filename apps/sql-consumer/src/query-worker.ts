/**
 * The process one `query_tables` query runs in (forked by query-process.ts): it loads the call's
 * tables into a fresh sandbox, runs the checked SELECT and sends back the kept rows. DuckDB's
 * `memory_limit` bounds its buffer-managed memory only: a list or a string a query builds
 * (`list_sort(range(30000000))`, `repeat('x', 1000000000)`) took the server to 3–4 GiB. Here a
 * watchdog reads this process's resident memory every few milliseconds while the query runs and
 * kills the process once it has grown `memoryLimitMb` past what it held with the tables loaded,
 * so the server itself never holds the query's memory.
 *
 * @module
 */
import { S2SPError } from '@s2sp/core';
import { duckdbMessage } from './duckdb-message.js';
import type { QueryJob, WorkerReply } from './query-process.js';
import { openSandbox, type SqlSandbox } from './sql-sandbox.js';
import type { LoadedTable } from './table-loader.js';

/** How often the watchdog reads the resident memory, ms. */
const WATCH_MS = 5;

function reply(message: WorkerReply): Promise<void> {
  return new Promise((resolve) => {
    if (!process.send) resolve();
    else process.send(message, undefined, undefined, () => resolve());
  });
}

async function run(job: QueryJob): Promise<WorkerReply> {
  let sandbox: SqlSandbox | undefined;
  const tables: LoadedTable[] = [];
  let watchdog: ReturnType<typeof setInterval> | undefined;
  let phase: 'load' | 'query' = 'load';
  try {
    sandbox = await openSandbox(job.limits);
    for (const table of job.tables) tables.push(await sandbox.load(table.name, table.rows));
    job.tables.length = 0;
    await reply({ type: 'loaded' });
    phase = 'query';
    const ceiling = process.memoryUsage.rss() + job.limits.memoryLimitMb * 1024 * 1024;
    watchdog = setInterval(() => {
      // SIGKILL, not an exit: DuckDB's threads may be allocating right now. The parent reads
      // the signal as "over the memory limit".
      if (process.memoryUsage.rss() > ceiling) process.kill(process.pid, 'SIGKILL');
    }, WATCH_MS);
    const output = await sandbox.query(job.sql, job.keep);
    return { type: 'done', tables, output };
  } catch (error) {
    // DuckDB's own errors while loading (two column names differing only in case) are the
    // tables' fault, as a query's are.
    if (S2SPError.isInstance(error))
      return { type: 'failed', code: error.code, message: error.message, tables, phase };
    return {
      type: 'failed',
      code: 'invalid_request',
      message: `The query failed. ${duckdbMessage(error)}`,
      tables,
      phase,
    };
  } finally {
    if (watchdog) clearInterval(watchdog);
    sandbox?.close();
  }
}

process.once('message', (message) => {
  void run(message as QueryJob)
    .then(reply)
    .finally(() => process.exit(0));
});
