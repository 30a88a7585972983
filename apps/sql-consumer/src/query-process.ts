/**
 * Runs a query in a process of its own (query-worker.ts), so that what it allocates is bounded
 * and freed with the process, whatever DuckDB's `memory_limit` does not count.
 *
 * @module
 */
import { type ChildProcess, fork } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { S2SPError, type S2SPErrorCode } from '@s2sp/core';
import type { KeepRows, QueryOutput, SandboxLimits } from './sql-sandbox.js';
import type { LoadedTable } from './table-loader.js';

/** What the worker process is sent: the tables to load, the query, and the limits. */
export interface QueryJob {
  readonly sql: string;
  /** The call's tables; emptied by the worker once loaded. */
  readonly tables: { readonly name: string; readonly rows: Record<string, unknown>[] }[];
  readonly keep: KeepRows;
  readonly limits: SandboxLimits;
}

/** What the worker process sends back. */
export type WorkerReply =
  | { readonly type: 'loaded' }
  | { readonly type: 'done'; readonly tables: LoadedTable[]; readonly output: QueryOutput }
  | {
      readonly type: 'failed';
      readonly code: S2SPErrorCode;
      readonly message: string;
      readonly tables: LoadedTable[];
      /** Whether the tables were loading or the query running. */
      readonly phase: 'load' | 'query';
    };

/**
 * A query's outcome: the tables it loaded (for the answer, or for the message of a failure) and
 * what it returned, or why it failed.
 */
export type QueryRun =
  | {
      readonly tables: readonly LoadedTable[];
      readonly output: QueryOutput;
      /**
       * Where the time went, ms: starting the process and loading the tables, then the query
       * (the bench reads these).
       */
      readonly loadMs: number;
      readonly queryMs: number;
    }
  | {
      readonly tables: readonly LoadedTable[];
      readonly error: S2SPError;
      /** Whether the query itself failed (its SQL is at fault), not the loading of the tables. */
      readonly inQuery: boolean;
    };

/** Time to load the tables before the worker is stopped, ms: loading is bounded by the fetch caps. */
const LOAD_DEADLINE_MS = 120_000;
/** Time past the query's own timeout before the worker is stopped from outside, ms. */
const STOP_GRACE_MS = 2_000;

let workerPath: string | undefined;

/**
 * The built worker: beside this module in `dist/`, or in `dist/` when this module runs from
 * `src/` (tests).
 */
function worker(): string {
  if (workerPath) return workerPath;
  for (const candidate of ['./query-worker.js', '../dist/query-worker.js']) {
    const path = fileURLToPath(new URL(candidate, import.meta.url));
    if (existsSync(path)) {
      workerPath = path;
      return path;
    }
  }
  throw new S2SPError(
    'unavailable',
    'The SQL engine is not built (dist/query-worker.js is missing): run pnpm build.',
  );
}

/**
 * Loads `job`'s tables and runs its query in a new process, within `job.limits`: the query's
 * timeout, and `memoryLimitMb` of resident memory grown past what the process held with the
 * tables loaded (checked every 5 ms; the process is killed when it is over).
 *
 * @param job - tables, SQL, rows to keep and limits
 * @param signal - the tool call's signal: aborting it kills the process
 * @returns the output, or the error: the sandbox's (`invalid_request`, `forbidden`,
 *   `payload_too_large`, `timeout`), `payload_too_large` when the query needed more memory than
 *   its limit, `timeout` when the process did not answer in time, `unavailable` when it could not
 *   run or the call was cancelled
 */
export function runQueryProcess(job: QueryJob, signal?: AbortSignal): Promise<QueryRun> {
  return new Promise<QueryRun>((resolve) => {
    let child: ChildProcess;
    try {
      // No stdout: on stdio the server's MCP messages are there.
      child = fork(worker(), [], {
        serialization: 'advanced',
        stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
        // Counting the rows of a large result frees DuckDB's chunks by collecting their wrappers.
        execArgv: ['--expose-gc'],
      });
    } catch (error) {
      resolve({
        tables: [],
        error: S2SPError.isInstance(error) ? error : unavailable(error),
        inQuery: false,
      });
      return;
    }
    let settled = false;
    let stoppedBy: 'deadline' | 'abort' | undefined;
    let tables: readonly LoadedTable[] = [];
    let loaded = false;
    const started = Date.now();
    let loadedAt = started;
    const stop = (why: 'deadline' | 'abort') => {
      stoppedBy ??= why;
      child.kill('SIGKILL');
    };
    let deadline = setTimeout(() => stop('deadline'), LOAD_DEADLINE_MS);
    const onAbort = () => stop('abort');
    signal?.addEventListener('abort', onAbort, { once: true });
    const finish = (outcome: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      signal?.removeEventListener('abort', onAbort);
      outcome();
    };
    const fail = (error: S2SPError, inQuery = loaded) =>
      finish(() => resolve({ tables, error, inQuery }));

    child.on('message', (message: WorkerReply) => {
      if (message.type === 'loaded') {
        loaded = true;
        loadedAt = Date.now();
        clearTimeout(deadline);
        deadline = setTimeout(() => stop('deadline'), job.limits.timeoutMs + STOP_GRACE_MS);
      } else if (message.type === 'done') {
        finish(() =>
          resolve({
            tables: message.tables,
            output: message.output,
            loadMs: loadedAt - started,
            queryMs: Date.now() - loadedAt,
          }),
        );
      } else {
        tables = message.tables;
        fail(new S2SPError(message.code, message.message), message.phase === 'query');
      }
    });
    child.on('error', (error) => fail(unavailable(error)));
    child.on('exit', (code, exitSignal) => {
      if (settled) return;
      if (stoppedBy === 'deadline') {
        fail(
          new S2SPError(
            'timeout',
            `The query ran longer than ${job.limits.timeoutMs} ms and was stopped. Make it cheaper (filter first, aggregate, avoid cross joins) and call again.`,
          ),
        );
      } else if (stoppedBy === 'abort') {
        fail(new S2SPError('unavailable', 'The call was cancelled.'));
      } else if (exitSignal === 'SIGKILL') {
        // The worker's watchdog (or the system's OOM killer): over the memory limit.
        fail(
          new S2SPError(
            'payload_too_large',
            `The query needed more than ${job.limits.memoryLimitMb} MiB of memory and was stopped. Build smaller values (no huge lists or strings), aggregate or filter first, or add a LIMIT.`,
          ),
        );
      } else {
        fail(unavailable(new Error(`query process exited with ${exitSignal ?? `code ${code}`}`)));
      }
    });
    child.send(job, (error) => {
      if (error) fail(unavailable(error));
    });
  });
}

function unavailable(cause: unknown): S2SPError {
  return new S2SPError(
    'unavailable',
    'The SQL engine could not run the query; retry in a moment.',
    {
      cause,
    },
  );
}
