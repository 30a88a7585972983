import type { FetchBodyOptions } from '@s2sp/core';
import { readToolCall, type ToolCall } from './tool-call.js';

/** A data-plane fetch's progress callback (`FetchBodyOptions.onProgress`). */
export type FetchProgressCallback = NonNullable<FetchBodyOptions['onProgress']>;

// MCP progress tokens are strings or integers; anything else in `_meta` is not one.
function progressTokenOf(meta: Readonly<Record<string, unknown>> | undefined) {
  const token = meta?.progressToken;
  return typeof token === 'string' || typeof token === 'number' ? token : undefined;
}

/**
 * Reports a tool call's progress: `progress` must grow from one call to the next (a value that
 * does not is dropped, as MCP requires); `total` when known.
 */
export type ToolProgress = (progress: number, total?: number, message?: string) => void;

/**
 * MCP progress for long work in a tool handler — a resource tool paging a large upstream table,
 * say: when the client sent a `progressToken` in the request's `_meta`, each call sends
 * `notifications/progress` for it; without a token nothing is sent. Values that do not increase
 * are dropped, and a notification that cannot be sent is ignored: progress never fails a call.
 *
 * @param call - the tool handler's `ctx` (MCP SDK v2) or `extra` (v1)
 * @example
 * ```ts
 * const progress = toolProgress(ctx);
 * for await (const page of upstreamPages()) {
 *   rows.push(...page);
 *   progress(rows.length, undefined, `${rows.length} rows fetched`);
 * }
 * ```
 */
export function toolProgress(call: ToolCall): ToolProgress {
  const { meta, notify } = readToolCall(call);
  const progressToken = progressTokenOf(meta);
  let last = Number.NEGATIVE_INFINITY;
  return (progress, total, message) => {
    if (progressToken === undefined || notify === undefined || !(progress > last)) return;
    last = progress;
    notify({
      method: 'notifications/progress',
      params: {
        progressToken,
        progress,
        ...(total !== undefined && { total }),
        ...(message !== undefined && { message }),
      },
    }).catch(() => {});
  };
}

/**
 * A data-plane fetch's progress as MCP progress (see {@link toolProgress}): `progress` in bytes,
 * `total` on the last report (equal to its `progress`), the rows so far in `message`.
 * `undefined` when the client sent no `progressToken`, so the fetch reports nothing.
 *
 * @param call - the tool handler's `ctx` (MCP SDK v2) or `extra` (v1)
 * @param what - what is being done, for `message` (`fetching the body`)
 */
export function mcpProgress(call: ToolCall, what: string): FetchProgressCallback | undefined {
  if (progressTokenOf(readToolCall(call).meta) === undefined) return undefined;
  const progress = toolProgress(call);
  return ({ bytes, rows, done }) =>
    progress(
      bytes,
      done ? bytes : undefined,
      `${what}: ${bytes} bytes, ${rows} rows${done ? '' : ' so far'}`,
    );
}
