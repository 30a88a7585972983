import type { FetchBodyOptions } from '@s2sp/core';
import type { ToolExtra } from '../mcp-sdk.js';

/** A data-plane fetch's progress callback (`FetchBodyOptions.onProgress`). */
export type FetchProgressCallback = NonNullable<FetchBodyOptions['onProgress']>;

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
 * @param extra - the tool handler's `extra`
 * @example
 * ```ts
 * const progress = toolProgress(extra);
 * for await (const page of upstreamPages()) {
 *   rows.push(...page);
 *   progress(rows.length, undefined, `${rows.length} rows fetched`);
 * }
 * ```
 */
export function toolProgress(extra: Pick<ToolExtra, '_meta' | 'sendNotification'>): ToolProgress {
  const progressToken = extra._meta?.progressToken;
  let last = Number.NEGATIVE_INFINITY;
  return (progress, total, message) => {
    if (progressToken === undefined || !(progress > last)) return;
    last = progress;
    extra
      .sendNotification({
        method: 'notifications/progress',
        params: {
          progressToken,
          progress,
          ...(total !== undefined && { total }),
          ...(message !== undefined && { message }),
        },
      })
      .catch(() => {});
  };
}

/**
 * A data-plane fetch's progress as MCP progress (see {@link toolProgress}): `progress` in bytes,
 * `total` on the last report (equal to its `progress`), the rows so far in `message`.
 * `undefined` when the client sent no `progressToken`, so the fetch reports nothing.
 *
 * @param extra - the tool handler's `extra`
 * @param what - what is being done, for `message` (`fetching the body`)
 */
export function mcpProgress(
  extra: Pick<ToolExtra, '_meta' | 'sendNotification'>,
  what: string,
): FetchProgressCallback | undefined {
  if (extra._meta?.progressToken === undefined) return undefined;
  const progress = toolProgress(extra);
  return ({ bytes, rows, done }) =>
    progress(
      bytes,
      done ? bytes : undefined,
      `${what}: ${bytes} bytes, ${rows} rows${done ? '' : ' so far'}`,
    );
}
